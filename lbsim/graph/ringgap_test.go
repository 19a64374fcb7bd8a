package graph

import (
	"math"
	"testing"
)

// RingGap agrees with the dense spectrum of the ring lattice.
func TestRingGap(t *testing.T) {
	for _, c := range []struct{ n, k int }{{9, 1}, {12, 1}, {12, 2}, {30, 2}, {41, 3}, {100, 1}} {
		g, err := Ring(c.n, c.k)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := AdjacencyEigenvalues(g)
		if err != nil {
			t.Fatal(err)
		}
		want := ev[len(ev)-1] - ev[len(ev)-2]
		if got := RingGap(c.n, c.k); math.Abs(got-want) > 1e-9 {
			t.Errorf("RingGap(%d, %d) = %g, dense spectrum %g", c.n, c.k, got, want)
		}
	}
	if !math.IsNaN(RingGap(8, 2)) || !math.IsNaN(RingGap(10, 0)) {
		t.Error("RingGap outside its range is not NaN")
	}
}
