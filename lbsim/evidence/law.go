package evidence

import (
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// LawOutcome is the result of LawAgree: a sample of independent draws
// compared with a continuous distribution function by the
// Kolmogorov-Smirnov test.
type LawOutcome struct {
	// Distance is sup_x |F_n(x) - F(x)| over the sample's empirical CDF F_n.
	Distance float64
	// N is the sample size, Bound the reference's error bound on F (added
	// to the tolerance), Spec the level, power and need (in probability).
	N     int
	Bound float64
	Spec  Spec
	// Tolerance is the critical distance at Spec.Level, plus Bound: the
	// test rejects when Distance > Tolerance.
	Tolerance float64
	// P is the p-value (asymptotic Kolmogorov law with Stephens' finite-n
	// correction, conservative by Bound).
	P float64
	// Detects is a sup-deviation of the true CDF from F that the test
	// rejects with probability at least Spec.Power: Tolerance + z_power /
	// (2 sqrt(N)), because at the point of largest deviation F_n has
	// standard deviation at most 1/(2 sqrt(N)) (conservative).
	Detects float64
	// Holds: not rejected; Weak: Detects exceeds Spec.Need.
	Holds, Weak bool
}

// kolmogorovSurvival is P(sup |bridge| > x) = 2 sum_{j>=1} (-1)^{j-1}
// exp(-2 j^2 x^2), the limit of P(sqrt(n) D_n > x).
func kolmogorovSurvival(x float64) float64 {
	if x < 0.2 {
		return 1 // the survival is 1 - 1e-19 there, where the series converges slowly
	}
	s := 0.0
	for j := 1; j <= 100; j++ {
		term := math.Exp(-2 * float64(j*j) * x * x)
		if j%2 == 1 {
			s += term
		} else {
			s -= term
		}
		if term < 1e-17 {
			break
		}
	}
	return math.Min(1, math.Max(0, 2*s))
}

// stephens is the effective sqrt(n) of Stephens' approximation
// P(D_n > d) ~ Q((sqrt(n) + 0.12 + 0.11/sqrt(n)) d).
func stephens(n int) float64 {
	r := math.Sqrt(float64(n))
	return r + 0.12 + 0.11/r
}

// kolmogorovQuantile is the x with kolmogorovSurvival(x) = level
// (bisection; the survival decreases).
func kolmogorovQuantile(level float64) float64 {
	lo, hi := 0.2, 5.0
	for range 100 {
		mid := (lo + hi) / 2
		if kolmogorovSurvival(mid) > level {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// LawAgree tests the claim that xs are independent draws from the
// continuous distribution F, known to within bound (sup |F - true F| <=
// bound): the two-sided Kolmogorov-Smirnov test at spec.Level. spec.Need is
// the sup-deviation of the CDF the claim must be able to see (in
// probability); 0: none. The draws must be independent: a dependent series
// (consecutive gaps of one run) makes the stated level wrong, so thin it to
// draws that do not influence each other, or use several replications.
func LawAgree(xs []float64, F func(float64) float64, bound float64, spec Spec) LawOutcome {
	spec = spec.withDefaults()
	o := LawOutcome{N: len(xs), Bound: bound, Spec: spec, Distance: math.NaN(), P: math.NaN(), Detects: math.NaN(), Tolerance: math.NaN()}
	if len(xs) == 0 {
		o.Weak = spec.Need > 0
		return o
	}
	d := mc.KSDistance(xs, F)
	n := float64(len(xs))
	o.Distance = d
	sn := stephens(len(xs))
	o.Tolerance = kolmogorovQuantile(spec.Level)/sn + bound
	o.P = kolmogorovSurvival(math.Max(d-bound, 0) * sn)
	o.Detects = o.Tolerance + zQuantile(spec.Power)/(2*math.Sqrt(n))
	o.Holds = d <= o.Tolerance // false for NaN
	o.Weak = weak(o.Detects, spec.Need)
	return o
}

// Describe is the comparison in one line, starting with name: the distance
// and its sample, the tolerance, the p-value and level, and what the test
// detects (in probability, relative to the CDF's range 1) against what the
// claim needs.
func (o LawOutcome) Describe(name, reference string) string {
	line := fmt.Sprintf("%s: Kolmogorov-Smirnov distance %.4g over %d independent draws vs %s; tol %.3g (Kolmogorov critical distance",
		name, o.Distance, o.N, reference, o.Tolerance)
	if o.Bound > 0 {
		line += fmt.Sprintf(" + bound %.2g", o.Bound)
	}
	line += fmt.Sprintf("); p = %.2g at level %g; detects %.3g (%.3g%% of 1, a deviation of the CDF) at %g%% power",
		o.P, o.Spec.Level, o.Detects, 100*o.Detects, 100*o.Spec.Power)
	if o.Spec.Need > 0 {
		line += fmt.Sprintf(", needs %.3g", o.Spec.Need)
	}
	return line
}
