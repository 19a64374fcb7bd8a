package graph

import (
	"strings"
	"sync"
	"testing"
)

// edgeListGraph builds the graph whose neighbours are given by nb through a
// Builder (stored lists), as Ring and Torus built them before they were
// implicit.
func edgeListGraph(t *testing.T, n int, nb func(v int) []int) *Graph {
	t.Helper()
	b := NewBuilder(n)
	for v := range n {
		for _, u := range nb(v) {
			if err := b.AddEdge(v, u); err != nil {
				t.Fatal(err)
			}
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The implicit Ring, Circulant and Torus are the graphs defined by their
// formulas: their lists, made on demand, equal those of the same edges built
// explicitly (so everything that reads lists sees the former stored graphs,
// byte for byte), and Degree, Edges, HasEdge and NeighborAt agree with them
// without making the lists.
func TestImplicitGraphs(t *testing.T) {
	mod := func(x, n int) int { return ((x % n) + n) % n }
	type tc struct {
		name string
		g    *Graph
		want *Graph
	}
	var cases []tc
	for _, c := range [][2]int{{10, 1}, {10, 4}, {101, 7}, {3, 1}, {5, 0}} {
		n, k := c[0], c[1]
		g, err := Ring(n, k)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{"ring", g, edgeListGraph(t, n, func(v int) []int {
			var l []int
			for j := 1; j <= k; j++ {
				l = append(l, mod(v+j, n), mod(v-j, n))
			}
			return l
		})})
	}
	shifts := []int{7, 2, 30}
	g, err := Circulant(64, shifts)
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, tc{"circulant", g, edgeListGraph(t, 64, func(v int) []int {
		var l []int
		for _, s := range shifts {
			l = append(l, mod(v+s, 64), mod(v-s, 64))
		}
		return l
	})})
	for _, L := range []int{3, 4, 17} {
		g, err := Torus(L)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{"torus", g, edgeListGraph(t, L*L, func(v int) []int {
			x, y := v%L, v/L
			return []int{mod(x+1, L) + L*y, mod(x-1, L) + L*y, x + L*mod(y+1, L), x + L*mod(y-1, L)}
		})})
	}
	for _, c := range cases {
		g, want := c.g, c.want
		if _, ok := g.Implicit(); !ok {
			t.Fatalf("%s: not implicit", c.name)
		}
		n := g.N()
		for v := range n {
			if g.Degree(v) != want.Degree(v) {
				t.Fatalf("%s n=%d: degree(%d) = %d, want %d", c.name, n, v, g.Degree(v), want.Degree(v))
			}
			seen := map[int]bool{}
			for i := range g.Degree(v) {
				u := g.NeighborAt(v, i)
				if !want.HasEdge(v, u) || seen[u] {
					t.Fatalf("%s n=%d: NeighborAt(%d, %d) = %d: not a neighbour, or repeated", c.name, n, v, i, u)
				}
				seen[u] = true
			}
			for u := range n {
				if g.HasEdge(v, u) != want.HasEdge(v, u) {
					t.Fatalf("%s n=%d: HasEdge(%d, %d) = %v", c.name, n, v, u, g.HasEdge(v, u))
				}
			}
		}
		if g.Edges() != want.Edges() {
			t.Fatalf("%s n=%d: %d edges, want %d", c.name, n, g.Edges(), want.Edges())
		}
		if g.Bytes() != 0 {
			t.Fatalf("%s n=%d: %d bytes before any list was asked for", c.name, n, g.Bytes())
		}
		if !g.Equal(want) || !want.Equal(g) {
			t.Fatalf("%s n=%d: lists differ from the explicit graph", c.name, n)
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("%s n=%d: %v", c.name, n, err)
		}
		if g.Bytes() != want.Bytes() {
			t.Fatalf("%s n=%d: %d bytes once made, want %d", c.name, n, g.Bytes(), want.Bytes())
		}
	}
}

// Readers that ask for the lists at the same time get the same lists (run
// with -race to check the synchronisation).
func TestImplicitConcurrent(t *testing.T) {
	g, _ := Torus(30)
	var wg sync.WaitGroup
	got := make([][]uint32, 4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = g.Neighbors(i * 100)
			_ = g.Bytes()
		}()
	}
	wg.Wait()
	for i, l := range got {
		if len(l) != 4 || !g.HasEdge(i*100, int(l[0])) {
			t.Fatalf("reader %d: %v", i, l)
		}
	}
}

func TestCirculantBadShifts(t *testing.T) {
	for _, c := range []struct {
		n      int
		shifts []int
		want   string
	}{
		{10, []int{5}, "shift 5 out of range [1, 4]"},
		{10, []int{0}, "shift 0 out of range"},
		{10, []int{2, 2}, "shift 2 repeated"},
		{-1, nil, "n = -1"},
	} {
		if _, err := Circulant(c.n, c.shifts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Circulant(%d, %v): %v, want %q", c.n, c.shifts, err, c.want)
		}
	}
}
