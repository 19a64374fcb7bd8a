package meanfield

import (
	"context"
	"math"
	"testing"
)

// TestLatticeLawConverges checks the deterministic method at beta = 0.5, 1
// and 2: the balance equations hold to 1e-12 relative (linear algebra);
// sanity: E[Qbar_1] = -beta (the lattice keeps it up to truncation); the
// Ito identities of the limit Var1 = 1 - beta E[Qbar_2]/2 and Cov12 = beta
// E[Qbar_2]/2 (sanity too: measured, every lattice satisfies them to 1e-10,
// so they check the code, not the discretisation); the lattice is first order: E[Qbar_2] changes by a
// factor in [0.45, 0.55] per halving of h.
func TestLatticeLawConverges(t *testing.T) {
	for _, beta := range []float64{0.5, 1, 2} {
		l, err := JSQDiffusionLawLimit(context.Background(), DiffusionLimitOptions{Beta: beta})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("beta = %v: E[Qbar_2] = %.7f ± %.1g, E[Qbar_1] = %.7f, Var1 = %.6f, Cov12 = %.6f, residual %.1g, edge mass %.1g",
			beta, l.Mean2.Value, l.Mean2.Numerical, l.Mean1.Value, l.Var1.Value, l.Cov12.Value, l.Residual, l.EdgeMass)
		if l.Residual > 1e-12 {
			t.Errorf("beta = %v: balance residual %v", beta, l.Residual)
		}
		if d := math.Abs(l.Mean1.Value + beta); d > l.Mean1.Numerical+1e-9 {
			t.Errorf("sanity: beta = %v: E[Qbar_1] = %v, want -beta within %v", beta, l.Mean1.Value, l.Mean1.Numerical)
		}
		tolV := l.Var1.Numerical + beta/2*l.Mean2.Numerical + 1e-9
		if d := math.Abs(l.Var1.Value - (1 - beta*l.Mean2.Value/2)); d > tolV {
			t.Errorf("sanity: beta = %v: Var1 = %v, identity gives %v (tolerance %v)", beta, l.Var1.Value, 1-beta*l.Mean2.Value/2, tolV)
		}
		tolC := l.Cov12.Numerical + beta/2*l.Mean2.Numerical + 1e-9
		if d := math.Abs(l.Cov12.Value - beta*l.Mean2.Value/2); d > tolC {
			t.Errorf("sanity: beta = %v: Cov12 = %v, identity gives %v (tolerance %v)", beta, l.Cov12.Value, beta*l.Mean2.Value/2, tolC)
		}
	}
	var prev, diff float64
	for k, h := range []float64{0.1, 0.05, 0.025, 0.0125} {
		l, err := JSQDiffusionLaw(context.Background(), DiffusionLawOptions{Beta: 1, H: h, L1: 11, L2: 25})
		if err != nil {
			t.Fatal(err)
		}
		if k > 1 {
			if r := (l.Mean2 - prev) / diff; r < 0.45 || r > 0.55 {
				t.Errorf("h = %v: ratio of successive changes %v, want about 1/2 (first order)", h, r)
			}
		}
		if k > 0 {
			diff = l.Mean2 - prev
		}
		prev = l.Mean2
	}
}

func TestLatticeLawBadInput(t *testing.T) {
	for _, o := range []DiffusionLawOptions{
		{Beta: 0, H: 0.1, L1: 5, L2: 5}, {Beta: 1, H: 0, L1: 5, L2: 5}, {Beta: 1, H: 0.1, L1: 0.1, L2: 5},
		{Beta: 1, H: 0.1, L1: 5, L2: math.Inf(1)}, {Beta: 1, H: 1e-4, L1: 100, L2: 100},
		{Beta: 30, H: 0.1, L1: 5, L2: 5}, // the box misses the law: no positive vector
	} {
		if _, err := JSQDiffusionLaw(context.Background(), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := JSQDiffusionLaw(ctx, DiffusionLawOptions{Beta: 1, H: 0.1, L1: 5, L2: 5}); err == nil {
		t.Error("cancelled: no error")
	}
	if _, _, err := Richardson([]float64{1, 1}, []float64{0, 0}, []float64{1}); err == nil {
		t.Error("Richardson with equal steps: no error")
	}
}

// TestRichardsonExact: a polynomial in h of the removed orders is
// extrapolated exactly.
func TestRichardsonExact(t *testing.T) {
	h := []float64{0.4, 0.2, 0.1}
	v := make([]float64, 3)
	for k, x := range h {
		v[k] = 3 + 2*math.Sqrt(x) - 5*x
	}
	got, w, err := Richardson(h, v, []float64{0.5, 1})
	if err != nil || math.Abs(got-3) > 1e-12 || math.Abs(w[0]+w[1]+w[2]-1) > 1e-12 {
		t.Errorf("Richardson = %v, weights %v, err %v; want 3", got, w, err)
	}
}
