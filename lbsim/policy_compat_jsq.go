package lbsim

import (
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/compat"
	"github.com/lbsim/notebooks/lbsim/param"
)

// CompatJSQ is JSQ under strict compatibility constraints: a task of type t
// (drawn in proportion to g's type rates, equal by default) joins the server
// with the fewest tasks among all servers compatible with t, ties broken
// uniformly at random. Its cost per arrival is the degree of the type; on the
// complete bipartite graph it is JSQ, O(1) per arrival. Every type that
// arrives needs a compatible server (checked by Prepare). As in CompatJSQd,
// heterogeneous server rates do not change the rule (fewest tasks).
// CompatJSQ implements ExactRouter.
func CompatJSQ(g *compat.Graph) Policy { return &compatJSQ{g: g} }

type compatJSQ struct {
	g        *compat.Graph
	complete bool
	types    compatTypes
	off      []uint64
	adj      []uint32
}

func (p *compatJSQ) Name() string { return "compat-jsq" }

// Uses declares the length order on the implicit complete graph, where the
// policy is JSQ and uses the O(1) shortest-queue structure.
func (p *compatJSQ) Uses() Needs { return Needs{ShortestOrder: p.complete} }

func (p *compatJSQ) Prepare(sys System) (Policy, error) {
	types, err := checkCompat(p.g, sys, 1, " (a type that arrives needs a compatible server)")
	if err != nil {
		return nil, err
	}
	return &compatJSQ{g: p.g, complete: p.g.IsComplete(), types: types,
		off: p.g.TypeOffsets(), adj: p.g.TypeAdjacency()}, nil
}

func (p *compatJSQ) Dispatch(s *State, _ int, r *rand.Rand) int {
	if p.complete {
		return s.RandomShortest(r)
	}
	t := p.types.draw(r)
	nb := p.adj[p.off[t]:p.off[t+1]]
	length := s.length
	// One pass for the shortest length and its multiplicity, then one draw
	// picks a uniform one of the tied servers in a second pass over the
	// (now cached) lengths: cheaper than a draw per tie.
	bl, ties := length[nb[0]], uint32(1)
	for _, v := range nb[1:] {
		switch l := length[v]; {
		case l < bl:
			bl, ties = l, 1
		case l == bl:
			ties++
		}
	}
	k := uint32(0)
	if ties > 1 {
		k = bounded32(r, r.Uint32(), ties)
	}
	for _, v := range nb {
		if length[v] == bl {
			if k == 0 {
				return int(v)
			}
			k--
		}
	}
	panic("unreachable: the shortest length was seen")
}

// Route: type t arrives with probability p_t and joins a uniform server among
// the shortest of its compatible servers.
func (p *compatJSQ) Route(sys System, lengths []int, _ int, _ int, out []Choice) []Choice {
	prob := make([]float64, sys.N)
	var nb []int
	var choices []Choice
	for t, pt := range compatWeights(p.g) {
		if pt == 0 {
			continue
		}
		nb = compatServers(p.g, t, nb[:0])
		choices = appendUniformArgmin(choices[:0], lengths, nb)
		for _, c := range choices {
			prob[c.Server] += pt * c.P
		}
	}
	for j, pj := range prob {
		if pj > 0 {
			out = append(out, Choice{Server: j, P: pj})
		}
	}
	return out
}

func init() {
	mustRegister(PolicyDef{Name: "compat-jsq", Uses: compatKeys, Build: func(v *param.Values) (Policy, error) {
		return newCompatPolicy(v, "compat-jsq(", CompatJSQ)
	}})
}
