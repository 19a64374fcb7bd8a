package meanfield

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestDiffusionMeanIdle checks E[Qbar_1] = -beta. The scheme keeps the
// identity exactly: summing the steps, the time average of Qbar_1 is -beta +
// (S_0 - S_T + sqrt(2) W_T)/T with S = Qbar_1 + Qbar_2, so its error is
// that of sqrt(2) W_T / T, standard deviation sqrt(2/T) (0.0045 at T = 1e5),
// plus O(1/T); the tolerance is 5 standard deviations.
func TestDiffusionMeanIdle(t *testing.T) {
	const T = 1e5
	for _, beta := range []float64{0.5, 1, 2} {
		r, err := SimulateJSQDiffusion(context.Background(), DiffusionOptions{
			Beta: beta, Dt: 0.01, Horizon: T, Warmup: 100, Seed: 7,
		})
		if err != nil {
			t.Fatal(err)
		}
		tol := 5 * math.Sqrt(2/(T-100))
		if math.Abs(r.Mean1+beta) > tol {
			t.Errorf("beta=%v: E[Qbar_1] = %.4f, want %v +- %.3f", beta, r.Mean1, -beta, tol)
		}
		// E[Qbar_2] = the rate of U, up to (Q2_T - Q2_warmup)/T.
		if math.Abs(r.Mean2-r.ReflectionRate) > 0.01 {
			t.Errorf("beta=%v: E[Qbar_2] = %.4f but rate of U = %.4f", beta, r.Mean2, r.ReflectionRate)
		}
		t.Logf("beta=%v: E[Qbar_1] = %.4f (want %v +- %.3f), E[Qbar_2] = %.4f, U rate %.4f",
			beta, r.Mean1, -beta, tol, r.Mean2, r.ReflectionRate)
	}
}

// coupled runs the scheme at step dt with Brownian increments that are the
// sums of `factor` increments of a stream at step dt/factor, so that runs with
// different dt see the same Brownian path.
func coupled(t *testing.T, beta, dt float64, factor int, seed uint64, T float64) *DiffusionResult {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	s := 1 / math.Sqrt(float64(factor))
	gauss := func() float64 {
		z := 0.0
		for range factor {
			z += r.NormFloat64()
		}
		return z * s
	}
	res, err := simulateDiffusion(context.Background(), DiffusionOptions{Beta: beta, Dt: dt, Horizon: T, Warmup: 50}, gauss)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDiffusionStepConvergence halves dt along one Brownian path. Reflection
// by projection makes the Euler scheme converge at order 1/2, so the change
// of E[Qbar_2] when dt halves should be about (1 - 1/sqrt(2)) C sqrt(dt) and
// shrink by about 1/sqrt(2) per halving.
func TestDiffusionStepConvergence(t *testing.T) {
	const beta, T = 1, 2e4
	dts := []float64{0.04, 0.02, 0.01, 0.005}
	means := make([]float64, len(dts))
	for k, dt := range dts {
		r := coupled(t, beta, dt, 1<<(len(dts)-1-k), 3, T)
		means[k] = r.Mean2
	}
	for k := 1; k < len(dts); k++ {
		change := math.Abs(means[k] - means[k-1])
		// Tolerance: 0.5 sqrt(dt), against the measured 0.24-0.33 sqrt(dt)
		// (beta = 1: 0.0489, 0.0403, 0.0325 for dt = 0.04, 0.02, 0.01).
		if tol := 0.5 * math.Sqrt(dts[k-1]); change > tol {
			t.Errorf("dt %v -> %v: E[Qbar_2] %.4f -> %.4f, change %.4f > %.4f", dts[k-1], dts[k], means[k-1], means[k], change, tol)
		}
		if k > 1 && change > 0.95*math.Abs(means[k-1]-means[k-2]) {
			t.Errorf("dt %v -> %v: change %.4f does not shrink (previous %.4f)", dts[k-1], dts[k], change, math.Abs(means[k-1]-means[k-2]))
		}
		t.Logf("dt %v -> %v: E[Qbar_2] %.5f -> %.5f, change %.5f (sqrt(dt) = %.3f)", dts[k-1], dts[k], means[k-1], means[k], change, math.Sqrt(dts[k-1]))
	}
}

func TestDiffusionDeterminism(t *testing.T) {
	opt := DiffusionOptions{Beta: 1, Dt: 0.01, Horizon: 200, Warmup: 10, Seed: 42, Grid: 1,
		Edges1: []float64{-4, -3, -2, -1, 0}, Edges2: []float64{0, 0.5, 1, 2, 4}}
	a, err := SimulateJSQDiffusion(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SimulateJSQDiffusion(context.Background(), opt)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different results")
	}
	opt.Seed = 43
	c, _ := SimulateJSQDiffusion(context.Background(), opt)
	if c.Mean1 == a.Mean1 {
		t.Error("different seeds, same mean")
	}
	if len(a.Times) != 201 || a.Times[200] != 200 || a.Path1[0] != 0 {
		t.Errorf("path grid: %d points, last %v", len(a.Times), a.Times[len(a.Times)-1])
	}
	for _, h := range []*Histogram{a.Hist1, a.Hist2} {
		s := h.Below + h.Above
		for _, f := range h.Fraction {
			s += f
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("histogram fractions sum to %v", s)
		}
	}
	if a.Hist1.Above != 0 {
		t.Errorf("Qbar_1 > 0 in a fraction %v of the steps", a.Hist1.Above)
	}
	for j := range a.Times {
		if a.Path1[j] > 0 || a.Path2[j] < 0 {
			t.Fatalf("path leaves Qbar_1 <= 0 <= Qbar_2 at t = %v", a.Times[j])
		}
	}
}

func TestDiffusionBadInput(t *testing.T) {
	good := DiffusionOptions{Beta: 1, Dt: 0.01, Horizon: 10}
	for _, mod := range []func(*DiffusionOptions){
		func(o *DiffusionOptions) { o.Beta = 0 },
		func(o *DiffusionOptions) { o.Dt = -1 },
		func(o *DiffusionOptions) { o.Horizon = math.NaN() },
		func(o *DiffusionOptions) { o.Warmup = 10 },
		func(o *DiffusionOptions) { o.Init = [2]float64{1, 0} },
		func(o *DiffusionOptions) { o.Grid = 0.001 },
		func(o *DiffusionOptions) { o.Edges1 = []float64{0, 0} },
	} {
		o := good
		mod(&o)
		if _, err := SimulateJSQDiffusion(context.Background(), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SimulateJSQDiffusion(ctx, DiffusionOptions{Beta: 1, Dt: 0.001, Horizon: 1000}); err == nil {
		t.Error("cancelled context: no error")
	}
}
