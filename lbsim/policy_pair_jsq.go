package lbsim

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/pairs"
	"github.com/lbsim/notebooks/lbsim/param"
)

// PairJSQ is power-of-two under non-uniform pair sampling (Cardinaels,
// Borst and van Leeuwaarden 2022): each task samples a pair of servers from
// dist (package pairs: uniform over all pairs, the edges of a graph, or
// weighted edges) and joins the shorter queue, ties uniform. With uniform
// pairs it is JSQ(2) without replacement.
func PairJSQ(dist *pairs.Dist) Policy { return &pairJSQ{dist: dist} }

type pairJSQ struct {
	dist *pairs.Dist
	buf  [2]int32
}

func (p *pairJSQ) Name() string { return "pair-jsq(" + p.dist.String() + ")" }

// Prepare gives each replication its own draw buffer.
func (p *pairJSQ) Prepare(sys System) (Policy, error) {
	if sys.N != p.dist.N() {
		return nil, fmt.Errorf("servers = %d: the pairs are over %d servers", sys.N, p.dist.N())
	}
	return &pairJSQ{dist: p.dist}, nil
}

func (p *pairJSQ) Dispatch(s *State, _ int, r *rand.Rand) int {
	pair := p.dist.Sample(r, p.buf[:])
	a, b := int(pair[0]), int(pair[1])
	if la, lb := s.Len(a), s.Len(b); lb < la {
		return b
	} else if la < lb {
		return a
	}
	return a // the pair comes in a uniformly random order: ties are uniform
}

// Route: each pair with its probability, to its shorter server (half to
// each on a tie).
func (p *pairJSQ) Route(sys System, lengths []int, _ int, _ int, out []Choice) []Choice {
	add := func(a, b int, pr float64) []Choice {
		switch la, lb := lengths[a], lengths[b]; {
		case la < lb:
			return append(out, Choice{Server: a, P: pr})
		case lb < la:
			return append(out, Choice{Server: b, P: pr})
		}
		return append(out, Choice{Server: a, P: pr / 2}, Choice{Server: b, P: pr / 2})
	}
	if p.dist.IsUniform() {
		n := len(lengths)
		pr := 2 / float64(n*(n-1))
		for a := range n {
			for b := a + 1; b < n; b++ {
				out = add(a, b, pr)
			}
		}
		return out
	}
	sets, err := p.dist.Sets()
	if err != nil {
		panic(err) // explicit pairs always list
	}
	for _, s := range sets {
		out = add(s.Servers[0], s.Servers[1], s.P)
	}
	return out
}

func init() {
	mustRegister(PolicyDef{
		Name:    "pair-jsq",
		NewKeys: pairs.Keys(),
		Uses:    pairs.KeyNames,
		Example: map[string]any{pairs.KeyPairs: "ring", "degree": 2},
		Build: func(v *param.Values) (Policy, error) {
			n := v.Int(keyServers)
			// Uniform pairs cost nothing and a file is read now (loading it
			// checks it: a bad file is invalid input); a topology is checked
			// now and generated on first use.
			eager := !slices.Contains(graph.Topologies, v.String(pairs.KeyPairs))
			if !eager {
				if err := pairs.Check(v, n, 2); err != nil {
					return nil, err
				}
			}
			return newLazyOn("pair-jsq("+v.String(pairs.KeyPairs)+")", false, eager,
				func() (*pairs.Dist, error) { return pairs.FromValues(v, n, 2) }, PairJSQ)
		},
	})
}
