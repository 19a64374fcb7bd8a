package meanfield

import (
	"context"
	"math"
	"testing"
)

// TestDiffusionProcess: from the scaled start (Qbar_1, Qbar_2) = (0, 3) at
// beta = 1 (bridge, dt = 0.02 and 0.01 extrapolated; 1600 runs to t = 31 for
// the path, seed 32, 16 runs of 4000 for the autocovariance, seed 31): sanity, the mean path starts at the initial condition; the mean path
// at t = 30 (measured: still 0.16 above at t = 15) and the stationary
// autocovariance at lag 0 agree with the lattice's E[Qbar_i] and Var(Qbar_i)
// at level 0.001 each (zCheck); the autocovariance of Qbar_2 decreases over
// the lags 0..5 and is below half its lag-0 value at lag 5. Control: the
// mean path of Qbar_2 at t = 1 (still far from stationary) is rejected
// against the stationary E[Qbar_2] by the same check.
func TestDiffusionProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("1e7 Euler steps")
	}
	p, err := JSQDiffusionProcess(context.Background(), EulerLimitOptions{Beta: 1, Scheme: SchemeBridge, Dts: []float64{0.02, 0.01},
		Horizon: 4000, Warmup: 100, Replications: 16, Seed: 31, Init: [2]float64{0, 3}, Until: 15, Grid: 1, Lags: 5})
	if err != nil {
		t.Fatal(err)
	}
	l, err := JSQDiffusionLawLimit(context.Background(), DiffusionLimitOptions{Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Mean1[0].Value != 0 || p.Mean2[0].Value != 3 || p.Mean1[0].SE != 0 {
		t.Errorf("sanity: mean path at 0 = (%v, %v), want (0, 3)", p.Mean1[0].Value, p.Mean2[0].Value)
	}
	check := func(what string, e, ref Estimate, wantAgree bool) {
		se := math.Hypot(e.SE, ref.SE)
		tol := zCheck*se + e.Numerical + ref.Numerical
		d := math.Abs(e.Value - ref.Value)
		t.Logf("%s: Euler %.4f ± %.4f (SE), lattice %.5f: |diff| %.4f, tolerance %.4f, d80 %.4f",
			what, e.Value, e.SE, ref.Value, d, tol, (zCheck+0.8416)*se)
		if (d <= tol) != wantAgree {
			t.Errorf("%s: agreement %v, want %v", what, d <= tol, wantAgree)
		}
	}
	// The mean path from 1600 short runs (one value per run and time).
	m, err := JSQDiffusionProcess(context.Background(), EulerLimitOptions{Beta: 1, Scheme: SchemeBridge, Dts: []float64{0.02, 0.01},
		Horizon: 31, Warmup: 30, Replications: 1600, Seed: 32, Init: [2]float64{0, 3}, Until: 30, Grid: 1})
	if err != nil {
		t.Fatal(err)
	}
	last := len(m.Times) - 1
	check("E[Qbar_1(30)]", m.Mean1[last], l.Mean1, true)
	check("E[Qbar_2(30)]", m.Mean2[last], l.Mean2, true)
	check("control: E[Qbar_2(1)]", m.Mean2[1], l.Mean2, false)
	for j := 0; j <= last; j += 6 {
		t.Logf("t = %v: E[Qbar_1] = %.3f ± %.3f, E[Qbar_2] = %.3f ± %.3f", m.Times[j], m.Mean1[j].Value, m.Mean1[j].SE, m.Mean2[j].Value, m.Mean2[j].SE)
	}
	check("autocov1(0)", p.Autocov1[0], l.Var1, true)
	check("autocov2(0)", p.Autocov2[0], l.Var2, true)
	for k := 1; k < len(p.Lags); k++ {
		t.Logf("lag %v: autocov1 %.4f ± %.4f, autocov2 %.4f ± %.4f", p.Lags[k], p.Autocov1[k].Value, p.Autocov1[k].SE, p.Autocov2[k].Value, p.Autocov2[k].SE)
		if p.Autocov2[k].Value >= p.Autocov2[k-1].Value {
			t.Errorf("autocov2 does not decrease at lag %v", p.Lags[k])
		}
	}
	if a := p.Autocov2[len(p.Lags)-1].Value; a > p.Autocov2[0].Value/2 {
		t.Errorf("autocov2(5) = %v above half of autocov2(0) = %v", a, p.Autocov2[0].Value)
	}
}
