package kernelhelpers

import (
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim/evidence"
)

// Orders between laws: one law lies below another at every level, P_a(N >=
// n) < P_b(N >= n) for n = 1..K (stochastic dominance), or one series of
// coefficients below another term by term. EveryLess is Less at each
// level, reported in one line: the levels compared and the tightest one.

// TailOf turns P(N = n), n = 0..m, and the mass beyond m into the tail
// P(N >= n), n = 1..m, summed from the far end (so that the small values
// keep their relative accuracy).
func TailOf(p []float64, beyond float64) []float64 {
	if len(p) == 0 {
		return nil
	}
	t := make([]float64, len(p)-1)
	s := beyond
	for n := len(p) - 1; n >= 1; n-- {
		s += p[n]
		t[n-1] = s
	}
	return t
}

// TailLevels is the number of leading levels of tail at or above floor:
// the levels n = 1..TailLevels(tail, floor) whose value is at least floor.
func TailLevels(tail []float64, floor float64) int {
	for n, v := range tail {
		if !(v >= floor) {
			return n
		}
	}
	return len(tail)
}

// ExactLaw is values[k], k < levels, as exact estimates, each correct to
// within bound (a truncation mass, a solver tolerance, floating point).
func ExactLaw(values []float64, levels int, bound float64) []Estimate {
	out := make([]Estimate, levels)
	for k := range out {
		v := math.NaN()
		if k < len(values) {
			v = values[k]
		}
		out[k] = Exact(v, bound)
	}
	return out
}

// everyLess runs Less at each level and returns the outcome that speaks
// for all of them: the first level where a < b is not shown or the check
// is weak, else the level with the smallest margin relative to |b|. levels
// names the levels (nil: 1, 2, ...).
func everyLess(name string, levels []int, a, b []Estimate, options []ClaimOption) (evidence.Outcome, string) {
	if len(a) != len(b) || len(a) == 0 {
		panic(fmt.Errorf("check %q: %d levels against %d; need the same positive number", name, len(a), len(b)))
	}
	if levels != nil && len(levels) != len(a) {
		panic(fmt.Errorf("check %q: %d level names for %d levels", name, len(levels), len(a)))
	}
	level := func(k int) int {
		if levels == nil {
			return k + 1
		}
		return levels[k]
	}
	span := fmt.Sprintf("%d levels, %d..%d", len(a), level(0), level(len(a)-1))
	best, bestRel := evidence.Outcome{}, math.Inf(1)
	at := -1
	for k := range a {
		o := evidence.Less(a[k], b[k], specFor(name, b[k].Value, options))
		if !o.Holds || o.Weak {
			return o, fmt.Sprintf("%s (%s): at level %d", name, span, level(k))
		}
		if rel := o.Diff / math.Abs(b[k].Value); at < 0 || rel < bestRel {
			best, bestRel, at = o, rel, k
		}
	}
	return best, fmt.Sprintf("%s (%s): at every level; tightest at %d", name, span, level(at))
}

// EveryLess asserts a[k] < b[k] at every level k, each by the one-sided
// test of Less (with its need, relative to b[k]), and prints one line: the
// levels compared and the Less line of the tightest level (the smallest
// margin relative to b), or of the first level where the order is not
// shown or the check is weak, which fails the cell.
func EveryLess(name string, levels []int, a, b []Estimate, options ...ClaimOption) evidence.Outcome {
	o, label := everyLess(name, levels, a, b, options)
	claim(label, o)
	return o
}

// ControlEveryLess is a negative control for EveryLess: on the wrong model
// the order must fail at some level (a level where a < b is not shown).
func ControlEveryLess(wrong, name string, levels []int, a, b []Estimate, options ...ClaimOption) {
	o, label := everyLess(name, levels, a, b, options)
	if o.Weak && o.Holds {
		report(false, "CONTROL "+wrong+": weak evidence at "+o.Describe(label)+": the check cannot see the deviation the claim needs")
		return
	}
	control(wrong, label, o)
}

// LawAgree asserts that xs are independent draws from the continuous law
// whose CDF is F, known to within bound (sup |F - the true CDF| <= bound),
// by the Kolmogorov-Smirnov test at the stated level (lbsim/evidence
// LawAgree); reference names F in the line. The line states the CDF
// deviation the test detects; Need is in probability (Need(0.02): a CDF
// off by 0.02 somewhere; default 0.1). The draws must be independent (thin
// a dependent series, or pool independent replications) and the line says
// how they are, in name. It fails the cell when the law is rejected or the
// sample is too small to see the need.
func LawAgree(name, reference string, xs []float64, F func(float64) float64, bound float64, options ...ClaimOption) evidence.LawOutcome {
	o := evidence.LawAgree(xs, F, bound, specFor(name, 1, options))
	line := o.Describe(name, reference)
	switch {
	case o.Weak:
		report(false, "weak evidence: "+line+": the sample cannot see the deviation the claim needs; add draws")
	case !o.Holds:
		report(false, line+": rejected")
	default:
		report(true, line)
	}
	return o
}

// ControlLawAgree is a negative control for LawAgree: the draws xs of a
// deliberately wrong model (or the right draws against a wrong law F),
// described by wrong, must be rejected.
func ControlLawAgree(wrong, name, reference string, xs []float64, F func(float64) float64, bound float64, options ...ClaimOption) {
	o := evidence.LawAgree(xs, F, bound, specFor(name, 1, options))
	line := o.Describe(name, reference)
	if o.Holds {
		report(false, "CONTROL "+wrong+": NOT rejected by "+line)
		return
	}
	fmt.Fprintln(checkOut, "CONTROL  "+wrong+": rejected by "+line)
}
