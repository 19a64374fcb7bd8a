package kernelhelpers

// Distributions of sampled values: quantiles and histograms for the notebooks
// that compare a simulated stationary law with a limit (notebook 03: Q_2/sqrt(N)
// against the diffusion; DiffusionSamples in adapt.go takes the samples from a run).

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Quantiles returns the empirical quantiles of xs at the probabilities ps (each
// in [0, 1]): gonum's stat.Quantile with stat.Empirical, the smallest sample
// value x with a fraction at least p of the samples <= x. xs is not modified.
// It panics on an empty xs or a p outside [0, 1], or if xs holds a NaN.
func Quantiles(xs, ps []float64) []float64 {
	if len(xs) == 0 {
		panic("kernelhelpers.Quantiles: no samples")
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if math.IsNaN(s[len(s)-1]) || math.IsNaN(s[0]) {
		panic("kernelhelpers.Quantiles: a sample is NaN")
	}
	out := make([]float64, len(ps))
	for k, p := range ps {
		if !(p >= 0 && p <= 1) {
			panic(fmt.Sprintf("kernelhelpers.Quantiles: p = %v must be in [0, 1]", p))
		}
		out[k] = stat.Quantile(p, stat.Empirical, s, nil)
	}
	return out
}

// Density returns the histogram of xs on the increasing bin edges as a
// density: for bin k, [edges[k], edges[k+1]) (the last bin includes its upper
// edge), the fraction of all samples in it divided by its width, placed at the
// bin's centre. Samples outside the edges count in the total, not in a bin, so
// the densities integrate to the fraction of samples inside the edges.
func Density(xs, edges []float64) (centres, density []float64) {
	if len(edges) < 2 {
		panic("kernelhelpers.Density: at least two edges")
	}
	for k := 1; k < len(edges); k++ {
		if !(edges[k] > edges[k-1]) {
			panic(fmt.Sprintf("kernelhelpers.Density: edges[%d] = %v: the edges must increase", k, edges[k]))
		}
	}
	bins := len(edges) - 1
	counts := make([]float64, bins)
	for _, x := range xs {
		if x < edges[0] || x > edges[bins] || math.IsNaN(x) {
			continue
		}
		k, found := slices.BinarySearch(edges, x)
		if !found {
			k--
		}
		counts[min(k, bins-1)]++
	}
	centres = make([]float64, bins)
	density = make([]float64, bins)
	for k := range bins {
		w := edges[k+1] - edges[k]
		centres[k] = edges[k] + w/2
		if len(xs) > 0 {
			density[k] = counts[k] / float64(len(xs)) / w
		}
	}
	return centres, density
}
