package meanfield

import (
	"context"
	"math"
	"testing"
)

// TestBridgeSchemeConvergence is the convergence table of the two schemes at
// beta = 1 (8 runs of 10^5 time units per step). The bridge scheme's
// E[Qbar_2] must lie within BridgeBiasPerDt*dt + 0.003 (the uncertainty of
// the reference 0.813) + 4 CI of the reference at every step, while the
// projection scheme at dt = 0.01 is more than 0.1 below it; E[Qbar_1] = -1
// within 4 CI for both.
func TestBridgeSchemeConvergence(t *testing.T) {
	if testing.Short() {
		t.Skip("1.4e8 steps")
	}
	const ref = 0.813
	for _, dt := range []float64{0.16, 0.04, 0.01} {
		r, err := JSQDiffusionStationary(context.Background(), 1, dt, 1e5, 8, 3)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("bridge dt = %-5v E[Qbar_2] = %.4f ± %.4f (ref %.3f, bias bound %.4f)  E[Qbar_1] = %.4f ± %.4f",
			dt, r.Mean2, r.CI2, ref, r.Bias2, r.Mean1, r.CI1)
		if d := math.Abs(r.Mean2 - ref); d > r.Bias2+0.003+4*r.CI2 {
			t.Errorf("bridge dt = %v: E[Qbar_2] = %.4f, off the reference %.3f by %.4f", dt, r.Mean2, ref, d)
		}
		if math.Abs(r.Mean1+1) > 4*r.CI1 {
			t.Errorf("bridge dt = %v: E[Qbar_1] = %.4f ± %.4f, want -1", dt, r.Mean1, r.CI1)
		}
	}
	p, err := SimulateJSQDiffusion(context.Background(), DiffusionOptions{Beta: 1, Dt: 0.01, Horizon: 1e5, Warmup: 100, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("projection dt = 0.01: E[Qbar_2] = %.4f", p.Mean2)
	if p.Mean2 > ref-0.1 {
		t.Errorf("projection dt = 0.01: E[Qbar_2] = %.4f, expected its bias of about -0.13", p.Mean2)
	}
}

func TestBridgeMax(t *testing.T) {
	// The maximum is at least both end points; v = 0 gives max(a, b).
	if m := bridgeMax(-1, -0.5, 0.01, 0); math.Abs(m+0.5) > 1e-15 {
		t.Errorf("bridgeMax(v=0) = %v, want -0.5", m)
	}
	// P(max > 0 | a, b <= 0) = exp(-a b / dt): the empirical frequency over
	// a grid of v must match it (the law is inverted exactly).
	a, b, dt := -0.1, -0.05, 0.01
	want := math.Exp(-a * b / dt)
	const n = 100000
	hits := 0
	for k := range n {
		if bridgeMax(a, b, dt, (float64(k)+0.5)/n) > 0 {
			hits++
		}
	}
	if got := float64(hits) / n; math.Abs(got-want) > 2e-5 {
		t.Errorf("P(max > 0) = %v, want %v", got, want)
	}
}
