package fastrand

import (
	"math/bits"
	"math/rand/v2"
)

// Wyrand is the state of wyrand (Wang Yi's generator of wyhash, final
// version 4.2): a Weyl sequence s += 0xa0761d6478bd642f, each output the
// xor of the two halves of the 128-bit product s * (s ^ 0xe7037ed1a0b428db).
// It passes BigCrush and PractRand; its period is 2^64. One word of state
// and four operations a draw: a loop holds it in one register, where
// xoshiro256** needs four. Like Xoshiro it is a value, Next returning the
// next state with the output.
type Wyrand uint64

// NewWyrand seeds a generator from a draw of p (an mc stream), so that the
// same stream gives the same sequence.
func NewWyrand(p *rand.PCG) Wyrand { return Wyrand(p.Uint64()) }

// Next returns the generator's next state and its 64-bit output.
func (w Wyrand) Next() (Wyrand, uint64) {
	w += 0xa0761d6478bd642f
	return w, w.Last()
}

// Last returns the output of the draw that left the generator in state w
// (the output is a function of the state after it), so that a loop that
// stops at a draw need not keep the draw.
func (w Wyrand) Last() uint64 {
	hi, lo := bits.Mul64(uint64(w), uint64(w^0xe7037ed1a0b428db))
	return hi ^ lo
}
