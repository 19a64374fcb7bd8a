package lbsim

import (
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// The candidates aheadArrivals hands out have the law of the policies'
// Dispatch: JSQ(2) and JSQ(3) with replacement, independent uniform servers;
// two local choices, a uniform origin, a uniform neighbour of it and a fair
// tie coin, on implicit graphs (circulant, torus: computed neighbours), a
// regular stored graph (stride: two stages) and an irregular one with an
// isolated vertex (three stages; the origin stands alone). Chi-square tests
// at the level of chisq.Check over every outcome.
func TestAheadArrivalsUniform(t *testing.T) {
	const draws = 120000
	check := func(name string, h *aheadArrivals, cell func(c candidates) int, probs map[int]float64) {
		t.Helper()
		counts := map[int]int{}
		for range draws {
			counts[cell(h.next())]++
		}
		chiSquareOK(t, name, counts, probs, draws)
	}
	n := 3
	length := make([]int32, 5)
	src := rand.NewPCG(7, 8)
	uniform := func(cells int) map[int]float64 {
		p := map[int]float64{}
		for i := range cells {
			p[i] = 1 / float64(cells)
		}
		return p
	}
	check("twoWith", newAheadArrivals(src, length[:n], twoWith, nil),
		func(c candidates) int {
			if c.c != c.a || c.tie != 0 {
				t.Fatalf("twoWith: %+v", c)
			}
			return int(c.a)*n + int(c.b)
		}, uniform(n*n))
	check("threeWith", newAheadArrivals(src, length[:n], threeWith, nil),
		func(c candidates) int { return (int(c.a)*n+int(c.b))*n + int(c.c) }, uniform(n*n*n))
	check("twoWithout", newAheadArrivals(src, length[:n], twoWithout, nil),
		func(c candidates) int { return int(c.a)*n + int(c.b) },
		map[int]float64{1: 1. / 6, 2: 1. / 6, 3: 1. / 6, 5: 1. / 6, 6: 1. / 6, 7: 1. / 6})

	circulant, _ := graph.Circulant(5, []int{1, 2})
	torus, _ := graph.Torus(3)
	regular := edgeGraph(t, 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}})   // a 4-cycle, stored: stride
	irregular := edgeGraph(t, 5, [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}}) // vertex 4 isolated
	for _, tc := range []struct {
		name  string
		g     *graph.Graph
		depth uint32
	}{{"circulant", circulant, 1}, {"torus", torus, 1}, {"stride", regular, 2}, {"lists", irregular, 3}} {
		g := tc.g
		n := g.N()
		h := newAheadArrivals(src, make([]int32, n), localTwo, g)
		if h.depth != tc.depth {
			t.Fatalf("%s: depth %d, want %d", tc.name, h.depth, tc.depth)
		}
		// Cell (origin, candidate, tie); the candidate is the origin itself
		// when it has no neighbour.
		probs := map[int]float64{}
		for o := range n {
			deg := g.Degree(o)
			for tie := range 2 {
				if deg == 0 {
					probs[(o*n+o)*2+tie] = 1 / float64(2*n)
				}
				for i := range deg {
					probs[(o*n+g.NeighborAt(o, i))*2+tie] = 1 / float64(2*n*deg)
				}
			}
		}
		check("localTwo/"+tc.name, h, func(c candidates) int {
			if c.c != c.a {
				t.Fatalf("%s: %+v", tc.name, c)
			}
			return (int(c.a)*n+int(c.b))*2 + int(c.tie)
		}, probs)
		if _, ok := g.Implicit(); ok && g.Bytes() != 0 {
			t.Errorf("%s: the loop made the lists (%d bytes)", tc.name, g.Bytes())
		}
	}
}

// The neighbours an implicit graph's loop computes are the graph's own
// (graph.NeighborAt), for every vertex and position, on rings, a circulant
// graph near the uint32 range and tori.
func TestAheadArrivalsNeighbours(t *testing.T) {
	ring, _ := graph.Ring(11, 2)
	circ, _ := graph.Circulant(10, []int{4, 1})
	t4, _ := graph.Torus(4)
	t7, _ := graph.Torus(7)
	for _, g := range []*graph.Graph{ring, circ, t4, t7} {
		h := &aheadArrivals{n: uint32(g.N())}
		h.setGraph(g)
		for o := range g.N() {
			for i := range g.Degree(o) {
				if got, want := int(h.neighbour(uint32(o), uint32(i))), g.NeighborAt(o, i); got != want {
					t.Fatalf("n=%d: neighbour %d of %d = %d, want %d", g.N(), i, o, got, want)
				}
			}
		}
	}
	// A sum past 2^32 wraps correctly: n = 2^32 - 5, shift 2^31 - 10.
	big, err := graph.Circulant(1<<32-5, []int{1<<31 - 10})
	if err != nil {
		t.Fatal(err)
	}
	h := &aheadArrivals{n: uint32(big.N())}
	h.setGraph(big)
	for _, o := range []int{0, 1 << 31, 1<<32 - 6} {
		for i := range 2 {
			if got, want := int(h.neighbour(uint32(o), uint32(i))), big.NeighborAt(o, i); got != want {
				t.Fatalf("big: neighbour %d of %d = %d, want %d", i, o, got, want)
			}
		}
	}
}
