package kernelhelpers

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
)

// capture runs f with the check output captured; it returns what f printed
// and the failed check's line, or "" when f did not fail.
func capture(f func()) (out, failed string) {
	var buf bytes.Buffer
	old := checkOut
	checkOut = &buf
	defer func() { checkOut = old }()
	func() {
		defer func() {
			if r := recover(); r != nil {
				if cf, ok := r.(CheckFailure); ok {
					failed = cf.Line
					return
				}
				failed = fmt.Sprint(r)
			}
		}()
		f()
	}()
	return buf.String(), failed
}

func TestEvidenceChecks(t *testing.T) {
	sim := Reps([]float64{0.7291, 0.7287, 0.7295, 0.7289, 0.7293, 0.7290, 0.7286, 0.7292})
	ref := Exact(0.729, 1e-9)

	out, failed := capture(func() { Agree("q_2 vs fixed point", sim, ref, Need(0.01)) })
	if failed != "" || !strings.HasPrefix(out, "PASS  q_2 vs fixed point: ") || !strings.Contains(out, "detects ") || !strings.Contains(out, "% of 0.729") {
		t.Errorf("passing check: %q (failed %q)", out, failed)
	}
	// The same check on an estimate 1% too high rejects.
	wrong := sim
	wrong.Value *= 1.01
	if _, failed := capture(func() { Agree("q_2", wrong, ref, Need(0.01)) }); !strings.Contains(failed, "rejected") {
		t.Errorf("1%% off not rejected: %q", failed)
	}
	// Weak evidence: 4 noisy replications cannot see 0.1%.
	noisy := Reps([]float64{0.70, 0.75, 0.72, 0.74})
	if _, failed := capture(func() { Agree("q_2", noisy, ref, Need(0.001)) }); !strings.HasPrefix(failed, "weak evidence: ") || !strings.Contains(failed, "add replications or horizon") {
		t.Errorf("weak check: %q", failed)
	}
	// Controls: rejected prints CONTROL; not rejected fails the cell.
	out, failed = capture(func() { ControlAgree("λ 1% higher", "q_2", wrong, ref, Need(0.01)) })
	if failed != "" || !strings.HasPrefix(out, "CONTROL  λ 1% higher: rejected by q_2: ") {
		t.Errorf("control: %q (failed %q)", out, failed)
	}
	if _, failed := capture(func() { ControlAgree("the right model", "q_2", sim, ref, Need(0.01)) }); !strings.HasPrefix(failed, "CONTROL the right model: NOT rejected") {
		t.Errorf("unrejected control: %q", failed)
	}
	// Less: shown, not shown, control.
	small := Reps([]float64{0.20, 0.21, 0.19, 0.205})
	if out, failed := capture(func() { Less("tail below", small, sim, Need(0.1)) }); failed != "" || !strings.Contains(out, "margin") {
		t.Errorf("Less: %q %q", out, failed)
	}
	if _, failed := capture(func() { Less("tail below", sim, small, Need(0.5)) }); !strings.Contains(failed, "not shown") {
		t.Errorf("Less reversed: %q", failed)
	}
	if out, failed := capture(func() { ControlLess("reversed", "tail below", sim, small, Need(0.5)) }); failed != "" || !strings.HasPrefix(out, "CONTROL  reversed") {
		t.Errorf("ControlLess: %q %q", out, failed)
	}
	// Options that are not evidence are refused.
	for _, opts := range [][]ClaimOption{{Need(0.6)}, {NeedAbs(0.5)}, {NeedAbs(0)}} {
		if _, failed := capture(func() { Agree("q_2", sim, ref, opts...) }); failed == "" {
			t.Errorf("options %d accepted", len(opts))
		}
	}
	if _, failed := capture(func() { Agree("zero", sim, Exact(0, 0)) }); !strings.Contains(failed, "NeedAbs") {
		t.Errorf("relative need against 0: %q", failed)
	}
	// Sanity lines carry no power claim.
	if out, failed := capture(func() { Sanity("q_1 = λ", 0.9001, 0.9, 0.001, "rate conservation") }); failed != "" || !strings.HasPrefix(out, "PASS  sanity: q_1 = λ") || strings.Contains(out, "detects") {
		t.Errorf("sanity: %q %q", out, failed)
	}
}

func TestEstimatesFromResults(t *testing.T) {
	res := &lbsim.Result{PerReplication: []lbsim.ReplicationResult{
		{Occupancy: []float64{0.9, 0.7}, MeanSojourn: 2}, {Occupancy: []float64{0.8}, MeanSojourn: 3}}}
	if e := Occ(res, 2); e.Value != 0.35 || e.DF != 1 {
		t.Errorf("Occ: %+v", e)
	}
	if e := Sojourn(res); e.Value != 2.5 || e.Method != "2 replications" {
		t.Errorf("Sojourn: %+v", e)
	}
	fit, err := FitPowerLaw([]float64{1, 10, 100, 1000}, []float64{1, 0.31, 0.1, 0.032})
	if err != nil {
		t.Fatal(err)
	}
	if s := Slope(fit); s.DF != 2 || s.Value > -0.49 || s.Value < -0.51 {
		t.Errorf("Slope: %+v", s)
	}
}
