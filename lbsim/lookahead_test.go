package lbsim

import (
	"math/rand/v2"
	"testing"
)

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
