package kernelhelpers

import (
	"math"
	"strings"
	"testing"
)

func TestTailOfAndLevels(t *testing.T) {
	// Geometric P(N = n) = (1/2)^(n+1), n = 0..3, mass 1/16 beyond: P(N >= n) = 2^-n.
	tail := TailOf([]float64{0.5, 0.25, 0.125, 0.0625}, 0.0625)
	want := []float64{0.5, 0.25, 0.125}
	for n := range want {
		if math.Abs(tail[n]-want[n]) > 1e-15 {
			t.Errorf("P(N >= %d) = %v, want %v", n+1, tail[n], want[n])
		}
	}
	if TailLevels(tail, 0.2) != 2 || TailLevels(tail, 0) != 3 || TailLevels(tail, 1) != 0 {
		t.Errorf("TailLevels: %d %d %d", TailLevels(tail, 0.2), TailLevels(tail, 0), TailLevels(tail, 1))
	}
	if e := ExactLaw(tail, 4, 1e-9); len(e) != 4 || e[0].Bound != 1e-9 || !math.IsNaN(e[3].Value) {
		t.Errorf("ExactLaw: %+v", e)
	}
}

func TestEveryLess(t *testing.T) {
	a := ExactLaw([]float64{0.5, 0.2, 0.01}, 3, 1e-12)
	b := ExactLaw([]float64{0.6, 0.21, 0.02}, 3, 1e-12)
	out, failed := capture(func() { EveryLess("a below b", nil, a, b, Need(0.05)) })
	// Relative margins 1/6, 1/21, 1/2: the tightest is level 2.
	if failed != "" || !strings.Contains(out, "PASS  a below b (3 levels, 1..3): at every level; tightest at 2") ||
		!strings.Contains(out, "detects") {
		t.Errorf("EveryLess: %q (failed %q)", out, failed)
	}
	// One level out of order fails, naming it.
	c := ExactLaw([]float64{0.6, 0.19, 0.02}, 3, 1e-12)
	out, failed = capture(func() { EveryLess("a below c", []int{4, 5, 6}, a, c) })
	if !strings.Contains(failed, "at level 5") || !strings.Contains(out, "FAIL") {
		t.Errorf("EveryLess out of order: %q (failed %q)", out, failed)
	}
	// Weak: a bound larger than the need at the last level.
	w := ExactLaw([]float64{0.5, 0.2, 0.01}, 3, 1e-3)
	_, failed = capture(func() { EveryLess("weak", nil, w, b, Need(0.05)) })
	if !strings.Contains(failed, "weak evidence") || !strings.Contains(failed, "at level 3") {
		t.Errorf("EveryLess weak: failed %q", failed)
	}
	// Controls: rejected when a level is out of order, a failure otherwise.
	out, failed = capture(func() { ControlEveryLess("c in place of b", "a below b", nil, a, c) })
	if failed != "" || !strings.HasPrefix(out, "CONTROL  c in place of b: rejected by a below b (3 levels, 1..3): at level 2") {
		t.Errorf("ControlEveryLess: %q (failed %q)", out, failed)
	}
	_, failed = capture(func() { ControlEveryLess("not wrong", "a below b", nil, a, b) })
	if !strings.Contains(failed, "NOT rejected") {
		t.Errorf("ControlEveryLess on a right model: failed %q", failed)
	}
}

func TestLawAgree(t *testing.T) {
	uniform := func(x float64) float64 { return math.Min(1, math.Max(0, x)) }
	xs := make([]float64, 2000)
	for i := range xs {
		xs[i] = (float64(i) + 0.5) / float64(len(xs)) // the uniform law's quantiles: distance 1/4000
	}
	out, failed := capture(func() { LawAgree("quantiles", "U(0, 1)", xs, uniform, 0, Need(0.05)) })
	if failed != "" || !strings.HasPrefix(out, "PASS  quantiles: Kolmogorov-Smirnov distance 0.00025 over 2000 independent draws vs U(0, 1)") ||
		!detectsRel.MatchString(out) {
		t.Errorf("LawAgree on the right law: %q (failed %q)", out, failed)
	}
	square := func(x float64) float64 { return uniform(x) * uniform(x) }
	_, failed = capture(func() { LawAgree("quantiles", "x^2", xs, square, 0, Need(0.05)) })
	if !strings.Contains(failed, "rejected") {
		t.Errorf("LawAgree on a wrong law: failed %q", failed)
	}
	_, failed = capture(func() { LawAgree("few", "U(0, 1)", xs[:20], uniform, 0, Need(0.05)) })
	if !strings.Contains(failed, "weak evidence") {
		t.Errorf("LawAgree on 20 draws with need 0.05: failed %q", failed)
	}
	out, failed = capture(func() { ControlLawAgree("x^2 in place of x", "quantiles", "x^2", xs, square, 0, Need(0.05)) })
	if failed != "" || !strings.HasPrefix(out, "CONTROL  x^2 in place of x: rejected by quantiles: Kolmogorov-Smirnov") {
		t.Errorf("ControlLawAgree: %q (failed %q)", out, failed)
	}
	_, failed = capture(func() { ControlLawAgree("not wrong", "quantiles", "U(0, 1)", xs, uniform, 0, Need(0.05)) })
	if !strings.Contains(failed, "NOT rejected") {
		t.Errorf("ControlLawAgree on the right law: failed %q", failed)
	}
}
