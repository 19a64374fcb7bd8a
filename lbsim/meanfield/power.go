package meanfield

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TimeAverageVariance returns sigma^2 = 2 int_0^inf C(t) dt for the
// autocovariance C given at the equally spaced lags 0, dt, ..., so that the
// time average of a stationary process over a length T has variance about
// sigma^2 / T. The integral is the trapezoid rule over the given lags plus
// an exponential tail C(t_K) tau fitted to the last two lags (tau =
// dt / ln(C(t_{K-1}) / C(t_K))); it is an error if the last two lags do not
// decrease to a positive value (the lags are too short).
func TimeAverageVariance(lags, c []float64) (float64, error) {
	K := len(c) - 1
	if K < 1 || len(lags) != len(c) {
		return 0, fmt.Errorf("meanfield: TimeAverageVariance needs at least two lags and as many values (%d, %d)", len(lags), len(c))
	}
	if !(c[K] > 0 && c[K] < c[K-1]) {
		return 0, fmt.Errorf("meanfield: the autocovariance %v, %v at the last lags does not decrease to a positive value: use longer lags", c[K-1], c[K])
	}
	s := 0.0
	for k := 1; k <= K; k++ {
		s += (lags[k] - lags[k-1]) * (c[k] + c[k-1]) / 2
	}
	tau := (lags[K] - lags[K-1]) / math.Log(c[K-1]/c[K])
	return 2 * (s + c[K]*tau), nil
}

// ReplicationsForCheck returns the smallest number R >= 2 of independent
// replications, each averaging a stationary quantity over a length T (after
// its warm-up), with which a two-sided agreement check at level alpha,
// |mean - ref| <= t_{R-1, 1-alpha/2} SE with SE = sqrt(sigma2/(R T)),
// rejects a true deviation of frac*|ref| with power at least 0.8 (normal
// approximation: (t + z_0.8) SE <= frac |ref|). sigma2 is the variance per
// unit time of the time average (TimeAverageVariance).
func ReplicationsForCheck(sigma2, T, ref, frac, alpha float64) (int, error) {
	if !(sigma2 > 0) || !(T > 0) || !(frac > 0) || ref == 0 || !(alpha > 0 && alpha < 1) ||
		math.IsInf(sigma2, 0) || math.IsInf(T, 0) || math.IsInf(ref, 0) {
		return 0, fmt.Errorf("meanfield: ReplicationsForCheck(sigma2 = %v, T = %v, ref = %v, frac = %v, alpha = %v): need sigma2, T, frac > 0, ref != 0, alpha in (0, 1)",
			sigma2, T, ref, frac, alpha)
	}
	z80 := distuv.UnitNormal.Quantile(0.8)
	for R := 2; R <= 1<<30; R++ {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(R - 1)}.Quantile(1 - alpha/2)
		if (t+z80)*math.Sqrt(sigma2/(float64(R)*T)) <= frac*math.Abs(ref) {
			return R, nil
		}
	}
	return 0, fmt.Errorf("meanfield: ReplicationsForCheck: more than 2^30 replications")
}
