package fastrand

import (
	"math/bits"
	"math/rand/v2"
)

// Xoshiro is the state of xoshiro256** (Blackman and Vigna, "Scrambled linear
// pseudorandom number generators", 2021), the generator of the tight C loop
// the uniformized engine is measured against (scripts/peers/jsq2.c). It is a
// value: Next returns the next state with the output, so that a loop holding
// it in a local variable keeps the four words in registers (a method on a
// pointer would make the compiler keep them in memory, one store and one
// load per draw). Period 2^256 - 1.
type Xoshiro struct{ s0, s1, s2, s3 uint64 }

// NewXoshiro seeds a generator from four draws of p (an mc stream), so that
// the same stream gives the same sequence.
func NewXoshiro(p *rand.PCG) Xoshiro {
	x := Xoshiro{p.Uint64(), p.Uint64(), p.Uint64(), p.Uint64()}
	if x == (Xoshiro{}) {
		x.s0 = 1 // the one state the generator must not be in
	}
	return x
}

// Next returns the generator's next state and its 64-bit output.
func (x Xoshiro) Next() (Xoshiro, uint64) {
	r := bits.RotateLeft64(x.s1*5, 7) * 9
	t := x.s1 << 17
	x.s2 ^= x.s0
	x.s3 ^= x.s1
	x.s1 ^= x.s2
	x.s0 ^= x.s3
	x.s2 ^= t
	x.s3 = bits.RotateLeft64(x.s3, 45)
	return x, r
}
