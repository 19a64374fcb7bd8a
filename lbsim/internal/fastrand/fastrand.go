// Package fastrand holds the simulator's own draws straight from a concrete
// *rand.PCG: small functions the compiler inlines into the engines' loops, so
// a draw costs no interface call. Each gives exactly what the same-named
// rand.Rand method would (Float64, ExpFloat64: the tests check this bit for
// bit), or is an exact bounded draw by Lemire's multiply-and-reject method
// (Lemire, "Fast random integer generation in an interval", 2019), or the
// exact Bernoulli cut the engines use to decide the kind of an event
// (ArrivalCut).
package fastrand

import (
	"math/bits"
	"math/rand/v2"
)

// Float64 returns a uniform float64 in [0, 1) from p, as rand.Rand.Float64 does.
func Float64(p *rand.PCG) float64 { return float64(p.Uint64()<<11>>11) / (1 << 53) }

// Bounded32 maps the 32 random bits x to a uniform integer in [0, n), n > 0,
// by Lemire's multiply-and-reject method, drawing again from p in the rare
// case the multiply lands in the biased zone (as lbsim's bounded32 does from a
// rand.Rand).
func Bounded32(p *rand.PCG, x, n uint32) uint32 {
	m := uint64(x) * uint64(n)
	if uint32(m) < n {
		m = BoundedRetry(p, m, n)
	}
	return uint32(m >> 32)
}

// BoundedRetry is the slow path of Bounded32, kept out of line so the fast
// path inlines: given the product m = x*n of a 32-bit draw x, it redraws from
// p (32 bits from the top of a 64-bit draw) while the low half of m lies in
// the biased zone, and returns the accepted product, whose top half is the
// uniform integer in [0, n).
func BoundedRetry(p *rand.PCG, m uint64, n uint32) uint64 {
	t := -n % n
	for uint32(m) < t {
		m = uint64(uint32(p.Uint64()>>32)) * uint64(n)
	}
	return m
}

// ArrivalCut decides whether an event is an arrival, which it is with
// probability p = arrival rate / total rate, from 24 random bits h: h < cut
// gives an arrival, h > cut a departure, and in the rare tie (probability
// 2^-24) a fresh uniform decides with the remaining probability frac. So
// P(arrival) = (cut + frac) / 2^24 = p exactly (p as a float64; cut+frac is
// exactly p*2^24), at the cost of one comparison.
//
// The engines take h from the top bits of the 64-bit draw whose low 40 bits
// feed the exponential ziggurat. Those are independent bits, and the
// ziggurat's outcome depends on the first draw only through its low 40 bits,
// so the kind of event is independent of the holding time, as it must be.
//
// The engines compute p as arr/rate, a correctly rounded division, so that
// p is exactly 1 when no server is busy (arr*(1/rate) may round below 1,
// which would allow a departure from an empty system).
type ArrivalCut struct {
	cut  uint32
	frac float64
}

// NewArrivalCut returns the cut for arrival probability p in [0, 1].
func NewArrivalCut(p float64) ArrivalCut { return NewArrivalCutBits(p, 24) }

// NewArrivalCutBits returns the cut for arrival probability p in [0, 1]
// decided from bits random bits (1 <= bits <= 24): h < Cut() is an arrival,
// h > Cut() a departure, and a tie (probability 2^-bits) is decided by a
// fresh uniform, so that P(arrival) = p exactly whatever bits.
func NewArrivalCutBits(p float64, bits uint) ArrivalCut {
	x := p * float64(uint64(1)<<bits)
	c := uint32(x)
	return ArrivalCut{cut: c, frac: x - float64(c)}
}

// Arrival reports whether the event whose 24 random bits are h is an arrival,
// drawing from src only in a tie.
func (a ArrivalCut) Arrival(h uint32, src *rand.PCG) bool {
	return h < a.cut || h == a.cut && a.tie(src)
}

// Cut returns the 24-bit value below which an event is an arrival and above
// which it is a departure, so that a loop with no room for a call can decide
// every event but the ties (h == Cut(), probability 2^-24) on its own.
func (a ArrivalCut) Cut() uint32 { return a.cut }

func (a ArrivalCut) tie(src *rand.PCG) bool { return Float64(src) < a.frac }

// Bounded64 returns a uniform integer in [0, n), n > 0, from p by Lemire's
// method on 64 bits (as rand.Rand.Uint64N does when n is not a power of two).
func Bounded64(p *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(p.Uint64(), n)
	if lo < n {
		t := -n % n
		for lo < t {
			hi, lo = bits.Mul64(p.Uint64(), n)
		}
	}
	return hi
}

// BoundedBits maps the low `bits` bits of x (the others must be zero) to a
// uniform integer in [0, n), 0 < n < 2^bits, by Lemire's multiply-and-reject
// method on bits-bit words (bits <= 32): it accepts x*n unless its low bits
// fall below 2^bits mod n, and redraws from the top bits of p's draws
// otherwise, so the result is exactly uniform. A loop that can check the
// common case itself (the low bits of x*n at least n) needs this only for the
// rare rest.
func BoundedBits(p *rand.PCG, x, n uint64, bits uint) uint64 {
	mask := uint64(1)<<bits - 1
	m := x * n
	if m&mask < n {
		t := (mask + 1) % n
		for m&mask < t {
			m = (p.Uint64() >> (64 - bits)) * n
		}
	}
	return m >> bits
}
