package mc

import (
	"math"

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
