// Package alias samples an index with probability proportional to given
// weights in O(1) per draw: Walker's alias method, with Vose's O(n)
// construction. A draw costs one bounded integer and one uniform float64 from
// a *rand.Rand.
package alias

import "math/rand/v2"

// Table samples an index in [0, n) with probability proportional to the n
// weights it was built from. It is read-only after New, so one table can
// serve concurrent samplers (each with its own *rand.Rand).
type Table struct {
	prob  []float64
	alias []int32
}

// New builds the table for the weights w: non-negative, finite, not all zero,
// and at most 2^31 - 1 of them.
func New(w []float64) *Table {
	n := len(w)
	total := 0.0
	for _, x := range w {
		total += x
	}
	t := &Table{prob: make([]float64, n), alias: make([]int32, n)}
	scaled := make([]float64, n)
	var small, large []int32
	for i, x := range w {
		scaled[i] = x * float64(n) / total
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t.prob[s], t.alias[s] = scaled[s], l
		scaled[l] += scaled[s] - 1
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range large {
		t.prob[i], t.alias[i] = 1, i
	}
	for _, i := range small { // only reached through rounding
		t.prob[i], t.alias[i] = 1, i
	}
	return t
}

// Sample returns index i with probability w[i] / sum(w).
func (t *Table) Sample(r *rand.Rand) int {
	i := r.Int32N(int32(len(t.prob)))
	if r.Float64() < t.prob[i] {
		return int(i)
	}
	return int(t.alias[i])
}
