package pairs

import (
	"math"
	"slices"
	"testing"
)

// The number of graphs without isolated vertices (OEIS A002494: 1, 2, 7, 23,
// 122 for n = 2..6) and of all graphs up to isomorphism (A000088: 2, 4, 11,
// 34, 156, counting the empty graph) on n vertices.
func TestCoveringClassesCounts(t *testing.T) {
	covering := map[int]int{2: 1, 3: 2, 4: 7, 5: 23, 6: 122}
	all := map[int]int{2: 2, 3: 4, 4: 11, 5: 34, 6: 156}
	for n := 2; n <= MaxSmallServers; n++ {
		if n == 6 && testing.Short() {
			continue
		}
		reps, err := CoveringClasses(n, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(reps) != covering[n] {
			t.Errorf("n = %d: %d covering classes, want %d", n, len(reps), covering[n])
		}
		// All graphs: count canonical forms directly.
		rel := relabellings(n)
		seen := map[uint64]bool{}
		for m := uint32(0); m < 1<<(n*(n-1)/2); m++ {
			seen[canonicalWith(rel, m)] = true
		}
		if len(seen) != all[n] {
			t.Errorf("n = %d: %d graphs up to isomorphism, want %d", n, len(seen), all[n])
		}
	}
}

// The wrong classifiers give other counts: labelled graphs without isolated
// vertices on 4 vertices are 41 (A006129), degree sequences lump classes
// together from 5 vertices on.
func TestWrongClassifiers(t *testing.T) {
	reps, _ := CoveringClasses(4, IdentityClass)
	if len(reps) != 41 {
		t.Errorf("labelled covering graphs on 4: %d, want 41", len(reps))
	}
	reps, _ = CoveringClasses(4, DegreeClass)
	if len(reps) != 7 {
		t.Errorf("degree classes of covering graphs on 4: %d, want 7 (they separate on 4)", len(reps))
	}
	reps, _ = CoveringClasses(5, DegreeClass)
	if len(reps) >= 23 {
		t.Errorf("degree classes of covering graphs on 5: %d, want fewer than 23", len(reps))
	}
	if _, err := CoveringClasses(7, nil); err == nil {
		t.Error("7 servers: want an error")
	}
}

// Canonical is invariant under relabelling and separates the path from the
// star (same number of pairs).
func TestCanonical(t *testing.T) {
	path := SmallGraph{N: 4, Edges: [][2]int{{0, 1}, {1, 2}, {2, 3}}}
	path2 := SmallGraph{N: 4, Edges: [][2]int{{2, 0}, {0, 3}, {3, 1}}}
	star := SmallGraph{N: 4, Edges: [][2]int{{0, 1}, {0, 2}, {0, 3}}}
	m1, _ := path.Mask()
	m2, _ := path2.Mask()
	m3, _ := star.Mask()
	if Canonical(4, m1) != Canonical(4, m2) {
		t.Error("two labellings of P4 differ")
	}
	if Canonical(4, m1) == Canonical(4, m3) {
		t.Error("P4 and the star coincide")
	}
	for n := 2; n <= 6; n++ {
		for k, e := range SmallPairs(n) {
			if b, err := PairIndex(n, e[1], e[0]); err != nil || b != k {
				t.Fatalf("n = %d: PairIndex(%v) = %d, %v; want %d", n, e, b, err, k)
			}
		}
	}
	if _, err := PairIndex(4, 2, 2); err == nil {
		t.Error("PairIndex(2, 2): want an error")
	}
}

// On 4 servers: the 7 named graphs, K4 first, densest first, the degree
// sums twice the pairs, and their distributions equal over their pairs.
func TestCoveringGraphsFour(t *testing.T) {
	gs, err := CoveringGraphs(4)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for k, g := range gs {
		names = append(names, g.Name)
		if k > 0 && len(g.Edges) > len(gs[k-1].Edges) {
			t.Errorf("%s after a sparser graph", g.Name)
		}
		sum := 0
		for _, d := range g.Degrees() {
			if d == 0 {
				t.Errorf("%s leaves a server out", g.Name)
			}
			sum += d
		}
		if sum != 2*len(g.Edges) {
			t.Errorf("%s: degrees sum to %d", g.Name, sum)
		}
		d, err := g.Dist()
		if err != nil {
			t.Fatal(err)
		}
		sets, _ := d.Sets()
		for _, s := range sets {
			if math.Abs(s.P-1/float64(len(g.Edges))) > 1e-15 {
				t.Errorf("%s: pair %v has probability %g", g.Name, s.Servers, s.P)
			}
		}
	}
	want := []string{"K4 (uniform)", "K4 minus an edge", "triangle + pendant", "4-cycle (ring)", "star K1,3", "path P4", "matching 2K2"}
	slices.Sort(want[2:4])
	got := slices.Clone(names)
	slices.Sort(got[2:4])
	slices.Sort(want[4:6])
	slices.Sort(got[4:6])
	if !slices.Equal(got, want) {
		t.Errorf("graphs %v, want %v (up to order within a pair count)", names, want)
	}
	five, _ := CoveringGraphs(5)
	if len(five) != 23 || five[0].Name != "K5 (uniform)" {
		t.Errorf("5 servers: %d graphs, first %q", len(five), five[0].Name)
	}
}
