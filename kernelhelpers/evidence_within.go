package kernelhelpers

import (
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim/evidence"
)

// Within asserts that est lies within ±margin of ref: two one-sided t tests
// (TOST, the usual test of equivalence), ref - margin < est and est < ref +
// margin, each at the stated level; the claim holds when both do. It is how
// a check states a finite-N closeness ("within 10% of the fixed point") that
// Agree cannot, because Agree with enough replications rejects any real
// finite-N gap. It prints one line, the binding side's (the one with the
// smaller margin beyond its tolerance), with what that side detects; Need is
// relative to |ref| (as for Agree), so Need(0.05) asks the test to show a
// margin of 5% of the reference. margin must be positive.
func Within(name string, est, ref Estimate, margin float64, options ...ClaimOption) evidence.Outcome {
	o := within(name, est, ref, margin, options)
	claim(name, o)
	return o
}

// ControlWithin is a negative control for Within: on the estimate est of a
// deliberately wrong model the same check must not show est within ±margin
// of ref. It prints a CONTROL line and fails the cell when it does.
func ControlWithin(wrong, name string, est, ref Estimate, margin float64, options ...ClaimOption) {
	control(wrong, name, within(name, est, ref, margin, options))
}

func within(name string, est, ref Estimate, margin float64, options []ClaimOption) evidence.Outcome {
	if !(margin > 0) || math.IsInf(margin, 0) {
		panic(fmt.Errorf("check %q: Within needs a positive margin, got %v", name, margin))
	}
	spec := specFor(name, ref.Value, options)
	upper, lower := ref, ref
	upper.Value += margin
	lower.Value -= margin
	upper.Method = fmt.Sprintf("%.4g + margin %.3g", ref.Value, margin)
	if ref.Method != "" {
		upper.Method += ", " + ref.Method
	}
	lower.Method = fmt.Sprintf("%.4g - margin %.3g", ref.Value, margin)
	if ref.Method != "" {
		lower.Method += ", " + ref.Method
	}
	hi := evidence.Less(est, upper, spec)
	lo := evidence.Less(lower, est, spec)
	o := hi
	if lo.Diff-lo.Tolerance < hi.Diff-hi.Tolerance || math.IsNaN(lo.Diff) {
		o = lo
	}
	o.Holds = hi.Holds && lo.Holds
	o.Weak = hi.Weak || lo.Weak
	return o
}
