package compat

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkCSR verifies the invariants of g: both sides increasing without
// duplicates, ids in range, and the server side the exact transpose of the
// type side.
func checkCSR(t *testing.T, g *Graph) {
	t.Helper()
	if g.IsComplete() {
		return
	}
	var fromTypes, fromServers []Edge
	for ty := range g.Types() {
		nb := g.ServersOf(ty)
		for i, j := range nb {
			if int(j) >= g.Servers() || (i > 0 && nb[i-1] >= j) {
				t.Fatalf("type %d: servers %v not increasing and in range", ty, nb)
			}
			fromTypes = append(fromTypes, Edge{Type: uint32(ty), Server: j})
		}
	}
	for j := range g.Servers() {
		ts := g.TypesOf(j)
		for i, ty := range ts {
			if int(ty) >= g.Types() || (i > 0 && ts[i-1] >= ty) {
				t.Fatalf("server %d: types %v not increasing and in range", j, ts)
			}
			fromServers = append(fromServers, Edge{Type: ty, Server: uint32(j)})
		}
	}
	cmp := func(a, b Edge) int {
		if a.Type != b.Type {
			return int(a.Type) - int(b.Type)
		}
		return int(a.Server) - int(b.Server)
	}
	slices.SortFunc(fromServers, cmp)
	if !slices.Equal(fromTypes, fromServers) {
		t.Fatal("the server side is not the transpose of the type side")
	}
	if int64(len(fromTypes)) != g.Edges() {
		t.Fatalf("Edges() = %d, lists hold %d", g.Edges(), len(fromTypes))
	}
}

func TestFromEdges(t *testing.T) {
	g, err := FromEdges(3, 2, []Edge{{1, 2}, {0, 0}, {1, 0}, {1, 2}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, g)
	if !slices.Equal(g.ServersOf(1), []uint32{0, 2}) || !slices.Equal(g.TypesOf(0), []uint32{0, 1}) || g.Edges() != 4 {
		t.Fatalf("FromEdges: type 1 -> %v, server 0 -> %v, %d edges", g.ServersOf(1), g.TypesOf(0), g.Edges())
	}
	if !g.Compatible(1, 2) || g.Compatible(0, 2) {
		t.Fatal("Compatible disagrees with the edges")
	}
	h, err := FromTypeLists(3, [][]int{{0, 1}, {2, 0, 2}})
	if err != nil || !slices.Equal(h.TypeAdjacency(), g.TypeAdjacency()) || !slices.Equal(h.ServerAdjacency(), g.ServerAdjacency()) {
		t.Fatalf("FromTypeLists gives another graph than FromEdges: %v", err)
	}
	if _, err := FromTypeLists(3, [][]int{{0}, {3}}); err == nil || !strings.Contains(err.Error(), "type 1: server 3: must be in [0, servers = 3)") {
		t.Errorf("FromTypeLists with server 3 of 3: %v", err)
	}
	for _, c := range []struct {
		servers, types int
		edges          []Edge
		want           string
	}{
		{0, 2, nil, "servers = 0"},
		{3, 0, nil, "types = 0"},
		{3, 2, []Edge{{2, 0}}, "edge 0 (type 2, server 0)"},
		{3, 2, []Edge{{0, 0}, {0, 3}}, "edge 1 (type 0, server 3)"},
	} {
		if _, err := FromEdges(c.servers, c.types, c.edges); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromEdges(%d, %d, %v): %v, want %q", c.servers, c.types, c.edges, err, c.want)
		}
	}
}

// TestRandomDegrees: Random gives every server exactly c distinct types, and
// every type a Binomial(N, c/M) degree; with N = 20000, M = 40, c = 6 the
// mean is 3000 and the standard deviation 50, so 6 sigma (300) bounds every
// type (40 types: a false alarm has probability below 1e-7). RandomTypes is
// the mirror image. Both are reproducible from the seed.
func TestRandomDegrees(t *testing.T) {
	const n, m, c = 20000, 40, 6
	g, err := Random(n, m, c, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, g)
	mean, sd := float64(n*c)/m, math.Sqrt(float64(n)*c/m*(1-float64(c)/m))
	for j := range n {
		if g.ServerDegree(j) != c {
			t.Fatalf("server %d has degree %d, want %d", j, g.ServerDegree(j), c)
		}
	}
	for ty := range m {
		if d := float64(g.TypeDegree(ty)); math.Abs(d-mean) > 6*sd {
			t.Errorf("type %d has degree %v, want %v ± %v", ty, d, mean, 6*sd)
		}
	}
	again, _ := Random(n, m, c, rand.New(rand.NewPCG(1, 2)))
	if !slices.Equal(g.TypeAdjacency(), again.TypeAdjacency()) {
		t.Fatal("Random is not reproducible from the seed")
	}
	// c > M/2 takes the complement path.
	h, err := Random(50, 10, 8, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, h)
	for j := range 50 {
		if h.ServerDegree(j) != 8 {
			t.Fatalf("complement path: server %d has degree %d, want 8", j, h.ServerDegree(j))
		}
	}
	r, err := RandomTypes(m, n, c, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, r)
	for ty := range n {
		if r.TypeDegree(ty) != c {
			t.Fatalf("RandomTypes: type %d has degree %d, want %d", ty, r.TypeDegree(ty), c)
		}
	}
	for j := range m {
		if d := float64(r.ServerDegree(j)); math.Abs(d-mean) > 6*sd {
			t.Errorf("RandomTypes: server %d has degree %v, want %v ± %v", j, d, mean, 6*sd)
		}
	}
	if _, err := Random(10, 5, 6, nil); err == nil || !strings.Contains(err.Error(), "c = 6: must be in [1, types = 5]") {
		t.Errorf("Random with c > M: %v", err)
	}
}

// TestSparseDegrees: with c draws with replacement among M types, a server
// has E[degree] = M (1 - (1 - 1/M)^c) distinct types. Over N = 20000 servers
// the mean degree has a standard error below 0.02 (the degree's standard
// deviation is below 1.5 for c = 20, M = 50), so 0.1 is over 5 sigma.
func TestSparseDegrees(t *testing.T) {
	const n, m, c = 20000, 50, 20
	g, err := Sparse(n, m, c, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, g)
	sum := 0
	for j := range n {
		d := g.ServerDegree(j)
		if d < 1 || d > c {
			t.Fatalf("server %d has degree %d, want 1..%d", j, d, c)
		}
		sum += d
	}
	want := m * (1 - math.Pow(1-1.0/m, c))
	if got := float64(sum) / n; math.Abs(got-want) > 0.1 {
		t.Errorf("mean server degree %v, want %v", got, want)
	}
}

// TestSpatial compares Ring and Torus with a brute-force check of every pair
// against the distance rule, and their mean type degree with 2 r N and
// pi r^2 N (evenly spread points: within 2% at these sizes).
func TestSpatial(t *testing.T) {
	const n, m, r = 400, 300, 0.05
	g, err := Ring(n, m, r)
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, g)
	for ty := range m {
		y := (float64(ty) + 0.5) / m
		for j := range n {
			d := math.Abs(float64(j)/n - y)
			if want := math.Min(d, 1-d) <= r; g.Compatible(ty, j) != want {
				t.Fatalf("ring: type %d server %d compatible = %v, distance rule says %v", ty, j, !want, want)
			}
		}
	}
	if got, want := float64(g.Edges())/m, 2*r*n; math.Abs(got/want-1) > 0.02 {
		t.Errorf("ring: mean type degree %v, want about %v", got, want)
	}
	if h, err := Ring(10, 3, 0.5); err != nil || h.TypeDegree(0) != 10 {
		t.Errorf("ring with radius 1/2: every server compatible, got %v", err)
	}
	tg, sp, tp, err := torus(2000, 500, 0.08)
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, tg)
	w := func(d float64) float64 { d = math.Abs(d); return math.Min(d, 1-d) }
	for ty, p := range tp {
		for j, q := range sp {
			dx, dy := w(p.x-q.x), w(p.y-q.y)
			if want := dx*dx+dy*dy <= 0.08*0.08; tg.Compatible(ty, j) != want {
				t.Fatalf("torus: type %d server %d compatible = %v, distance rule says %v", ty, j, !want, want)
			}
		}
	}
	if got, want := float64(tg.Edges())/500, math.Pi*0.08*0.08*2000; math.Abs(got/want-1) > 0.02 {
		t.Errorf("torus: mean type degree %v, want about %v", got, want)
	}
	// Ids are in spatial order: consecutive servers are in the same or an
	// adjacent cell row.
	for j := 1; j < len(sp); j++ {
		if sp[j].cell < sp[j-1].cell {
			t.Fatal("torus: server ids are not in cell order")
		}
	}
}

func TestBlocks(t *testing.T) {
	sizes, err := BlockSizes(10, []float64{1, 2, 2})
	if err != nil || !slices.Equal(sizes, []int{2, 4, 4}) {
		t.Fatalf("BlockSizes(10, 1:2:2) = %v, %v; want [2 4 4]", sizes, err)
	}
	sizes, _ = BlockSizes(3, []float64{1, 100})
	if !slices.Equal(sizes, []int{1, 2}) {
		t.Fatalf("BlockSizes gives every block at least one item: %v", sizes)
	}
	g, err := Blocks(10, 6, []float64{1, 2, 2})
	if err != nil {
		t.Fatal(err)
	}
	checkCSR(t, g)
	first := []int{0, 2, 6, 10}
	for ty := range 6 {
		k := TypeBlock(ty, 6, 3)
		if k != ty/2 {
			t.Fatalf("type %d in block %d, want %d", ty, k, ty/2)
		}
		for j := range 10 {
			want := j >= first[k] && j < first[k+1]
			if g.Compatible(ty, j) != want {
				t.Fatalf("type %d (block %d) server %d: compatible = %v, want %v", ty, k, j, !want, want)
			}
		}
	}
	for _, c := range []struct {
		n, m   int
		shares []float64
		want   string
	}{
		{10, 2, []float64{1, 1, 1}, "types = 2: must be at least the number of blocks (3)"},
		{2, 5, []float64{1, 1, 1}, "3 blocks need at least 3 items"},
		{10, 5, []float64{1, 0}, "block share 1 = 0"},
	} {
		if _, err := Blocks(c.n, c.m, c.shares); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Blocks(%d, %d, %v): %v, want %q", c.n, c.m, c.shares, err, c.want)
		}
	}
}

func TestEdgeListRoundTrip(t *testing.T) {
	g, err := Random(30, 12, 4, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteEdgeList(&buf, g); err != nil {
		t.Fatal(err)
	}
	h, err := ReadEdgeList(&buf, 30, 12)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.TypeAdjacency(), h.TypeAdjacency()) || !slices.Equal(g.TypeOffsets(), h.TypeOffsets()) {
		t.Fatal("edge list round trip changed the graph")
	}
	c, _ := Complete(3, 2)
	buf.Reset()
	WriteEdgeList(&buf, c)
	if h, err := ReadEdgeList(&buf, 3, 2); err != nil || h.Edges() != 6 {
		t.Fatalf("complete graph round trip: %v, %d edges", err, h.Edges())
	}
	for _, c := range []struct{ text, want string }{
		{"0 1\n1\n", "line 2: want \"type server\", got 1 fields"},
		{"# c\n0 x\n", "line 2: bad server id \"x\""},
		{"5 0\n", "line 1: type 5: must be below types = 2"},
		{"0 0\n\n1 7 # far\n", "line 3: server 7: must be below servers = 3"},
	} {
		if _, err := ReadEdgeList(strings.NewReader(c.text), 3, 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadEdgeList(%q): %v, want %q", c.text, err, c.want)
		}
	}
}

func TestTypeRates(t *testing.T) {
	g, _ := Complete(4, 3)
	h, err := g.WithTypeRates([]float64{1, 0, 2})
	if err != nil || h.TypeRate(2) != 2 || g.TypeRates() != nil {
		t.Fatalf("WithTypeRates: %v, rate %v; the original must keep equal rates", err, h.TypeRate(2))
	}
	for _, c := range []struct {
		rates []float64
		want  string
	}{
		{[]float64{1, 2}, "2 values, want one per type (3)"},
		{[]float64{1, -1, 1}, "type rate 1 = -1"},
		{[]float64{0, 0, 0}, "all zero"},
		{[]float64{1, math.Inf(1), 1}, "type rate 1 = +Inf"},
	} {
		if _, err := g.WithTypeRates(c.rates); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WithTypeRates(%v): %v, want %q", c.rates, err, c.want)
		}
	}
}

// TestSparsity checks the measure on graphs whose deviation is known:
// 0 for the complete graph; exactly 1/2 (and Exceed 1) for two equal blocks,
// where U = the servers of block 0 has u = 1/2 and every type sees share 1
// or 0; about 2u(1-u) for a thin ring; and, for random graphs, a sampling
// deviation that falls as the type degree grows (of order sqrt(u(1-u)/k):
// below 0.1 at type degree 200, and at least halved from degree 20 to 200).
func TestSparsity(t *testing.T) {
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(9, 10)) }
	c, _ := Complete(100, 50)
	rep, err := Sparsity(c, SparsityOptions{}, rng())
	if err != nil || rep.Deviation != 0 || rep.Exceed != 0 {
		t.Fatalf("complete: %+v, %v; want 0", rep, err)
	}
	b, _ := Blocks(1000, 200, []float64{1, 1})
	rep, _ = Sparsity(b, SparsityOptions{}, rng())
	if math.Abs(rep.Deviation-0.5) > 1e-12 || math.Abs(rep.Exceed-1) > 1e-12 || rep.WorstShare != 0.5 {
		t.Errorf("two equal blocks: %+v; want deviation 1/2 at u = 1/2, exceed 1", rep)
	}
	ring, _ := Ring(2000, 2000, 0.01)
	rep, _ = Sparsity(ring, SparsityOptions{}, rng())
	if rep.Deviation < 0.4 || rep.Exceed < 0.9 {
		t.Errorf("thin ring: %+v; want deviation near 2u(1-u) = 1/2 and exceed near 1", rep)
	}
	var devs []float64
	for _, k := range []int{20, 200} {
		g, err := RandomTypes(4000, 400, k, rng())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Sparsity(g, SparsityOptions{}, rng())
		if err != nil {
			t.Fatal(err)
		}
		devs = append(devs, rep.Deviation)
	}
	if devs[1] > 0.1 || devs[1] > devs[0]/2 {
		t.Errorf("random graphs, type degree 20 and 200: deviations %v; want the second below 0.1 and half the first", devs)
	}
	if _, err := Sparsity(b, SparsityOptions{Epsilon: 2}, rng()); err == nil || !strings.Contains(err.Error(), "Epsilon = 2") {
		t.Errorf("Epsilon = 2: %v", err)
	}
}
