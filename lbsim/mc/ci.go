package mc

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// MeanCI95 returns the mean of independent replications xs and the half-width
// of its 95% confidence interval, t_{0.975, n-1} s / sqrt(n) with Student's t
// from gonum. The half-width is NaN for fewer than two values; both are NaN
// when xs is empty or holds a NaN.
func MeanCI95(xs []float64) (mean, half float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	mean = stat.Mean(xs, nil)
	if len(xs) < 2 {
		return mean, math.NaN()
	}
	sd := stat.StdDev(xs, nil)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975)
	return mean, tq * sd / math.Sqrt(float64(len(xs)))
}

// KSDistance returns the Kolmogorov-Smirnov distance sup_x |F_n(x) - F(x)|
// between the empirical distribution of the sample xs and the continuous CDF
// F: the largest of (i+1)/n - F(x_(i)) and F(x_(i)) - i/n over the sorted
// sample. xs is not modified. It is NaN for an empty sample.
func KSDistance(xs []float64, F func(float64) float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		f := F(x)
		d = max(d, float64(i+1)/n-f, f-float64(i)/n)
	}
	return d
}
