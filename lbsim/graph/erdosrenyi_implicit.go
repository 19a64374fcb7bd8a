package graph

import (
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/param"
)

// PairHash decides the edges of an implicit Erdős-Rényi graph
// (ErdosRenyiImplicit): the pair {u, v}, u != v, is an edge iff a keyed hash
// of (min(u, v), max(u, v)), read as a 53-bit number, is below p 2^53. The
// hash is two rounds of the SplitMix64 finaliser under a key drawn from the
// graph's seed, so the pairs' indicators behave as independent Bernoulli(p)
// draws, as those of a graph generated from a random stream do; the graph is
// a fixed function of (n, p, key).
type PairHash struct {
	key   uint64
	below uint64 // edge iff the 53-bit hash < below = round(p 2^53)
}

// Edge reports whether {u, v} is an edge (false for u == v). It is O(1) and
// touches no memory.
func (h PairHash) Edge(u, v int) bool {
	a, b := uint64(u), uint64(v)
	if a > b {
		a, b = b, a
	}
	return a != b && mc.SplitMix(mc.SplitMix(h.key^(a<<32|b))^h.key)>>11 < h.below
}

// P returns the edge probability, rounded to the hash's 2^-53 resolution.
func (h PairHash) P() float64 { return float64(h.below) / (1 << 53) }

// hashed is an implicit Erdős-Rényi graph: its PairHash, and the stored
// lists, made at most once on demand.
type hashed struct {
	pairs PairHash
	lists lazyLists
}

// ErdosRenyiImplicit returns a G(n, p) random graph that stores no edges:
// HasEdge and PairHash decide a pair in O(1) from a hash keyed by key (see
// PairHash), so the graph costs nothing however dense it is. Dispatch by
// neighbour JSQ reads it through PairHash alone (lbsim.NeighbourJSQ); code
// that asks for the lists (Neighbors, Degree, Offsets, Edges, ...) makes them
// once, testing all n(n-1)/2 pairs (O(n^2) time, 4 bytes per directed entry).
//
// It is the same random-graph law as ErdosRenyi, a different realisation: a
// hash of each pair instead of geometric skips through a random stream.
func ErdosRenyiImplicit(n int, p float64, key uint64) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: ErdosRenyiImplicit: n = %d out of range [0, %d]", n, MaxVertices)
	}
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("graph: ErdosRenyiImplicit: p = %v out of range [0, 1]", p)
	}
	below := uint64(math.Round(p * (1 << 53)))
	return &Graph{n: n, hashed: &hashed{pairs: PairHash{key: key, below: below}}}, nil
}

// PairHash returns the edge rule of an implicit Erdős-Rényi graph
// (ErdosRenyiImplicit) and true, or false for any other graph.
func (g *Graph) PairHash() (PairHash, bool) {
	if g.hashed == nil {
		return PairHash{}, false
	}
	return g.hashed.pairs, true
}

// MakeLists makes the lists of an implicit Erdős-Rényi graph now, testing
// every pair (seconds to a minute for 10^5 vertices), and stops with an error
// wrapping context.Canceled once the interrupt context of package param is
// done (SIGINT on the command line), storing nothing then. It does nothing
// for other graphs or lists already made.
func (g *Graph) MakeLists() error {
	if g.hashed == nil {
		return nil
	}
	if off, _ := g.hashed.lists.madeSoFar(); off != nil {
		return nil
	}
	off, adj, err := g.hashed.pairs.listsInterruptible(g.n, param.Interrupted)
	if err != nil {
		return err
	}
	g.hashed.lists.set(off, adj)
	return nil
}

// lists computes the lists of the graph on n vertices, testing every pair
// (row by row, so the lists come out sorted).
func (h PairHash) lists(n int) ([]uint64, []uint32) {
	off, adj, _ := h.listsInterruptible(n, func() error { return nil })
	return off, adj
}

// listsInterruptible is lists, calling stop every 256 rows and returning
// its error, if any, at once.
func (h PairHash) listsInterruptible(n int, stop func() error) ([]uint64, []uint32, error) {
	off := make([]uint64, n+1)
	var adj []uint32
	if n > 1 {
		adj = make([]uint32, 0, int(float64(n)*float64(n-1)*h.P()*1.01)+64)
	}
	for v := range n {
		if v%256 == 0 {
			if err := stop(); err != nil {
				return nil, nil, err
			}
		}
		for u := range n {
			if h.Edge(u, v) {
				adj = append(adj, uint32(u))
			}
		}
		off[v+1] = uint64(len(adj))
	}
	return off, adj, nil
}
