package fastrand

import (
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/chisq"
)

// The engine's own draws from the concrete PCG reproduce math/rand/v2 exactly.
func TestExpMatchesStdlib(t *testing.T) {
	a, b := rand.NewPCG(1, 2), rand.NewPCG(1, 2)
	r := rand.New(b)
	for k := range 3000000 {
		if x, y := ExpFloat64(a), r.ExpFloat64(); x != y {
			t.Fatalf("draw %d: ExpFloat64 = %v, rand.ExpFloat64 = %v", k, x, y)
		}
		if x, y := Float64(a), r.Float64(); x != y {
			t.Fatalf("draw %d: Float64 = %v, rand.Float64 = %v", k, x, y)
		}
	}
}

// The arrival cut reproduces p exactly, and the tie path draws with the
// remaining probability.
func TestArrivalCut(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		p := r.Float64()
		a := NewArrivalCut(p)
		if (float64(a.cut)+a.frac)/(1<<24) != p || a.frac < 0 || a.frac >= 1 {
			t.Fatalf("p = %v: cut %d, frac %v", p, a.cut, a.frac)
		}
	}
	if a := NewArrivalCut(1); !a.Arrival(1<<24-1, nil) {
		t.Fatal("p = 1 gave a departure")
	}
	// With no busy server, rate = arr and p = arr/rate = 1 exactly, where
	// arr*(1/rate) can be 1 - 2^-53 (for 49, for example).
	if arr := 49.0; arr*(1/arr) == 1 || NewArrivalCut(arr/arr).cut != 1<<24 {
		t.Fatal("arr/rate should be exactly 1 where arr*(1/rate) is not")
	}
	// In a tie, the arrival probability is frac.
	a := NewArrivalCut(0.3 + 12345.0/(1<<24))
	src := rand.NewPCG(7, 8)
	const draws = 200000
	hits := 0
	for range draws {
		if a.Arrival(a.cut, src) {
			hits++
		}
	}
	chisq.Check(t, "arrival in a tie", map[int]int{0: draws - hits, 1: hits}, map[int]float64{0: 1 - a.frac, 1: a.frac}, draws)
}

// The bounded draws are exactly those of rand.Rand where it uses the same
// method (Uint64N for bounds that are not powers of two), and exactly uniform
// otherwise.
func TestBounded(t *testing.T) {
	a, b := rand.NewPCG(5, 6), rand.NewPCG(5, 6)
	r := rand.New(b)
	for k := range 100000 {
		n := uint64(k%1000 + 1)
		if k%3 == 0 {
			n = 1<<63 + uint64(k) + 1 // a large bound, often in the biased zone
		}
		if n&(n-1) == 0 {
			continue // Uint64N masks instead
		}
		if x, y := Bounded64(a, n), r.Uint64N(n); x != y {
			t.Fatalf("draw %d: Bounded64(%d) = %d, rand.Uint64N = %d", k, n, x, y)
		}
	}
	// Bounded32 with a bound whose biased zone is half the range, so the
	// retry path runs for about half the draws.
	const n = 1<<31 + 1
	src := rand.NewPCG(9, 10)
	const draws = 200000
	counts, probs := map[int]int{}, map[int]float64{}
	for k := range 4 {
		probs[k] = 0.25
	}
	for range draws {
		v := Bounded32(src, uint32(src.Uint64()>>32), n)
		if v >= n {
			t.Fatalf("Bounded32 = %d, not below %d", v, n)
		}
		// The quarter of [0, n) that v falls in (the last holds one more value).
		counts[min(int(uint64(v)*4/n), 3)]++
	}
	chisq.Check(t, "Bounded32 quarters", counts, probs, draws)
	// Small bounds: every value equally likely.
	for _, m := range []uint32{1, 3, 7} {
		counts, probs := map[int]int{}, map[int]float64{}
		for k := range int(m) {
			probs[k] = 1 / float64(m)
		}
		for range draws {
			counts[int(Bounded32(src, uint32(src.Uint64()), m))]++
		}
		chisq.Check(t, "Bounded32 small", counts, probs, draws)
	}
}

// The cut on fewer bits: (cut + frac) / 2^bits is p exactly, for the 12 bits
// of the uniformized engine's per-server loop and for 1 bit.
func TestArrivalCutBits(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, bits := range []uint{1, 12, 24} {
		for range 20000 {
			p := r.Float64()
			a := NewArrivalCutBits(p, bits)
			if (float64(a.cut)+a.frac)/float64(uint64(1)<<bits) != p || a.frac < 0 || a.frac >= 1 {
				t.Fatalf("bits %d, p = %v: cut %d, frac %v", bits, p, a.cut, a.frac)
			}
		}
	}
	if a := NewArrivalCutBits(1, 12); !a.Arrival(1<<12-1, nil) {
		t.Fatal("p = 1 gave a departure")
	}
}

// BoundedBits: every word it accepts without a redraw maps each value of
// [0, n) the same number of times (enumerated over all 2^bits words), and
// with the redraws the values are uniform (chi-square, alpha 1e-6 in
// chisq.Check) for a bound whose rejected zone is 5/16 of the words.
func TestBoundedBits(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		bits uint
	}{{11, 4}, {100, 8}, {1000, 12}, {3, 2}} {
		mask := uint64(1)<<c.bits - 1
		tail := (mask + 1) % c.n
		hits := make([]int, c.n)
		for x := uint64(0); x <= mask; x++ {
			if x*c.n&mask >= tail {
				v := BoundedBits(nil, x, c.n, c.bits) // no redraw, so no source needed
				hits[v]++
			}
		}
		for v, h := range hits {
			if h != int((mask+1)/c.n) {
				t.Fatalf("n = %d, %d bits: value %d from %d words, want %d", c.n, c.bits, v, h, (mask+1)/c.n)
			}
		}
	}
	src := rand.NewPCG(13, 14)
	const n, draws = 11, 220000
	counts, probs := map[int]int{}, map[int]float64{}
	for k := range n {
		probs[k] = 1.0 / n
	}
	for range draws {
		counts[int(BoundedBits(src, src.Uint64()>>60, n, 4))]++
	}
	chisq.Check(t, "BoundedBits", counts, probs, draws)
}
