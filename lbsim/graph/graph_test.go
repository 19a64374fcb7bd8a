package graph

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/simple"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// checkSimple verifies the CSR invariants, symmetry and the absence of loops
// and multi-edges, and that Edges() matches the lists.
func checkSimple(t *testing.T, g *Graph) {
	t.Helper()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.IsComplete() {
		return
	}
	total := 0
	for v := 0; v < g.N(); v++ {
		l := g.Neighbors(v)
		total += len(l)
		if slices.Contains(l, uint32(v)) {
			t.Fatalf("self-loop at %d", v)
		}
		for _, w := range l {
			if !slices.Contains(g.Neighbors(int(w)), uint32(v)) {
				t.Fatalf("asymmetric: %d in N(%d), not %d in N(%d)", w, v, v, w)
			}
		}
	}
	if total != 2*g.Edges() {
		t.Fatalf("sum of degrees %d != 2*Edges() = %d", total, 2*g.Edges())
	}
}

func checkDegrees(t *testing.T, g *Graph, want func(v int) int) {
	t.Helper()
	for v := 0; v < g.N(); v++ {
		if d := g.Degree(v); d != want(v) {
			t.Fatalf("degree of %d = %d, want %d", v, d, want(v))
		}
	}
}

func TestBuilder(t *testing.T) {
	b := NewBuilder(5)
	for _, e := range [][2]int{{0, 1}, {1, 0}, {2, 2}, {3, 4}, {1, 0}, {4, 0}} {
		if err := b.AddEdge(e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	checkSimple(t, g)
	if g.Edges() != 3 || !g.HasEdge(0, 1) || !g.HasEdge(4, 3) || g.HasEdge(2, 2) || g.HasEdge(0, 2) {
		t.Fatalf("wrong graph: %v %v", g.off, g.adj)
	}
	if got := g.Neighbors(0); !slices.Equal(got, []uint32{1, 4}) {
		t.Fatalf("N(0) = %v", got)
	}
	b.KeepSelfLoops = true
	g, _ = b.Build()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.Edges() != 4 || g.SelfLoops() != 1 || !g.HasEdge(2, 2) || g.Degree(2) != 1 {
		t.Fatalf("self-loop not kept: edges %d loops %d", g.Edges(), g.SelfLoops())
	}
	err = b.AddEdge(3, 5)
	if err == nil || !strings.Contains(err.Error(), "edge 6") || !strings.Contains(err.Error(), "vertex 5 out of range [0, 5)") {
		t.Fatalf("error = %v", err)
	}
	if _, err := b.Build(); err == nil {
		t.Fatal("Build after a bad edge succeeded")
	}
	// Inferred n.
	b = NewBuilder(-1)
	b.AddEdge(2, 7)
	if g, _ := b.Build(); g.N() != 8 || g.Edges() != 1 {
		t.Fatalf("inferred N = %d", g.N())
	}
	if testing.AllocsPerRun(100, func() { _ = g.Neighbors(1) }) != 0 {
		t.Fatal("Neighbors allocates")
	}
}

func TestComplete(t *testing.T) {
	g, err := Complete(1_000_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if !g.IsComplete() || g.Degree(5) != 999_999_999 || !g.HasEdge(3, 999_999_998) || g.HasEdge(4, 4) || g.Edges() != 1_000_000_000*999_999_999/2 {
		t.Fatal("implicit complete graph wrong")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Neighbors on a complete graph did not panic")
			}
		}()
		g.Neighbors(0)
	}()
	if _, err := g.Materialize(); err == nil {
		t.Fatal("materialised a huge clique")
	}
	k, _ := Complete(7)
	m, err := k.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	checkSimple(t, m)
	checkDegrees(t, m, func(int) int { return 6 })
	if !m.Equal(k) || !k.Equal(m) || m.Edges() != 21 || !IsConnected(k) || !IsConnected(m) || Girth(m) != 3 {
		t.Fatal("materialised clique wrong")
	}
}

func TestErdosRenyiDegrees(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{2000, 0.01}, {3000, 0.3}, {50_000, 20.0 / 49_999}} {
		g, err := ErdosRenyi(tc.n, tc.p, newRNG(uint64(tc.n)))
		if err != nil {
			t.Fatal(err)
		}
		checkSimple(t, g)
		st := Degrees(g)
		mean := float64(tc.n-1) * tc.p
		vr := mean * (1 - tc.p)
		// Mean degree = 2M/N with M ~ Binomial(N(N-1)/2, p).
		se := 2 * math.Sqrt(float64(tc.n)*float64(tc.n-1)/2*tc.p*(1-tc.p)) / float64(tc.n)
		if math.Abs(st.Mean-mean) > 4*se {
			t.Errorf("n=%d p=%v: mean degree %v, want %v ± %v", tc.n, tc.p, st.Mean, mean, 4*se)
		}
		// Sample variance of N nearly independent binomials: relative
		// standard error about sqrt(2/N).
		if math.Abs(st.Variance-vr) > 5*math.Sqrt(2/float64(tc.n))*vr+0.02*vr {
			t.Errorf("n=%d p=%v: degree variance %v, want %v", tc.n, tc.p, st.Variance, vr)
		}
	}
	// Edge cases.
	if g, _ := ErdosRenyi(10, 0, newRNG(1)); g.Edges() != 0 {
		t.Fatal("p = 0 gave edges")
	}
	if g, _ := ErdosRenyi(10, 1, newRNG(1)); g.Edges() != 45 {
		t.Fatal("p = 1 not complete")
	}
	if _, err := ErdosRenyi(10, 1.5, newRNG(1)); err == nil || !strings.Contains(err.Error(), "p = 1.5") {
		t.Fatalf("error %v", err)
	}
	if _, err := ErdosRenyiMeanDegree(10, 12, newRNG(1)); err == nil || !strings.Contains(err.Error(), "mean degree") {
		t.Fatalf("error %v", err)
	}
}

// TestErdosRenyiPairs checks that every pair is an edge with probability p, by
// counting over many small graphs (this catches tiling mistakes: each pair
// must be covered by exactly one tile).
func TestErdosRenyiPairs(t *testing.T) {
	saved := erTile
	erTile = 7 // force many tiles on small graphs
	defer func() { erTile = saved }()
	const n, reps = 40, 400
	for _, p := range []float64{0.5, 0.95} {
		var cnt [n][n]int
		rng := newRNG(9)
		for r := 0; r < reps; r++ {
			g, _ := ErdosRenyi(n, p, rng)
			checkSimple(t, g)
			_ = g.eachEdge(func(u, v int) error { cnt[u][v]++; return nil })
		}
		sd := math.Sqrt(reps * p * (1 - p))
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if math.Abs(float64(cnt[u][v])-reps*p) > 5*sd {
					t.Fatalf("p=%v: pair (%d,%d) appeared %d times in %d graphs", p, u, v, cnt[u][v], reps)
				}
			}
		}
	}
}

func TestReproducible(t *testing.T) {
	gens := map[string]func(r *rand.Rand) *Graph{
		"er":        func(r *rand.Rand) *Graph { g, _ := ErdosRenyi(5000, 0.01, r); return g },
		"regular":   func(r *rand.Rand) *Graph { g, _ := RandomRegular(1000, 7, r); return g },
		"geometric": func(r *rand.Rand) *Graph { g, _, _ := RandomGeometric(1000, 0.05, r); return g },
	}
	for name, f := range gens {
		a, b, c := f(newRNG(42)), f(newRNG(42)), f(newRNG(43))
		if !a.Equal(b) {
			t.Errorf("%s: same seed, different graphs", name)
		}
		if a.Equal(c) {
			t.Errorf("%s: different seeds, same graph", name)
		}
	}
}

func TestRandomRegular(t *testing.T) {
	for _, tc := range [][2]int{{10, 3}, {100, 3}, {1000, 10}, {51, 50}, {20, 17}, {10000, 3}, {7, 0}} {
		n, k := tc[0], tc[1]
		g, err := RandomRegular(n, k, newRNG(uint64(n*k)))
		if err != nil {
			t.Fatal(err)
		}
		checkSimple(t, g)
		checkDegrees(t, g, func(int) int { return k })
	}
	if _, err := RandomRegular(5, 3, newRNG(1)); err == nil || !strings.Contains(err.Error(), "even") {
		t.Fatalf("odd n*k: %v", err)
	}
	if _, err := RandomRegular(5, 5, newRNG(1)); err == nil || !strings.Contains(err.Error(), "degree k = 5") {
		t.Fatalf("k >= n: %v", err)
	}
}

func TestRandomRegularLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	g, err := RandomRegular(200_000, 10, newRNG(5))
	if err != nil {
		t.Fatal(err)
	}
	checkSimple(t, g)
	checkDegrees(t, g, func(int) int { return 10 })
}

func TestRingTorus(t *testing.T) {
	for _, tc := range [][2]int{{10, 1}, {10, 4}, {101, 7}, {3, 1}} {
		g, err := Ring(tc[0], tc[1])
		if err != nil {
			t.Fatal(err)
		}
		checkSimple(t, g)
		checkDegrees(t, g, func(int) int { return 2 * tc[1] })
		if !IsConnected(g) || !g.HasEdge(0, tc[0]-tc[1]) || g.HasEdge(0, tc[1]+1) && 2*tc[1]+2 < tc[0] {
			t.Fatalf("ring %v wrong", tc)
		}
	}
	if g, _ := Ring(9, 1); Girth(g) != 9 {
		t.Fatalf("girth of C_9 = %d", Girth(g))
	}
	if _, err := Ring(10, 5); err == nil || !strings.Contains(err.Error(), "k = 5") {
		t.Fatalf("err %v", err)
	}
	for _, L := range []int{3, 4, 17} {
		g, err := Torus(L)
		if err != nil {
			t.Fatal(err)
		}
		checkSimple(t, g)
		checkDegrees(t, g, func(int) int { return 4 })
		if !IsConnected(g) || g.Edges() != 2*L*L || !g.HasEdge(0, L-1) || !g.HasEdge(0, L*(L-1)) {
			t.Fatalf("torus %d wrong", L)
		}
		want := min(L, 4)
		if Girth(g) != want {
			t.Fatalf("girth of torus %d = %d, want %d", L, Girth(g), want)
		}
	}
	if _, err := Torus(2); err == nil || !strings.Contains(err.Error(), "side L = 2") {
		t.Fatalf("err %v", err)
	}
}

func TestSplitPendant(t *testing.T) {
	n, c := 50, 0.2
	g, err := CompleteSplit(n, c)
	if err != nil {
		t.Fatal(err)
	}
	checkSimple(t, g)
	m := 10
	checkDegrees(t, g, func(v int) int {
		if v < m {
			return n - 1
		}
		return m
	})
	if !IsConnected(g) || g.HasEdge(m, m+1) {
		t.Fatal("split graph wrong")
	}
	g, err = CliquePendant(23, 5)
	if err != nil {
		t.Fatal(err)
	}
	checkSimple(t, g)
	checkDegrees(t, g, func(v int) int {
		if v >= 5 {
			return 1
		}
		// 18 pendants over 5 clique vertices: 4,4,4,3,3.
		return 4 + []int{4, 4, 4, 3, 3}[v]
	})
	if !IsConnected(g) || !g.HasEdge(7, 2) {
		t.Fatal("pendant graph wrong")
	}
	if _, err := CompleteSplit(10, -0.1); err == nil || !strings.Contains(err.Error(), "c = -0.1") {
		t.Fatalf("err %v", err)
	}
	if _, err := CliquePendant(10, 0); err == nil || !strings.Contains(err.Error(), "m = 0") {
		t.Fatalf("err %v", err)
	}
}

func TestRandomGeometric(t *testing.T) {
	for _, r := range []float64{0, 0.03, 0.1, 0.3, 0.5, 0.7} {
		const n = 700
		g, pts, err := RandomGeometric(n, r, newRNG(7))
		if err != nil {
			t.Fatal(err)
		}
		checkSimple(t, g)
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if near := TorusDist(pts[u], pts[v]) <= r; near != g.HasEdge(u, v) {
					t.Fatalf("r=%v: pair (%d,%d) at distance %v: edge %v", r, u, v, TorusDist(pts[u], pts[v]), g.HasEdge(u, v))
				}
			}
		}
	}
	if _, _, err := RandomGeometric(10, 0.9, newRNG(1)); err == nil || !strings.Contains(err.Error(), "radius r = 0.9") {
		t.Fatalf("err %v", err)
	}
}

func TestComponentsGirth(t *testing.T) {
	b := NewBuilder(9)
	for _, e := range [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {5, 6}, {6, 7}, {7, 8}, {8, 5}} {
		b.AddEdge(e[0], e[1])
	}
	g, _ := b.Build()
	label, sizes := Components(g)
	if !slices.Equal(sizes, []int{3, 2, 4}) || label[4] != 1 || label[8] != 2 {
		t.Fatalf("components %v %v", label, sizes)
	}
	if Girth(g) != 3 {
		t.Fatalf("girth %d", Girth(g))
	}
	p := petersen()
	if Girth(p) != 5 || Girth(hypercube(5)) != 4 {
		t.Fatal("girth of Petersen or hypercube wrong")
	}
	tree, _ := CliquePendant(10, 2)
	if Girth(tree) != 0 {
		t.Fatal("tree has a cycle")
	}
	st := Degrees(tree)
	if st.Min != 1 || st.Max != 5 || st.Mean != 1.8 {
		t.Fatalf("degree stats %+v", st)
	}
}

func TestEdgeListRoundTrip(t *testing.T) {
	g, _ := ErdosRenyi(300, 0.05, newRNG(3))
	var buf bytes.Buffer
	if err := WriteEdgeList(&buf, g); err != nil {
		t.Fatal(err)
	}
	h, err := ReadEdgeList(bytes.NewReader(buf.Bytes()), g.N())
	if err != nil {
		t.Fatal(err)
	}
	if !g.Equal(h) {
		t.Fatal("edge-list round trip changed the graph")
	}
	h, err = ReadEdgeList(strings.NewReader("# comment\n0 3  # trailing\n\n 3\t1\n1 3\n"), -1)
	if err != nil || h.N() != 4 || h.Edges() != 2 {
		t.Fatalf("parse: %v %v", h, err)
	}
	_, err = ReadEdgeList(strings.NewReader("0 1\n1 2 3\n"), -1)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err %v", err)
	}
	_, err = ReadEdgeList(strings.NewReader("0 1\n\n1 9\n"), 5)
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "vertex 9 out of range") {
		t.Fatalf("err %v", err)
	}
	_, err = ReadEdgeList(strings.NewReader("0 x\n"), -1)
	if err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("err %v", err)
	}
	// A self-loop is refused, naming its line and vertex, not dropped.
	for _, n := range []int{-1, 5} {
		_, err = ReadEdgeList(strings.NewReader("0 1\n# c\n3 3\n1 2\n"), n)
		if err == nil || err.Error() != "graph: edge list line 3: edge (3, 3): a self-loop at vertex 3; an edge needs two distinct vertices" {
			t.Errorf("n = %d: self-loop: err %v", n, err)
		}
	}
}

func TestGonum(t *testing.T) {
	g, _ := RandomRegular(200, 4, newRNG(4))
	h, ids, err := FromGonum(ToGonum(g))
	if err != nil || ids != nil || !g.Equal(h) {
		t.Fatalf("gonum round trip: %v %v", ids, err)
	}
	// Non-contiguous ids are renumbered in sorted order.
	u := simple.NewUndirectedGraph()
	u.SetEdge(simple.Edge{F: simple.Node(10), T: simple.Node(-3)})
	u.SetEdge(simple.Edge{F: simple.Node(10), T: simple.Node(42)})
	u.AddNode(simple.Node(7))
	h, ids, err = FromGonum(u)
	if err != nil || !slices.Equal(ids, []int64{-3, 7, 10, 42}) || h.Edges() != 2 || !h.HasEdge(0, 2) || !h.HasEdge(2, 3) || h.Degree(1) != 0 {
		t.Fatalf("renumbering: %v %v", ids, err)
	}
	var buf bytes.Buffer
	small, _ := Ring(4, 1)
	if err := WriteDOT(&buf, small, "ring"); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.Contains(s, "graph ring {") || !strings.Contains(s, "0 -- 1") || !strings.Contains(s, "0 -- 3") {
		t.Fatalf("DOT output:\n%s", s)
	}
}

func TestCompleteMultipartite(t *testing.T) {
	for _, c := range []struct{ n, m int }{{23, 5}, {10, 2}, {12, 3}, {7, 1}, {6, 6}, {1, 1}} {
		g, err := CompleteMultipartite(c.n, c.m)
		if err != nil {
			t.Fatal(err)
		}
		checkSimple(t, g)
		for u := 0; u < c.n; u++ {
			for v := 0; v < c.n; v++ {
				if want := u/c.m != v/c.m; g.HasEdge(u, v) != want {
					t.Fatalf("n = %d, m = %d: edge %d-%d is %v, want %v", c.n, c.m, u, v, g.HasEdge(u, v), want)
				}
			}
		}
		checkDegrees(t, g, func(v int) int { return c.n - min(c.m, c.n-v/c.m*c.m) })
	}
	// m = 2: the complete graph minus a perfect matching, each vertex missing exactly its partner.
	g, _ := CompleteMultipartite(10, 2)
	if g.Edges() != 10*9/2-5 || g.HasEdge(4, 5) || !g.HasEdge(5, 6) {
		t.Fatalf("complete minus a matching: %d edges, want %d", g.Edges(), 10*9/2-5)
	}
	// m = 1 is the complete graph, m = n the empty one.
	k, _ := Complete(7)
	k, _ = k.Materialize()
	if g, _ := CompleteMultipartite(7, 1); !g.Equal(k) {
		t.Fatal("m = 1 is not the complete graph")
	}
	if g, _ := CompleteMultipartite(6, 6); g.Edges() != 0 {
		t.Fatal("m = n is not empty")
	}
	if g, err := CompleteMultipartite(0, 0); err != nil || g.N() != 0 {
		t.Fatalf("n = 0: %v", err)
	}
	for _, m := range []int{0, -1, 11} {
		if _, err := CompleteMultipartite(10, m); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("m = %d out of range [1, 10]", m)) {
			t.Fatalf("m = %d: err %v", m, err)
		}
	}
	if _, err := CompleteMultipartite(-1, 1); err == nil || !strings.Contains(err.Error(), "n = -1") {
		t.Fatalf("err %v", err)
	}
}
