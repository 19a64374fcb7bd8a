package kernelhelpers

import (
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim/evidence"
)

// The evidence layer of the notebooks (../shared/EVIDENCE.md): a claim is
// checked by comparing an Estimate, which carries its standard error, with a
// reference that carries its own error, at a stated level; each check line
// says what the check detects, and a check that cannot detect what the
// claim needs fails as weak evidence. Negative controls run the same check
// on a deliberately wrong model and fail the cell when it is not rejected.
// The statistics are package lbsim/evidence; this file prints and enforces.

// Estimate is a value with its uncertainty (lbsim/evidence.Estimate).
type Estimate = evidence.Estimate

// Reps is the mean of independent replications xs, with standard error
// s/sqrt(n) and n - 1 degrees of freedom.
func Reps(xs []float64) Estimate { return evidence.Replications(xs) }

// Exact is a reference computed without sampling, correct to within bound
// (truncation mass, solver tolerance, a proven bias bound).
func Exact(value, bound float64) Estimate { return evidence.Exact(value, bound) }

// FromCI95 is the estimate behind a mean and its 95% half-width over reps
// independent replications, as the models' figures report them.
func FromCI95(mean, half float64, reps int) Estimate { return evidence.FromCI95(mean, half, reps) }

// Slope is the fitted exponent of a power law as an estimate: its OLS
// standard error with points - 2 degrees of freedom.
func Slope(fit PowerLaw) Estimate {
	return Estimate{Value: fit.Exponent, SE: fit.ExponentSE, DF: float64(fit.Points - 2),
		Method: fmt.Sprintf("least-squares slope over %d points", fit.Points)}
}

// ClaimOption sets what a check asks: the deviation it must detect, its
// level, its power.
type ClaimOption func(*claimSpec)

type claimSpec struct {
	spec    evidence.Spec
	needRel float64
	needSet bool
}

// Need is the deviation the claim must be able to see, relative to the
// reference: Need(0.05) for 5% of it (default 10%). At most 0.5: a check
// that can only see half of its reference is not evidence.
func Need(fraction float64) ClaimOption {
	return func(c *claimSpec) { c.needRel, c.spec.Need, c.needSet = fraction, 0, true }
}

// NeedAbs is the deviation the claim must be able to see, in the units of
// the quantity (required when the reference is 0).
func NeedAbs(x float64) ClaimOption {
	return func(c *claimSpec) { c.needRel, c.spec.Need, c.needSet = 0, x, true }
}

// AtLevel sets the significance level (default 1%).
func AtLevel(level float64) ClaimOption { return func(c *claimSpec) { c.spec.Level = level } }

// WithPower sets the power at which the check states what it detects
// (default 80%).
func WithPower(p float64) ClaimOption { return func(c *claimSpec) { c.spec.Power = p } }

// specFor resolves the options against the reference value ref.
func specFor(name string, ref float64, options []ClaimOption) evidence.Spec {
	c := claimSpec{needRel: 0.1}
	for _, o := range options {
		o(&c)
	}
	if c.needRel > 0 {
		if c.needRel > 0.5 {
			panic(fmt.Errorf("check %q: Need(%g) is more than half of the reference; a check that sees only that is not evidence", name, c.needRel))
		}
		if ref == 0 || math.IsNaN(ref) {
			panic(fmt.Errorf("check %q: the reference is %v, so the deviation it must detect is given with NeedAbs", name, ref))
		}
		c.spec.Need = c.needRel * math.Abs(ref)
	} else if !(c.spec.Need > 0) {
		panic(fmt.Errorf("check %q: NeedAbs(%v) must be positive", name, c.spec.Need))
	} else if ref != 0 && c.spec.Need > 0.5*math.Abs(ref) {
		panic(fmt.Errorf("check %q: NeedAbs(%g) is more than half of the reference %g; a check that sees only that is not evidence", name, c.spec.Need, ref))
	}
	return c.spec
}

// Agree asserts that est and ref have the same expectation (Welch's t test
// at the stated level). It prints one line, PASS or FAIL, with both sides,
// the difference against the tolerance, the p-value, and what the check
// detects (absolute and relative to ref) against what the claim needs. It
// fails the cell when the test rejects, or when it is weak: it cannot
// detect the deviation the claim needs (add replications or horizon).
func Agree(name string, est, ref Estimate, options ...ClaimOption) evidence.Outcome {
	o := evidence.Agree(est, ref, specFor(name, ref.Value, options))
	claim(name, o)
	return o
}

// Less asserts a < b, shown by a one-sided t test at the stated level (the
// margin b - a beyond its tolerance); the line says the smallest margin the
// check shows with the stated power. Need is relative to |b|.
func Less(name string, a, b Estimate, options ...ClaimOption) evidence.Outcome {
	o := evidence.Less(a, b, specFor(name, b.Value, options))
	claim(name, o)
	return o
}

func claim(name string, o evidence.Outcome) {
	line := o.Describe(name)
	switch {
	case o.Weak:
		report(false, "weak evidence: "+line+": the check cannot see the deviation the claim needs; add replications or horizon")
	case !o.Holds && o.Kind == evidence.KindLess:
		report(false, line+": not shown")
	case !o.Holds:
		report(false, line+": rejected")
	default:
		report(true, line)
	}
}

// ControlAgree is a negative control for Agree: the same check, named name,
// on the estimate est of a deliberately wrong model (described by wrong:
// "λ 1% higher", "d - 1 samples") must reject it. It prints a line starting
// with CONTROL naming the wrong model and the check, and fails the cell
// when the check does not reject it.
func ControlAgree(wrong, name string, est, ref Estimate, options ...ClaimOption) {
	control(wrong, name, evidence.Agree(est, ref, specFor(name, ref.Value, options)))
}

// ControlLess is a negative control for Less: on the wrong model the claim
// a < b must not be shown.
func ControlLess(wrong, name string, a, b Estimate, options ...ClaimOption) {
	control(wrong, name, evidence.Less(a, b, specFor(name, b.Value, options)))
}

func control(wrong, name string, o evidence.Outcome) {
	line := o.Describe(name)
	if o.Holds {
		report(false, "CONTROL "+wrong+": NOT rejected by "+line)
		return
	}
	line = "CONTROL  " + wrong + ": rejected by " + line
	fmt.Fprintln(checkOut, line)
}

// Sanity prints a check of an identity that holds by construction (rate
// conservation, a bound the algorithm enforces): it proves nothing about
// the model and states no power. The line starts with "sanity:"; it fails
// the cell when |got - want| > tol.
func Sanity(name string, got, want, tol float64, why string) {
	diff := math.Abs(got - want)
	line := fmt.Sprintf("sanity: %s: got %.6g, want %.6g, |diff| %.3g, tol %.3g", name, got, want, diff, tol)
	if why != "" {
		line += " (" + why + ")"
	}
	report(diff <= tol, line)
}
