package kernelhelpers

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// The helpers every notebook used to declare for itself: quick mode, the
// choice of a parameter by mode, checks that print one line and fail the cell,
// and Must for calls that return an error. A cell fails by panicking: GoNB
// then shows the message and the cell counts as an error in headless runs.

// Quick reports whether the notebook runs in quick mode: LBSIM_QUICK=1, as
// `make test` and scripts/run-notebooks.sh set it. Quick mode runs smaller
// simulations that must still support every claim the notebook checks.
func Quick() bool { return os.Getenv("LBSIM_QUICK") == "1" }

// Pick returns quick in quick mode and full otherwise:
// Horizon: kh.Pick(2000.0, 20000.0).
func Pick[T any](quick, full T) T {
	if Quick() {
		return quick
	}
	return full
}

// Must returns v, and fails the cell if err is not nil:
// res := kh.Must(lbsim.Run(ctx, sc)).
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// MustKeep stores v (any JSON-encodable value) under name for later cells
// of this kernel session (MustRecall), and fails the cell on error.
func MustKeep(name string, v any) {
	if err := keep(name, v); err != nil {
		panic(err)
	}
}

// MustRecall returns the value kept under name, and fails the cell if there
// is none (saying which cell to run) or it does not decode into a T:
// st := kh.MustRecall[map[string]float64]("stationary").
func MustRecall[T any](name string) T {
	var v T
	if err := recall(name, &v); err != nil {
		panic(err)
	}
	return v
}

// checkOut is where checks print (the cell's output), replaced by the tests.
var checkOut io.Writer = os.Stdout

// CheckFailure is the panic value of a failed check: the line it printed.
type CheckFailure struct{ Line string }

func (f CheckFailure) Error() string { return "check failed: " + f.Line }

// Check asserts |got - want| <= tol. It prints one line, the name, got, want,
// |got - want|, tol and why (the reason for the tolerance: "4 half-widths +
// 1e-3 finite-N bias"), after PASS or FAIL; on FAIL (also when got, want
// or tol is NaN) it fails the cell. A check should be one a wrong simulator
// would fail; an identity that holds by construction is a sanity check and
// says so in its name.
func Check(name string, got, want, tol float64, why string) {
	diff := math.Abs(got - want)
	ok := diff <= tol // false when any of them is NaN
	line := fmt.Sprintf("%s: got %.6g, want %.6g, |diff| %.3g, tol %.3g", name, got, want, diff, tol)
	if why != "" {
		line += " (" + why + ")"
	}
	report(ok, line)
}

// CheckThat asserts a claim stated as a condition: it prints the name and the
// formatted detail (the numbers the claim compares) after PASS or FAIL,
// and fails the cell when ok is false:
// kh.CheckThat("tail below random's", q4 < r2, "q_4 = %.4f < random q_2 = %.4f", q4, r2).
func CheckThat(name string, ok bool, format string, args ...any) {
	line := name
	if d := fmt.Sprintf(format, args...); d != "" {
		line += ": " + d
	}
	report(ok, line)
}

func report(ok bool, line string) {
	line = strings.TrimSpace(line)
	if ok {
		fmt.Fprintln(checkOut, "PASS  "+line)
		return
	}
	fmt.Fprintln(checkOut, "FAIL  "+line)
	panic(CheckFailure{Line: line})
}
