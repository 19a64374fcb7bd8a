package lbsim

import (
	"math/bits"
	"math/rand/v2"
)

// The engines' own draws, straight from the concrete PCG (inlined, no
// interface call). Each gives exactly what the same-named rand.Rand method
// would, or is an exact bounded draw.

// float64At returns a uniform float64 in [0, 1) from p, as rand.Rand.Float64 does.
func float64At(p *rand.PCG) float64 { return float64(p.Uint64()<<11>>11) / (1 << 53) }

// boundedPCG maps the 32 random bits x to a uniform integer in [0, n) by
// Lemire's multiply-and-reject method, drawing again from p in the rare case
// the multiply lands in the biased zone (as bounded32 does from a rand.Rand).
func boundedPCG(p *rand.PCG, x, n uint32) uint32 {
	m := uint64(x) * uint64(n)
	if uint32(m) < n {
		m = boundedRetry(p, m, n)
	}
	return uint32(m >> 32)
}

// boundedRetry is the slow path of boundedPCG, kept out of line so the fast
// path inlines.
func boundedRetry(p *rand.PCG, m uint64, n uint32) uint64 {
	t := -n % n
	for uint32(m) < t {
		m = uint64(uint32(p.Uint64()>>32)) * uint64(n)
	}
	return m
}

// arrivalCut decides whether an event is an arrival, which it is with
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
type arrivalCut struct {
	cut  uint32
	frac float64
}

func newArrivalCut(p float64) arrivalCut {
	x := p * (1 << 24)
	c := uint32(x)
	return arrivalCut{cut: c, frac: x - float64(c)}
}

func (a arrivalCut) arrival(h uint32, src *rand.PCG) bool {
	return h < a.cut || h == a.cut && a.tie(src)
}

func (a arrivalCut) tie(src *rand.PCG) bool { return float64At(src) < a.frac }

// bounded64 returns a uniform integer in [0, n), n > 0, from p by Lemire's
// method on 64 bits (as rand.Rand.Uint64N).
func bounded64(p *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(p.Uint64(), n)
	if lo < n {
		t := -n % n
		for lo < t {
			hi, lo = bits.Mul64(p.Uint64(), n)
		}
	}
	return hi
}
