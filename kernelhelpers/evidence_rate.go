package kernelhelpers

import (
	"fmt"
	"math"
)

// SlopeOverReplications estimates the exponent p of y = C x^p from
// independent replications of a whole sweep: ys[r][j] is replication r's
// value at x[j], each from runs of its own (independent across r and j).
// Each replication is fitted by least squares on log-log axes
// (FitPowerLaw), and the estimate is the mean of the R fitted exponents, with
// standard error s/sqrt(R) and R - 1 degrees of freedom (Reps). Unlike Slope
// of one fit through the means, whose standard error rests on the residuals
// of a few points (points - 2 degrees of freedom), its error comes from the
// spread of whole replications, so a sweep of three or four N with a dozen
// replications gives a slope with a usable interval. It needs two
// replications or more, each with at least two distinct x and every y > 0.
func SlopeOverReplications(x []float64, ys [][]float64) (Estimate, error) {
	if len(ys) < 2 {
		return Estimate{}, fmt.Errorf("kernelhelpers.SlopeOverReplications: %d replications, need at least 2", len(ys))
	}
	slopes := make([]float64, len(ys))
	for r, y := range ys {
		fit, err := FitPowerLaw(x, y)
		if err != nil {
			return Estimate{}, fmt.Errorf("kernelhelpers.SlopeOverReplications: replication %d: %w", r, err)
		}
		if math.IsNaN(fit.Exponent) {
			return Estimate{}, fmt.Errorf("kernelhelpers.SlopeOverReplications: replication %d: no exponent", r)
		}
		slopes[r] = fit.Exponent
	}
	e := Reps(slopes)
	e.Method = fmt.Sprintf("mean of %d replications' least-squares slopes over %d points", len(ys), len(x))
	return e, nil
}
