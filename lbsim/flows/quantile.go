package flows

import (
	"math"
	"slices"
)

// Quantiles returns the exact empirical quantiles of xs at the levels ps:
// the ceil(p*n)-th smallest of the n values (the smallest for p*n <= 1),
// NaN when xs is empty. It reorders xs: one selection of the smallest rank
// needed puts the values from there on above it, and only those are sorted,
// so high quantiles of many values cost little more than a linear pass.
func Quantiles(xs []float64, ps []float64) []float64 {
	out := make([]float64, len(ps))
	n := len(xs)
	if n == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	rank := func(p float64) int { return min(max(int(math.Ceil(p*float64(n))), 1), n) - 1 }
	lo := n - 1
	for _, p := range ps {
		lo = min(lo, rank(p))
	}
	selectKth(xs, lo)
	slices.Sort(xs[lo:])
	for i, p := range ps {
		out[i] = xs[rank(p)]
	}
	return out
}

// selectKth reorders xs so that xs[k] is the value of rank k (0-based) and
// every value before it is at most it, every value after it at least it
// (Hoare's selection with the median of three as pivot, then a sort of the
// small remaining range).
func selectKth(xs []float64, k int) {
	lo, hi := 0, len(xs)-1
	for hi-lo > 16 {
		mid := lo + (hi-lo)/2
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return // j < k < i: xs[k] equals the pivot, in place
		}
	}
	slices.Sort(xs[lo : hi+1])
}
