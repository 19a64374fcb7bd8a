package lbsim

import (
	"math/rand/v2"
	"testing"
)

// The engine's own draws from the concrete PCG reproduce math/rand/v2 exactly.
func TestExpMatchesStdlib(t *testing.T) {
	a, b := rand.NewPCG(1, 2), rand.NewPCG(1, 2)
	r := rand.New(b)
	for k := range 3000000 {
		if x, y := expFloat64(a), r.ExpFloat64(); x != y {
			t.Fatalf("draw %d: expFloat64 = %v, rand.ExpFloat64 = %v", k, x, y)
		}
		if x, y := float64At(a), r.Float64(); x != y {
			t.Fatalf("draw %d: float64At = %v, rand.Float64 = %v", k, x, y)
		}
	}
}

// The arrival cut reproduces p exactly, and the tie path draws with the
// remaining probability.
func TestArrivalCut(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		p := r.Float64()
		a := newArrivalCut(p)
		if (float64(a.cut)+a.frac)/(1<<24) != p || a.frac < 0 || a.frac >= 1 {
			t.Fatalf("p = %v: cut %d, frac %v", p, a.cut, a.frac)
		}
	}
	if a := newArrivalCut(1); !a.arrival(1<<24-1, nil) {
		t.Fatal("p = 1 gave a departure")
	}
	// With no busy server, rate = arr and p = arr/rate = 1 exactly, where
	// arr*(1/rate) can be 1 - 2^-53 (for 49, for example).
	if arr := 49.0; arr*(1/arr) == 1 || newArrivalCut(arr/arr).cut != 1<<24 {
		t.Fatal("arr/rate should be exactly 1 where arr*(1/rate) is not")
	}
	// In a tie, the arrival probability is frac.
	a := newArrivalCut(0.3 + 12345.0/(1<<24))
	src := rand.NewPCG(7, 8)
	const draws = 200000
	hits := 0
	for range draws {
		if a.arrival(a.cut, src) {
			hits++
		}
	}
	chiSquareOK(t, "arrival in a tie", map[int]int{0: draws - hits, 1: hits}, map[int]float64{0: 1 - a.frac, 1: a.frac}, draws)
}

// Servers and pairs drawn ahead are uniform, and the pairs distinct, exactly
// as twoDistinct's.
func TestAheadDrawsUniform(t *testing.T) {
	for _, n := range []int{2, 3, 7} {
		d := newAheadDraws(rand.NewPCG(uint64(n), 1), make([]int32, n), true)
		const draws = 200000
		ones, pairs := map[int]int{}, map[int]int{}
		one, pair := map[int]float64{}, map[int]float64{}
		for a := range n {
			one[a] = 1 / float64(n)
			for b := range n {
				if a != b {
					pair[a*n+b] = 1 / float64(n*(n-1))
				}
			}
		}
		for range draws {
			ones[d.one()]++
			a, b := d.pair()
			pairs[a*n+b]++
		}
		chiSquareOK(t, "aheadDraws.one", ones, one, draws)
		chiSquareOK(t, "aheadDraws.pair", pairs, pair, draws)
	}
}
