package graph

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestErdosRenyiImplicitLaw checks the implicit G(n, p) against the law of
// G(n, p) on 3 graphs (n = 2000, p = 0.01, 0.1, 0.5): the number of edges is
// Binomial(n(n-1)/2, p), within 5 standard deviations; the variance of the
// degrees is (n-1)p(1-p), within 5 of its standard errors (about
// sqrt(2/n) relative, degrees nearly independent); the triangles, against
// their mean C(n, 3)p^3, within 5 standard deviations of their count (which
// in G(n, p) is close to sqrt(mean (1 + 3(n-3)p^2))); and edges of pairs
// sharing a vertex are uncorrelated (the number of 2-paths is
// n C(n-1, 2) p^2, same tolerance). A hash whose bits were correlated across
// neighbouring pairs (as when the pair is OR-ed instead of XOR-ed into the
// key) fails these. The seeds are fixed.
func TestErdosRenyiImplicitLaw(t *testing.T) {
	const n = 2000
	for i, p := range []float64{0.01, 0.1, 0.5} {
		g, err := ErdosRenyiImplicit(n, p, uint64(17+i))
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		pairs := float64(n) * (n - 1) / 2
		within := func(what string, got, mean, sd float64) {
			t.Helper()
			if math.Abs(got-mean) > 5*sd {
				t.Errorf("p = %v: %s = %v, want %v ± 5 × %.4g", p, what, got, mean, sd)
			}
		}
		within("edges", float64(g.Edges()), pairs*p, math.Sqrt(pairs*p*(1-p)))
		var s1, s2, paths float64
		for v := range n {
			d := float64(g.Degree(v))
			s1 += d
			s2 += d * d
			paths += d * (d - 1) / 2
		}
		mean := s1 / n
		variance := s2/n - mean*mean
		want := (n - 1) * p * (1 - p)
		within("degree variance", variance, want, want*math.Sqrt(2.0/n))
		wantPaths := n * (n - 1) * (n - 2) / 2 * p * p
		within("2-paths", paths, wantPaths, math.Sqrt(wantPaths*(1+2*n*p)))
		triangles := 0
		for u := range n {
			nu := g.Neighbors(u)
			for _, v := range nu {
				if int(v) <= u {
					continue
				}
				for _, w := range g.Neighbors(int(v)) {
					if w > v && g.HasEdge(u, int(w)) {
						triangles++
					}
				}
			}
		}
		wantTri := float64(n) * (n - 1) * (n - 2) / 6 * p * p * p
		within("triangles", float64(triangles), wantTri, math.Sqrt(wantTri*(1+3*(n-3)*p*p)))
	}
}

// TestErdosRenyiImplicitEdges: HasEdge, PairHash and the lists made on demand
// agree; the graph is a function of (n, p, key); p = 0 and p = 1 give the
// empty and the complete graph.
func TestErdosRenyiImplicitEdges(t *testing.T) {
	g, _ := ErdosRenyiImplicit(300, 0.2, 5)
	h, ok := g.PairHash()
	if !ok {
		t.Fatal("PairHash: not an implicit Erdős-Rényi graph")
	}
	if g.Bytes() != 0 {
		t.Errorf("Bytes = %d before the lists are asked for, want 0", g.Bytes())
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		u, v := r.IntN(300), r.IntN(300)
		if h.Edge(u, v) != h.Edge(v, u) || h.Edge(u, v) != g.HasEdge(u, v) || (u == v && h.Edge(u, v)) {
			t.Fatalf("pair (%d, %d): Edge %v/%v, HasEdge %v", u, v, h.Edge(u, v), h.Edge(v, u), g.HasEdge(u, v))
		}
	}
	for v := range 300 {
		k := 0
		for u := range 300 {
			if h.Edge(u, v) {
				if nb := g.Neighbors(v); k >= len(nb) || int(nb[k]) != u {
					t.Fatalf("vertex %d: neighbour %d missing from its list at %d", v, u, k)
				}
				k++
			}
		}
		if k != g.Degree(v) {
			t.Fatalf("vertex %d: %d neighbours by hash, degree %d", v, k, g.Degree(v))
		}
	}
	if g.Bytes() == 0 {
		t.Error("Bytes = 0 after the lists were made")
	}
	same, _ := ErdosRenyiImplicit(300, 0.2, 5)
	other, _ := ErdosRenyiImplicit(300, 0.2, 6)
	if !g.Equal(same) || g.Equal(other) {
		t.Errorf("same key equal: %v (want true), other key equal: %v (want false)", g.Equal(same), g.Equal(other))
	}
	empty, _ := ErdosRenyiImplicit(50, 0, 1)
	full, _ := ErdosRenyiImplicit(50, 1, 1)
	if empty.Edges() != 0 || full.Edges() != 50*49/2 {
		t.Errorf("p = 0: %d edges, p = 1: %d edges; want 0 and %d", empty.Edges(), full.Edges(), 50*49/2)
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		if _, err := ErdosRenyiImplicit(10, bad, 1); err == nil {
			t.Errorf("p = %v: no error", bad)
		}
	}
}
