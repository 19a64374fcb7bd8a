package lbsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// edgeGraph builds a graph on n vertices from explicit edges.
func edgeGraph(t testing.TB, n int, edges [][2]int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(n)
	for _, e := range edges {
		if err := b.AddEdge(e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestNeighbourDispatchMatchesRoute checks, on small graphs and states with
// many ties, that Dispatch of every graph policy samples exactly the
// distribution Route states, for several origins (chi-square at the 1 - 1e-6
// quantile with 1e5 draws: deterministic with the fixed seeds, and a sampler
// off by a few percent on any outcome fails).
func TestNeighbourDispatchMatchesRoute(t *testing.T) {
	complete22, _ := graph.Complete(22)
	implicit5, _ := graph.Complete(5)
	explicit22, _ := complete22.Materialize()
	er := func(n int, p float64, seed uint64) *graph.Graph {
		g, err := graph.ErdosRenyi(n, p, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	implicitER := func(n int, p float64, key uint64) *graph.Graph {
		g, err := graph.ErdosRenyiImplicit(n, p, key)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	graphs := []struct {
		name string
		g    *graph.Graph
	}{
		{"path3", edgeGraph(t, 3, [][2]int{{0, 1}, {1, 2}})},
		{"star4", edgeGraph(t, 4, [][2]int{{0, 1}, {0, 2}, {0, 3}})},
		{"cycle4", edgeGraph(t, 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}})},
		{"isolated", edgeGraph(t, 4, [][2]int{{1, 2}})},
		{"er12", er(12, 0.5, 3)},
		{"implicitK5", implicit5},
		{"explicitK22", explicit22},
		{"implicitK22", complete22},
		// Implicit Erdős-Rényi: levels tested whole (12 * 0.5 < 8
		// candidates expected) and levels drawn from first (200 * 0.3).
		{"erImplicit12", implicitER(12, 0.5, 7)},
		{"erImplicit200", implicitER(200, 0.3, 8)},
	}
	lengthsFor := func(n int, seed uint64) [][]int {
		r := rand.New(rand.NewPCG(seed, 2))
		var out [][]int
		for _, top := range []int{1, 2, 3} { // few levels: many ties, and idle servers or none
			ls := make([]int, n)
			for j := range ls {
				ls[j] = r.IntN(top + 1)
			}
			out = append(out, ls)
			busy := make([]int, n)
			for j := range busy {
				busy[j] = 1 + r.IntN(top)
			}
			out = append(out, busy)
		}
		return out
	}
	const draws = 100000
	for gi, tc := range graphs {
		n := tc.g.N()
		policies := []Policy{NeighbourJSQ(tc.g), NeighbourJSQFirstIdle(tc.g), NeighbourJSQd(tc.g, 1),
			NeighbourJSQd(tc.g, 2), NeighbourJSQd(tc.g, 3), NeighbourJSQd(tc.g, 5)}
		if n == 22 {
			// d-1 = 18 of 21 neighbours: the partial Fisher-Yates path;
			// d-1 >= 21: all neighbours.
			policies = append(policies, NeighbourJSQd(tc.g, 19), NeighbourJSQd(tc.g, 22))
		}
		for si, lengths := range lengthsFor(n, uint64(gi)) {
			for _, p0 := range policies {
				sys := System{N: n}
				p, err := p0.(Preparer).Prepare(sys)
				if err != nil {
					t.Fatal(err)
				}
				s := newPolicyState(sys, p)
				for j, l := range lengths {
					for range l {
						s.add(j)
					}
				}
				for origin := range min(n, 5) {
					what := fmt.Sprintf("%s %s state %d origin %d", tc.name, p.Name(), si, origin)
					r := rand.New(rand.NewPCG(uint64(1000*gi+10*si+origin), 9))
					counts := map[int]int{}
					for range draws {
						counts[p.Dispatch(s, origin, r)]++
					}
					probs := map[int]float64{}
					total := 0.0
					for _, c := range p.(ExactRouter).Route(sys, lengths, 0, origin, nil) {
						probs[c.Server] += c.P
						total += c.P
					}
					if math.Abs(total-1) > 1e-12 {
						t.Fatalf("%s: Route probabilities sum to %v", what, total)
					}
					chiSquareOK(t, what, counts, probs, draws)
				}
			}
		}
	}
}

// Route of neighbour-jsq is the uniform argmin over the closed neighbourhood;
// of the first-idle variant, the offset rule (hand-computed on the path).
func TestNeighbourRouteByHand(t *testing.T) {
	g := edgeGraph(t, 4, [][2]int{{0, 1}, {0, 2}, {0, 3}}) // star centred at 0
	lengths := []int{1, 0, 2, 0}
	got := map[int]float64{}
	for _, c := range NeighbourJSQ(g).(ExactRouter).Route(System{N: 4}, lengths, 0, 0, nil) {
		got[c.Server] += c.P
	}
	if len(got) != 2 || got[1] != 0.5 || got[3] != 0.5 {
		t.Errorf("neighbour-jsq from the centre: %v, want 1 and 3 with 1/2 each", got)
	}
	// First idle from a random offset in [0(origin), 1, 2, 3]: offsets 0 and 1
	// find 1, offsets 2 and 3 find 3.
	got = map[int]float64{}
	for _, c := range NeighbourJSQFirstIdle(g).(ExactRouter).Route(System{N: 4}, []int{1, 0, 2, 0}, 0, 0, nil) {
		got[c.Server] += c.P
	}
	if len(got) != 2 || got[1] != 0.5 || got[3] != 0.5 {
		t.Errorf("first-idle from the centre: %v", got)
	}
	got = map[int]float64{}
	for _, c := range NeighbourJSQFirstIdle(g).(ExactRouter).Route(System{N: 4}, []int{1, 0, 0, 2}, 0, 0, nil) {
		got[c.Server] += c.P
	}
	// offsets 0, 1 -> 1; 2 -> 2; 3 (server 3, busy) wraps to 0 (busy), 1 -> 1.
	if got[1] != 0.75 || got[2] != 0.25 {
		t.Errorf("first-idle from the centre with idle 1, 2: %v, want 3/4 and 1/4", got)
	}
	// neighbour-jsqd(2) from a leaf: the only neighbour is the centre.
	got = map[int]float64{}
	for _, c := range NeighbourJSQd(g, 2).(ExactRouter).Route(System{N: 4}, []int{1, 1, 0, 0}, 0, 1, nil) {
		got[c.Server] += c.P
	}
	if got[0] != 0.5 || got[1] != 0.5 {
		t.Errorf("neighbour-jsqd(2) from a leaf in a tie: %v, want 1/2 each", got)
	}
}

func TestNeighbourPrepareErrors(t *testing.T) {
	g := edgeGraph(t, 3, [][2]int{{0, 1}})
	for _, p := range []Policy{NeighbourJSQ(g), NeighbourJSQFirstIdle(g), NeighbourJSQd(g, 2)} {
		_, err := p.(Preparer).Prepare(System{N: 4})
		if err == nil || !strings.Contains(err.Error(), "graph") || !strings.Contains(err.Error(), "3") ||
			!strings.Contains(err.Error(), "4") {
			t.Errorf("%s on 4 servers with a 3-vertex graph: err = %v", p.Name(), err)
		}
	}
	if _, err := NeighbourJSQd(g, 0).(Preparer).Prepare(System{N: 3}); err == nil || !strings.Contains(err.Error(), "d = 0") {
		t.Errorf("d = 0: err = %v", err)
	}
	b := graph.NewBuilder(3)
	b.KeepSelfLoops = true
	_ = b.AddEdge(1, 1)
	loops, _ := b.Build()
	if _, err := NeighbourJSQ(loops).(Preparer).Prepare(System{N: 3}); err == nil || !strings.Contains(err.Error(), "self-loop") {
		t.Errorf("self-loops: err = %v", err)
	}
	if u := NeedsOf(NeighbourJSQ(g)); !u.Origin || u.ShortestOrder || !u.idleBits {
		t.Errorf("neighbour-jsq on an explicit graph: needs %+v, want the origin and the idle bits, not the order", u)
	}
	k, _ := graph.Complete(5)
	if u := NeedsOf(NeighbourJSQ(k)); !u.ShortestOrder || u.idleBits {
		t.Errorf("neighbour-jsq on the implicit clique: needs %+v, want the order, not the idle bits", u)
	}
	if _, ok := NeighbourJSQ(g).(OccupancyRouter); ok {
		t.Error("neighbour-jsq must not be an OccupancyRouter")
	}
}

// On graphs of degree at least probeMinDegree, neighbour-jsq probes random
// candidates before scanning (probeIdle) while many servers are idle; its law
// must stay the uniform argmin. Two disjoint cliques of 300 with the second
// all idle (so that the system is idle enough to probe) and, in the first,
// states with 40% idle candidates (the probes decide), exactly one or two (the
// probes mostly fail and the scan decides) and none (ties at the minimum among
// busy candidates); and G(700, 1/2) with 40% idle. Chi-square as in
// TestNeighbourDispatchMatchesRoute.
func TestNeighbourJSQProbingMatchesRoute(t *testing.T) {
	b := graph.NewBuilder(600)
	for c := range 2 {
		for u := range 300 {
			for v := u + 1; v < 300; v++ {
				b.AddEdge(300*c+u, 300*c+v)
			}
		}
	}
	cliques, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	er, err := graph.ErdosRenyi(700, 0.5, rand.New(rand.NewPCG(3, 1)))
	if err != nil {
		t.Fatal(err)
	}
	const draws = 100000
	for gi, g := range []*graph.Graph{cliques, er} {
		n := g.N()
		r0 := rand.New(rand.NewPCG(uint64(gi), 5))
		busy := func() int { return 1 + r0.IntN(2) }
		states := map[string][]int{}
		some, one, two, none := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
		for j := range n {
			some[j] = busy()
			if r0.IntN(10) < 4 {
				some[j] = 0
			}
			one[j], two[j], none[j] = busy(), busy(), 1+busy()
		}
		states["40% idle"] = some
		if gi == 0 {
			for j := 300; j < 600; j++ {
				one[j], two[j], none[j] = 0, 0, 0
			}
			one[7] = 0
			two[3], two[299] = 0, 0
			none[5], none[11] = 1, 1
			states["one idle"], states["two idle"], states["none idle"] = one, two, none
		}
		for name, lengths := range states {
			sys := System{N: n}
			p, err := NeighbourJSQ(g).(Preparer).Prepare(sys)
			if err != nil {
				t.Fatal(err)
			}
			s := newPolicyState(sys, p)
			for j, l := range lengths {
				for range l {
					s.add(j)
				}
			}
			if !p.(*neighbourJSQ).dense || probeBatches(len(g.Neighbors(0)), s.Idle(), n) == 0 {
				t.Fatalf("graph %d, %s: no probes (%d idle of %d), so this test would not test them", gi, name, s.Idle(), n)
			}
			for _, origin := range []int{0, 5, 7, 299} {
				what := fmt.Sprintf("graph %d, %s, origin %d", gi, name, origin)
				r := rand.New(rand.NewPCG(uint64(100*gi+origin), 11))
				counts := map[int]int{}
				for range draws {
					counts[p.Dispatch(s, origin, r)]++
				}
				probs := map[int]float64{}
				for _, c := range p.(ExactRouter).Route(sys, lengths, 0, origin, nil) {
					probs[c.Server] += c.P
				}
				chiSquareOK(t, what, counts, probs, draws)
			}
		}
	}
}
