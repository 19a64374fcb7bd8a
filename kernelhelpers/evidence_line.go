package kernelhelpers

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// LineFit is the weighted least-squares line y = Intercept + Slope x through
// estimates (FitLine), with the fit's chi-square and its p-value.
type LineFit struct {
	// Intercept and Slope carry standard errors from the points' own
	// standard errors (inflated by sqrt(Chi2/(Points-2)) when the points
	// scatter more than their errors say) and the smallest of the points'
	// degrees of freedom.
	Intercept, Slope Estimate
	// Chi2 is sum_k ((y_k - line(x_k)) / SE_k)^2 over Points points; P is
	// its upper tail under Points - 2 degrees of freedom (small: the points
	// do not lie on a line within their errors).
	Chi2, P float64
	Points  int
}

// FitLine fits y = a + b x to estimates ys at x by weighted least squares
// (weights 1/SE^2; the points' deterministic bounds are ignored), as for
// N × gap against 1/N, whose intercept is the 1/N coefficient of the gap
// and whose slope absorbs the 1/N^2 term. It needs at least three points
// with positive, finite standard errors and two distinct x.
func FitLine(x []float64, ys []Estimate) (LineFit, error) {
	if len(x) != len(ys) {
		return LineFit{}, fmt.Errorf("kernelhelpers.FitLine: %d x against %d estimates", len(x), len(ys))
	}
	if len(x) < 3 {
		return LineFit{}, errors.New("kernelhelpers.FitLine: needs at least three points")
	}
	var sw, swx, swxx, swy, swxy float64
	df := math.Inf(1)
	for k, e := range ys {
		if !(e.SE > 0) || math.IsInf(e.SE, 0) || math.IsNaN(e.Value) || math.IsNaN(x[k]) {
			return LineFit{}, fmt.Errorf("kernelhelpers.FitLine: point %d = (%v, %v ± %v): needs a finite value and a positive standard error", k, x[k], e.Value, e.SE)
		}
		w := 1 / (e.SE * e.SE)
		sw, swx, swxx, swy, swxy = sw+w, swx+w*x[k], swxx+w*x[k]*x[k], swy+w*e.Value, swxy+w*x[k]*e.Value
		df = math.Min(df, e.DF)
	}
	det := sw*swxx - swx*swx
	if !(det > 1e-12*sw*swxx) {
		return LineFit{}, errors.New("kernelhelpers.FitLine: needs two distinct x")
	}
	b := (sw*swxy - swx*swy) / det
	a := (swy - b*swx) / sw
	chi2 := 0.0
	for k, e := range ys {
		r := (e.Value - a - b*x[k]) / e.SE
		chi2 += r * r
	}
	n := len(x)
	inflate := math.Max(1, math.Sqrt(chi2/float64(n-2)))
	method := fmt.Sprintf("weighted line over %d points, chi2 %.3g", n, chi2)
	if inflate > 1 {
		method += fmt.Sprintf(", SE × %.2g", inflate)
	}
	fit := LineFit{
		Intercept: Estimate{Value: a, SE: inflate * math.Sqrt(swxx/det), DF: df, Method: "intercept of a " + method},
		Slope:     Estimate{Value: b, SE: inflate * math.Sqrt(sw/det), DF: df, Method: "slope of a " + method},
		Chi2:      chi2,
		P:         1 - distuv.ChiSquared{K: float64(n - 2)}.CDF(chi2),
		Points:    n,
	}
	return fit, nil
}
