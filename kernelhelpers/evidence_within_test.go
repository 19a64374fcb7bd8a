package kernelhelpers

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestWithin(t *testing.T) {
	ref := Exact(0.0382, 0)
	near := Reps([]float64{0.0386, 0.0384, 0.0388, 0.0385, 0.0383, 0.0387, 0.0386, 0.0384})
	out, failed := capture(func() { Within("q_5 within 10%", near, ref, 0.00382, Need(0.05)) })
	if failed != "" || !strings.HasPrefix(out, "PASS  q_5 within 10%: ") || !strings.Contains(out, "detects ") {
		t.Errorf("a value 1%% above: %q (failed %q)", out, failed)
	}
	// The binding side of a value above the reference is the upper one.
	if !strings.Contains(out, " < 0.04202") {
		t.Errorf("the line should show the upper side: %q", out)
	}
	below := Reps([]float64{0.0350, 0.0349, 0.0351, 0.0350, 0.0352, 0.0348, 0.0350, 0.0351})
	if _, failed := capture(func() { Within("q_5 within 5%", below, ref, 0.00191, Need(0.05)) }); failed == "" {
		t.Error("a value 8% below passed a 5% margin")
	}
	far := Reps([]float64{0.0495, 0.0497, 0.0493, 0.0496, 0.0494, 0.0498, 0.0495, 0.0496})
	out, failed = capture(func() { ControlWithin("ring", "q_5 within 10%", far, ref, 0.00382, Need(0.05)) })
	if failed != "" || !strings.HasPrefix(out, "CONTROL  ring: rejected by q_5 within 10%") {
		t.Errorf("control: %q (failed %q)", out, failed)
	}
	if _, failed := capture(func() { ControlWithin("near", "q_5 within 10%", near, ref, 0.00382, Need(0.05)) }); failed == "" {
		t.Error("a control that is within the margin did not fail")
	}
	noisy := Reps([]float64{0.030, 0.046, 0.038, 0.041, 0.035, 0.044, 0.032, 0.040})
	if _, failed := capture(func() { Within("q_5 within 10%", noisy, ref, 0.00382, Need(0.05)) }); !strings.Contains(failed, "weak evidence") {
		t.Errorf("a noisy estimate: %q, want weak evidence", failed)
	}
	// Level: at the edge of the margin (true value ref + margin) the claim is
	// shown with probability at most the level (1%).
	rng := rand.New(rand.NewPCG(3, 4))
	shown := 0
	const trials = 4000
	for range trials {
		xs := make([]float64, 8)
		for i := range xs {
			xs[i] = 0.0382 + 0.00382 + 0.0005*rng.NormFloat64()
		}
		if within("edge", Reps(xs), ref, 0.00382, nil).Holds {
			shown++
		}
	}
	if rate := float64(shown) / trials; rate > 0.01+3*math.Sqrt(0.01*0.99/trials) {
		t.Errorf("shown at the edge of the margin in %.3f of the trials, want at most 0.01", rate)
	}
}
