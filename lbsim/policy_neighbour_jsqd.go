package lbsim

import (
	"fmt"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/internal/distinct"
	"github.com/lbsim/notebooks/lbsim/param"
)

// NeighbourJSQd is the power of d choices constrained by a graph: a task that
// appears at server o (uniformly at random, or by Scenario.OriginWeights)
// considers o itself and d-1 of o's neighbours in g, drawn uniformly without
// replacement, and joins the one with the fewest tasks, ties broken uniformly
// among the d considered servers. If o has fewer than d-1 neighbours, all of
// them are considered (so on a graph of minimum degree >= d-1 every task sees
// exactly d servers). d = 2 is Gast's "two local choices"; d = 1 is random
// routing to the origin.
//
// The cost per arrival is O(d) for d-1 <= 16 (rejection sampling of
// neighbour positions) and O(d) with a per-replication scratch permutation of
// the neighbour positions beyond; it is independent of the degree. On the
// implicit complete graph (graph.Complete) the d-1 others are drawn among all
// other servers. g must have as many vertices as the system has servers and no
// self-loops (checked by Prepare); 1 <= d is required. NeighbourJSQd implements
// ExactRouter.
func NeighbourJSQd(g *graph.Graph, d int) Policy { return &neighbourJSQd{g: g, d: d} }

type neighbourJSQd struct {
	g        *graph.Graph
	d        int
	complete bool
	n        int
	off      []uint64
	adj      []uint32
	// scratch is the identity permutation of [0, max degree), used for a
	// partial Fisher-Yates draw of positions when d-1 > maxRejectionD; it is
	// restored after each draw.
	scratch distinct.Perm
}

func (p *neighbourJSQd) Name() string { return fmt.Sprintf("neighbour-jsqd(d=%d)", p.d) }

// Uses declares the origin (the choice depends on where the task appears)
// and, for d = 2 on a graph with neighbour lists or an implicit one other
// than the complete graph, the engines' localPair rule (two local choices).
func (p *neighbourJSQd) Uses() Needs {
	u := Needs{Origin: true}
	if p.d == 2 && p.g != nil && !p.g.IsComplete() {
		u.inline = inlineRule{kind: localPair, graph: p.g}
	}
	return u
}

func (p *neighbourJSQd) Prepare(sys System) (Policy, error) {
	if p.d < 1 {
		return nil, fmt.Errorf("d = %d: must be at least 1", p.d)
	}
	if err := checkGraph(p.g, sys.N); err != nil {
		return nil, err
	}
	q := &neighbourJSQd{g: p.g, d: p.d, complete: p.g.IsComplete(), n: sys.N}
	maxDeg := sys.N - 1
	if !q.complete {
		// The lists are read on the first Dispatch: the per-server
		// engine's loop for d = 2 computes the neighbours of an implicit
		// graph and never makes them.
		maxDeg = maxDegree(p.g)
	}
	if k := p.d - 1; k > maxRejectionD && k < maxDeg {
		q.scratch = distinct.Identity(maxDeg)
	}
	return q, nil
}

// neighbour returns the i-th neighbour of origin (0 <= i < degree).
func (p *neighbourJSQd) neighbour(origin int, i int32) int32 {
	if p.complete {
		// The other servers, in increasing order, skipping the origin.
		if int(i) >= origin {
			return i + 1
		}
		return i
	}
	return int32(p.adj[p.off[origin]+uint64(i)])
}

func (p *neighbourJSQd) Dispatch(s *State, origin int, r *rand.Rand) int {
	length := s.length
	if p.off == nil && !p.complete { // the first call: see Prepare
		p.off, p.adj = p.g.Offsets(), p.g.Adjacency()
	}
	var deg int
	if p.complete {
		deg = p.n - 1
	} else {
		deg = int(p.off[origin+1] - p.off[origin])
	}
	k := min(p.d-1, deg)
	if k == 0 {
		return origin
	}
	if k == 1 {
		// Two local choices: one draw gives the neighbour (low half) and the
		// coin for a tie (top bit).
		x := r.Uint64()
		b := int(p.neighbour(origin, int32(bounded32(r, uint32(x), uint32(deg)))))
		switch lo, lb := length[origin], length[b]; {
		case lb < lo:
			return b
		case lb == lo && x>>63 == 1:
			return b
		}
		return origin
	}
	if k == deg && !p.complete {
		// Every neighbour is considered: a full scan with uniform ties.
		best, bl, ties := int32(origin), length[origin], uint32(1)
		for _, v := range p.adj[p.off[origin]:p.off[origin+1]] {
			best, bl, ties = reservoirMin(r, best, bl, ties, int32(v), length[v])
		}
		return int(best)
	}
	best, bl, ties := int32(origin), length[origin], uint32(1)
	if k <= maxRejectionD || p.scratch == nil {
		var picked [maxRejectionD + 1]int32
		if k > maxRejectionD { // k == deg on the complete graph is handled here too
			return p.scanComplete(length, origin, r)
		}
		for t := 0; t < k; t++ {
		draw:
			i := int32(bounded32(r, r.Uint32(), uint32(deg)))
			for _, q := range picked[:t] {
				if q == i {
					goto draw
				}
			}
			picked[t] = i
			v := p.neighbour(origin, i)
			best, bl, ties = reservoirMin(r, best, bl, ties, v, length[v])
		}
		return int(best)
	}
	// Partial Fisher-Yates over the positions [0, deg), which restores the
	// identity (see jsqd.sampleShuffle); each candidate's tie draw follows
	// its own position draw, as before.
	p.scratch[:deg].Draw(k, func(m uint32) uint32 { return bounded32(r, r.Uint32(), m) }, func(i int32) {
		v := p.neighbour(origin, i)
		best, bl, ties = reservoirMin(r, best, bl, ties, v, length[v])
	})
	return int(best)
}

// scanComplete is the full scan over all servers (the complete graph with
// d-1 >= N-1 and no scratch): uniform among the shortest.
func (p *neighbourJSQd) scanComplete(length []int32, origin int, r *rand.Rand) int {
	best, bl, ties := int32(origin), length[origin], uint32(1)
	for v := range int32(len(length)) {
		if int(v) != origin {
			best, bl, ties = reservoirMin(r, best, bl, ties, v, length[v])
		}
	}
	return int(best)
}

// reservoirMin folds candidate v of length l into a running minimum (best,
// bl) with ties tied servers at that length: a strictly shorter candidate
// replaces it, a tied one replaces it with probability 1/(ties+1), so the
// final choice is uniform among the shortest candidates.
func reservoirMin(r *rand.Rand, best int32, bl int32, ties uint32, v int32, l int32) (int32, int32, uint32) {
	switch {
	case l < bl:
		return v, l, 1
	case l == bl:
		ties++
		if bounded32(r, r.Uint32(), ties) == 0 {
			best = v
		}
	}
	return best, bl, ties
}

// Route states the exact routing distribution for a task appearing at origin:
// the sample S of k = min(d-1, degree) neighbours is a uniform k-subset, and
// the task joins a uniform server among the shortest of {origin} and S.
// Grouping the neighbours by length gives it in closed form: a neighbour v of
// length l is chosen when v is in S, no member of S is shorter than l, the
// origin is not shorter, and v wins the tie among the j other members of
// length l (and the origin, if it has length l too).
func (p *neighbourJSQd) Route(sys System, lengths []int, _ int, origin int, out []Choice) []Choice {
	var nb []int
	if p.g.IsComplete() {
		for v := range sys.N {
			if v != origin {
				nb = append(nb, v)
			}
		}
	} else {
		nb = neighbourCandidates(p.g, origin)[1:]
	}
	deg := len(nb)
	k := min(max(p.d-1, 0), deg)
	lo := lengths[origin]
	// above(l) counts neighbours longer than l, equal(l) those of length l.
	count := func(l int) (above, equal int) {
		for _, v := range nb {
			switch {
			case lengths[v] > l:
				above++
			case lengths[v] == l:
				equal++
			}
		}
		return
	}
	total := binomial(deg, k)
	choose := func(n, m int) float64 {
		if m < 0 || m > n {
			return 0
		}
		return binomial(n, m)
	}
	// The origin: every sampled neighbour has length >= lo; j of them equal it.
	above, equal := count(lo)
	po := 0.0
	for j := 0; j <= k; j++ {
		po += choose(equal, j) * choose(above, k-j) / float64(j+1)
	}
	if po > 0 {
		out = append(out, Choice{Server: origin, P: po / total})
	}
	for _, v := range nb {
		l := lengths[v]
		if l > lo || k == 0 {
			continue
		}
		above, equal := count(l)
		tieO := 0
		if l == lo {
			tieO = 1
		}
		pv := 0.0
		for j := 0; j <= k-1; j++ { // j other sampled neighbours of length l
			pv += choose(equal-1, j) * choose(above, k-1-j) / float64(j+1+tieO)
		}
		if pv > 0 {
			out = append(out, Choice{Server: v, P: pv / total})
		}
	}
	return out
}

func init() {
	mustRegister(PolicyDef{Name: "neighbour-jsqd", Uses: append([]string{keyD}, graphKeys...),
		Build: func(v *param.Values) (Policy, error) {
			d := v.Int(keyD)
			return newGraphPolicy(v, fmt.Sprintf("neighbour-jsqd(d=%d,", d),
				func(g *graph.Graph) Policy { return NeighbourJSQd(g, d) })
		}})
}
