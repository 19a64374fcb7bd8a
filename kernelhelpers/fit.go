package kernelhelpers

// Small numerical helpers for checks in notebooks: the distance between two
// occupancy trajectories and a power-law fit on log-log axes.

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// MaxDistance is sup_{k, i < levels} |a[k][i] - b[k][i]|: the largest gap
// between two trajectories sampled at the same times (Occupancy of a Run or
// of lbsim.Trajectory, Y of meanfield.Trajectory), over the first levels
// levels. An entry missing from a shorter row counts as 0, the value of the
// occupancy vector's omitted tail. a and b must have the same number of rows.
func MaxDistance(a, b [][]float64, levels int) (float64, error) {
	if len(a) != len(b) {
		return math.NaN(), fmt.Errorf("kernelhelpers.MaxDistance: %d rows against %d", len(a), len(b))
	}
	if levels < 1 {
		return math.NaN(), fmt.Errorf("kernelhelpers.MaxDistance: levels = %d must be at least 1", levels)
	}
	orZero := func(x []float64, i int) float64 {
		if i < len(x) {
			return x[i]
		}
		return 0
	}
	d := 0.0
	for k := range a {
		for i := range levels {
			g := math.Abs(orZero(a[k], i) - orZero(b[k], i))
			if g != g {
				return math.NaN(), fmt.Errorf("kernelhelpers.MaxDistance: NaN at row %d, level %d", k, i+1)
			}
			d = math.Max(d, g)
		}
	}
	return d, nil
}

// PowerLaw is y = Prefactor * x^Exponent fitted by least squares on log-log
// axes; ExponentSE is the standard error of the exponent (ordinary least
// squares, from the residuals: NaN with two points); Points the number of
// points fitted (Slope makes an estimate of the exponent from it).
type PowerLaw struct {
	Exponent, Prefactor, ExponentSE float64
	Points                          int
}

// FitPowerLaw fits y = C x^p to points with x, y > 0 by a straight line
// through (log x, log y) (gonum's stat.LinearRegression). It needs at least
// two distinct x.
func FitPowerLaw(x, y []float64) (PowerLaw, error) {
	if len(x) != len(y) {
		return PowerLaw{}, fmt.Errorf("kernelhelpers.FitPowerLaw: %d x against %d y", len(x), len(y))
	}
	lx, ly := make([]float64, len(x)), make([]float64, len(y))
	for k := range x {
		if !(x[k] > 0) || !(y[k] > 0) || math.IsInf(x[k], 0) || math.IsInf(y[k], 0) {
			return PowerLaw{}, fmt.Errorf("kernelhelpers.FitPowerLaw: point %d = (%v, %v): both must be positive and finite", k, x[k], y[k])
		}
		lx[k], ly[k] = math.Log(x[k]), math.Log(y[k])
	}
	if len(x) < 2 || stat.Variance(lx, nil) == 0 {
		return PowerLaw{}, errors.New("kernelhelpers.FitPowerLaw: needs at least two distinct x")
	}
	alpha, beta := stat.LinearRegression(lx, ly, nil, false)
	fit := PowerLaw{Exponent: beta, Prefactor: math.Exp(alpha), ExponentSE: math.NaN(), Points: len(x)}
	if n := len(lx); n > 2 {
		rss := 0.0
		for k := range lx {
			r := ly[k] - alpha - beta*lx[k]
			rss += r * r
		}
		sxx := stat.Variance(lx, nil) * float64(n-1)
		fit.ExponentSE = math.Sqrt(rss / float64(n-2) / sxx)
	}
	return fit, nil
}
