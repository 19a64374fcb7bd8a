package pairs

import (
	"fmt"
	"slices"
)

// Pair graphs on a few servers, up to isomorphism: the exhaustive side of
// the comparison of pair distributions (every pair graph on four servers in
// which every server lies in some pair). A graph on n servers is an edge
// mask: bit k stands for the k-th pair {i, j}, i < j, in lexicographic order
// (on 4 servers: 01, 02, 03, 12, 13, 23). Two masks are the same graph up
// to relabelling the servers when one of the n! permutations maps one onto
// the other, so the smallest image is a canonical form.

// MaxSmallServers bounds the servers of the enumeration: n! relabellings
// of 2^(n(n-1)/2) masks (6 servers: 720 of 32768).
const MaxSmallServers = 6

// SmallGraph is a pair distribution on a few servers: its pairs, their
// weights (nil: equal) and a name.
type SmallGraph struct {
	Name    string
	N       int
	Edges   [][2]int
	Weights []float64
}

// Dist is the distribution of g: each pair with probability proportional
// to its weight.
func (g SmallGraph) Dist() (*Dist, error) {
	u, v := make([]int32, len(g.Edges)), make([]int32, len(g.Edges))
	for k, e := range g.Edges {
		u[k], v[k] = int32(e[0]), int32(e[1])
	}
	return Weighted(g.N, u, v, g.Weights)
}

// Degrees is the number of pairs of each server (weights ignored).
func (g SmallGraph) Degrees() []int {
	deg := make([]int, g.N)
	for _, e := range g.Edges {
		deg[e[0]]++
		deg[e[1]]++
	}
	return deg
}

// Mask is the edge mask of g (weights ignored); an error for a pair that
// is not two distinct servers below N.
func (g SmallGraph) Mask() (uint32, error) {
	var m uint32
	for _, e := range g.Edges {
		k, err := PairIndex(g.N, e[0], e[1])
		if err != nil {
			return 0, err
		}
		m |= 1 << k
	}
	return m, nil
}

// SmallPairs lists the pairs of n servers in mask order: {0,1}, {0,2}, ...
func SmallPairs(n int) [][2]int {
	var out [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// PairIndex is the bit of the pair {i, j} in an edge mask on n servers.
func PairIndex(n, i, j int) (int, error) {
	if i == j || i < 0 || j < 0 || i >= n || j >= n {
		return 0, fmt.Errorf("pairs: {%d, %d} is not a pair of %d servers", i, j, n)
	}
	i, j = min(i, j), max(i, j)
	// pairs {a, b} with a < i come first: (n-1) + (n-2) + ... + (n-i).
	return i*(2*n-i-1)/2 + (j - i - 1), nil
}

func checkSmall(n int) error {
	if n < 2 || n > MaxSmallServers {
		return fmt.Errorf("pairs: %d servers: the enumeration takes 2 to %d", n, MaxSmallServers)
	}
	return nil
}

// relabellings returns, for each of the n! permutations of the servers, the
// image of each pair bit.
func relabellings(n int) [][]int {
	ps := SmallPairs(n)
	var out [][]int
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	var walk func(k int)
	walk = func(k int) {
		if k == n {
			img := make([]int, len(ps))
			for b, e := range ps {
				img[b], _ = PairIndex(n, perm[e[0]], perm[e[1]])
			}
			out = append(out, img)
			return
		}
		for j := k; j < n; j++ {
			perm[k], perm[j] = perm[j], perm[k]
			walk(k + 1)
			perm[k], perm[j] = perm[j], perm[k]
		}
	}
	walk(0)
	return out
}

// Classifier maps the edge mask of a graph on n servers to its class.
// Canonical gives the isomorphism classes; IdentityClass and DegreeClass
// are wrong ones (no relabelling; equal degree sequences), kept as negative
// controls for an enumeration.
type Classifier func(n int, mask uint32) uint64

// Canonical is the smallest mask among the n! relabellings of mask: two
// graphs on n servers are isomorphic exactly when their canonical masks are
// equal. It panics for n outside 2..MaxSmallServers.
func Canonical(n int, mask uint32) uint64 {
	if err := checkSmall(n); err != nil {
		panic(err)
	}
	return canonicalWith(relabellings(n), mask)
}

func canonicalWith(rel [][]int, mask uint32) uint64 {
	best := uint32(1<<32 - 1)
	for _, img := range rel {
		var m uint32
		for b, to := range img {
			if mask&(1<<b) != 0 {
				m |= 1 << to
			}
		}
		best = min(best, m)
	}
	return uint64(best)
}

// IdentityClass is the mask itself: labelled graphs, no relabelling.
func IdentityClass(n int, mask uint32) uint64 { return uint64(mask) }

// DegreeClass classes graphs by their number of pairs and sorted degree
// sequence only: coarser than isomorphism from 5 servers on (the path P5
// and a triangle beside a pair share [1 1 2 2 2]).
func DegreeClass(n int, mask uint32) uint64 {
	deg := make([]int, n)
	for b, e := range SmallPairs(n) {
		if mask&(1<<b) != 0 {
			deg[e[0]]++
			deg[e[1]]++
		}
	}
	slices.Sort(deg)
	var k uint64
	for _, d := range deg {
		k = k*uint64(n) + uint64(d)
	}
	return k
}

// covers reports whether every one of the n servers lies in a pair of mask.
func covers(n int, mask uint32) bool {
	var seen uint32
	for b, e := range SmallPairs(n) {
		if mask&(1<<b) != 0 {
			seen |= 1<<e[0] | 1<<e[1]
		}
	}
	return seen == 1<<n-1
}

// CoveringClasses returns one mask per class (under classify) of the graphs
// on n servers in which every server lies in some pair: the first mask met
// of each class, from the full graph down. With Canonical these are the
// graphs up to isomorphism (7 on 4 servers, 23 on 5, 122 on 6: OEIS
// A002494).
func CoveringClasses(n int, classify Classifier) ([]uint32, error) {
	if err := checkSmall(n); err != nil {
		return nil, err
	}
	var rel [][]int
	if classify == nil {
		rel = relabellings(n)
		classify = func(_ int, m uint32) uint64 { return canonicalWith(rel, m) }
	}
	seen := map[uint64]bool{}
	var out []uint32
	for mask := uint32(1)<<(n*(n-1)/2) - 1; mask > 0; mask-- {
		if !covers(n, mask) {
			continue
		}
		c := classify(n, mask)
		if seen[c] {
			continue
		}
		seen[c] = true
		out = append(out, mask)
	}
	return out, nil
}

// fourNames names the covering graphs on 4 servers by their number of pairs
// and degree sequence, which tell the 7 classes apart.
var fourNames = map[string]string{
	"6 [3 3 3 3]": "K4 (uniform)", "5 [2 2 3 3]": "K4 minus an edge", "4 [2 2 2 2]": "4-cycle (ring)",
	"4 [1 2 2 3]": "triangle + pendant", "3 [1 1 2 2]": "path P4", "3 [1 1 1 3]": "star K1,3", "2 [1 1 1 1]": "matching 2K2",
}

// smallName is the name of a graph: on 4 servers the usual one, otherwise
// "graph m [degrees]".
func smallName(n int, edges [][2]int) string {
	g := SmallGraph{N: n, Edges: edges}
	deg := g.Degrees()
	slices.Sort(deg)
	key := fmt.Sprint(len(edges), deg)
	if n == 4 {
		if name, ok := fourNames[key]; ok {
			return name
		}
	}
	if len(edges) == n*(n-1)/2 {
		return fmt.Sprintf("K%d (uniform)", n)
	}
	return "graph " + key
}

// CoveringGraphs returns the pair graphs on n servers in which every server
// lies in some pair, one per isomorphism class (its canonical mask), with
// equal weights, densest first (ties by canonical mask). The complete graph,
// uniform sampling, comes first.
func CoveringGraphs(n int) ([]SmallGraph, error) {
	if err := checkSmall(n); err != nil {
		return nil, err
	}
	rel := relabellings(n)
	reps, err := CoveringClasses(n, func(_ int, m uint32) uint64 { return canonicalWith(rel, m) })
	if err != nil {
		return nil, err
	}
	type item struct {
		mask  uint32
		edges [][2]int
	}
	var items []item
	ps := SmallPairs(n)
	for _, r := range reps {
		c := uint32(canonicalWith(rel, r))
		var edges [][2]int
		for b, e := range ps {
			if c&(1<<b) != 0 {
				edges = append(edges, e)
			}
		}
		items = append(items, item{c, edges})
	}
	slices.SortStableFunc(items, func(a, b item) int {
		if d := len(b.edges) - len(a.edges); d != 0 {
			return d
		}
		return int(a.mask) - int(b.mask)
	})
	out := make([]SmallGraph, len(items))
	for k, it := range items {
		out[k] = SmallGraph{Name: smallName(n, it.edges), N: n, Edges: it.edges}
	}
	return out, nil
}
