package lbsim

import (
	"fmt"
	"math/rand/v2"
)

// NeighbourJSQBlocks is NeighbourJSQ on graph.CompleteMultipartite(n, m),
// the complete graph on n servers minus the edges inside consecutive blocks
// of m servers (server v is in block v/m; the last block may be smaller),
// without the graph's lists: a task appearing at v joins a server with the
// fewest tasks among v and every server outside v's block, ties broken
// uniformly at random. Its law is that of NeighbourJSQ on the stored graph
// (the test compares Dispatch with Route, and Route with NeighbourJSQ's);
// m = 1 is JSQ on the clique, m = 2 the clique minus a perfect matching,
// minimum degree n - m.
//
// The stored graph costs 4 bytes per directed edge, about 4 n^2 bytes (400 MB
// at n = 10^4), and NeighbourJSQ scans it near saturation; this policy keeps
// the servers sorted by length, as JSQ does, and searches the levels of the
// whole system from the shortest up: it draws up to blockDraws servers of a
// level uniformly and joins the first that is v or outside v's block (a
// uniform candidate of the level); when none is drawn it tests the whole level
// and joins one of its candidates, uniformly, or moves up a level when all of
// it lies in v's block. Each route gives the uniform law over the shortest
// candidates. A level of at least 2m servers holds at least m + 1 candidates,
// so the cost per arrival is O(1) in expectation plus O(m) for levels that
// are mostly in v's block, whatever n.
//
// NeighbourJSQBlocks implements ExactRouter; it has no scenario keys (a run
// with it is reproduced from Go, not from a scenario file).
func NeighbourJSQBlocks(n, m int) Policy { return &neighbourJSQBlocks{n: n, m: m} }

type neighbourJSQBlocks struct {
	n, m int
	// ties holds the candidates of a level tested whole.
	ties []int32
}

func (p *neighbourJSQBlocks) Name() string {
	return fmt.Sprintf("neighbour-jsq(complete-multipartite,m=%d)", p.m)
}

// Uses declares the origin (the candidates depend on the origin's block)
// and the length order (Dispatch reads the servers level by level).
func (p *neighbourJSQBlocks) Uses() Needs { return Needs{Origin: true, ShortestOrder: true} }

func (p *neighbourJSQBlocks) Prepare(sys System) (Policy, error) {
	if p.n != sys.N {
		return nil, fmt.Errorf("neighbour-jsq blocks: made for %d servers but the system has %d", p.n, sys.N)
	}
	if p.m < 1 || p.m > p.n {
		return nil, fmt.Errorf("neighbour-jsq blocks: block size m = %d out of range [1, %d]", p.m, p.n)
	}
	return &neighbourJSQBlocks{n: p.n, m: p.m, ties: make([]int32, p.n)}, nil
}

// candidate reports whether u is v or outside v's block.
func (p *neighbourJSQBlocks) candidate(v, u int) bool { return u == v || u/p.m != v/p.m }

func (p *neighbourJSQBlocks) Dispatch(s *State, origin int, r *rand.Rand) int {
	perm, start, length := s.perm, s.start, s.length
	for l := length[perm[0]]; l <= length[origin]; l++ {
		level := perm[start[l]:start[l+1]]
		size := uint32(len(level))
		if size == 0 {
			continue
		}
		for range blockDraws {
			if u := int(level[bounded32(r, r.Uint32(), size)]); p.candidate(origin, u) {
				return u
			}
		}
		c := uint32(0)
		for _, u := range level {
			if p.candidate(origin, int(u)) {
				p.ties[c] = u
				c++
			}
		}
		switch {
		case c == 1:
			return int(p.ties[0])
		case c > 1:
			return int(p.ties[bounded32(r, r.Uint32(), c)])
		}
	}
	panic("lbsim: neighbour-jsq blocks: the origin's level holds no candidate (the length order is broken)")
}

// blockDraws is how many servers of a level Dispatch draws before it tests
// the whole level. A level of at least 2m servers accepts each draw with
// probability above 1/2, so the test of a large level (O(N)) follows with
// probability below 2^-16; a level that fails the draws is mostly in the
// origin's block, hence small.
const blockDraws = 16

// Route states the exact routing distribution: uniform over the shortest of
// the origin and the servers outside its block.
func (p *neighbourJSQBlocks) Route(sys System, lengths []int, _ int, origin int, out []Choice) []Choice {
	cand := make([]int, 0, len(lengths))
	for u := range lengths {
		if p.candidate(origin, u) {
			cand = append(cand, u)
		}
	}
	return appendUniformArgmin(out, lengths, cand)
}
