package cavity

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/lbsim/notebooks/lbsim/service"
)

func mustPredict(t *testing.T, lambda float64, d int, dist service.Distribution, o Options) *Prediction {
	t.Helper()
	p, err := Predict(context.Background(), lambda, d, dist, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s d=%d lambda=%g: %d iterations, converged %v, change %.2g, bias %.2g, accuracy %.2g, %d events, u = %.4f",
		dist, d, lambda, p.Iterations, p.Converged, p.Change, p.Bias, p.Accuracy, p.Events, p.U)
	return p
}

// Exponential service: the fixed point is lambda^(2^n-1). Tolerance: the
// stated accuracy (3 SE + bias) plus 1e-3.
func TestExponentialMatchesClosedForm(t *testing.T) {
	e, _ := service.Exponential(1)
	p := mustPredict(t, 0.9, 2, e, Options{Simulate: true, Seed: 1, Horizon: 1e6})
	want := InsensitivePrediction(0.9, 2, 1e-6)
	if !p.Converged {
		t.Errorf("did not converge")
	}
	tol := p.Accuracy + 1e-3
	for i := 0; i < max(len(want), len(p.U)); i++ {
		if d := math.Abs(at(p.U, i) - at(want, i)); d > tol {
			t.Errorf("u_%d = %.5f, want %.5f (tolerance %.5f)", i+1, at(p.U, i), at(want, i), tol)
		}
	}
	if p.Accuracy > 0.01 {
		t.Errorf("accuracy %.3g, want <= 0.01 at this horizon", p.Accuracy)
	}
}

// d = 1: independent M/G/1 queues. u_1 = rho, and the mean number in system
// is Pollaczek-Khinchine's rho + lambda^2 E[S^2] / (2(1-rho)).
func TestD1IsMG1(t *testing.T) {
	det, _ := service.Deterministic(1)
	bi, _ := service.Bimodal(1, 4)
	for _, dist := range []service.Distribution{det, bi} {
		const lambda = 0.7
		p := mustPredict(t, lambda, 1, dist, Options{Simulate: true, Seed: 2, Horizon: 2e6})
		pk := lambda + lambda*lambda*dist.SecondMoment()/(2*(1-lambda))
		// Mean length: 3 standard errors (bounded by the sum of the per-level
		// ones, as the levels are positively correlated) plus the truncation
		// at 1e-6 and 1% for the bias of finite runs.
		sumSE := 0.0
		for _, s := range p.SE {
			sumSE += s
		}
		tol := 3*sumSE + 0.01*pk
		if math.Abs(p.MeanLength-pk) > tol {
			t.Errorf("%s: mean length %.4f, Pollaczek-Khinchine %.4f (tolerance %.4f)", dist, p.MeanLength, pk, tol)
		} else {
			t.Logf("%s: mean length %.4f, Pollaczek-Khinchine %.4f (tolerance %.4f)", dist, p.MeanLength, pk, tol)
		}
		if math.Abs(p.U[0]-lambda) > p.Accuracy+1e-3 {
			t.Errorf("%s: u_1 = %.4f, want rho = %g", dist, p.U[0], lambda)
		}
	}
}

// Deterministic service at d = 2 gives a much lighter tail than exponential.
func TestDeterministicLighterTail(t *testing.T) {
	det, _ := service.Deterministic(1)
	p := mustPredict(t, 0.9, 2, det, Options{Simulate: true, Seed: 3, Horizon: 1e6})
	exp := InsensitivePrediction(0.9, 2, 1e-6)
	if !(at(p.U, 2)+p.Accuracy < exp[2]) {
		t.Errorf("deterministic u_3 = %.4f, not below exponential %.4f", at(p.U, 2), exp[2])
	}
	// u_1 = rho whatever the law (work conservation).
	if math.Abs(p.U[0]-0.9) > p.Accuracy+1e-3 {
		t.Errorf("u_1 = %.4f, want 0.9", p.U[0])
	}
}

func TestDeterministicResults(t *testing.T) {
	bi, _ := service.Bimodal(1, 4)
	o := Options{Simulate: true, Seed: 7, Horizon: 2e5, Replications: 4, Average: 2}
	a, err := Predict(context.Background(), 0.8, 2, bi, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Workers = 1
	b, err := Predict(context.Background(), 0.8, 2, bi, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.U, b.U) || !slices.Equal(a.SE, b.SE) || a.Iterations != b.Iterations || a.Events != b.Events {
		t.Errorf("same seed, different results: %v vs %v", a.U, b.U)
	}
	o.Seed = 8
	c, _ := Predict(context.Background(), 0.8, 2, bi, o)
	if slices.Equal(a.U, c.U) {
		t.Errorf("different seeds gave identical results")
	}
}

func TestInsensitiveAndRates(t *testing.T) {
	u := InsensitivePrediction(0.9, 2, 1e-9)
	for i, v := range u {
		if w := math.Pow(0.9, math.Pow(2, float64(i+1))-1); math.Abs(v-w) > 1e-15 {
			t.Errorf("u_%d = %v, want %v", i+1, v, w)
		}
	}
	if len(u) != 7 { // 0.9^127 = 1.5e-6, 0.9^255 = 2e-12
		t.Errorf("%d levels above 1e-9, want 7", len(u))
	}
	// At the exponential fixed point lambda_n u_n... detailed balance of the
	// birth-death chain: lambda_n (u_n - u_{n+1}) = u_{n+1} - u_{n+2}.
	rates := ArrivalRates(0.9, 2, u)
	full := append([]float64{1}, u...)
	for n := 0; n+2 < len(full); n++ {
		lhs := rates[n] * (full[n] - full[n+1])
		rhs := full[n+1] - full[n+2]
		if math.Abs(lhs-rhs) > 1e-12 {
			t.Errorf("balance at %d: %v vs %v", n, lhs, rhs)
		}
	}
	if r := ArrivalRates(0.7, 1, u); r[0] != 0.7 || r[5] != 0.7 {
		t.Errorf("d = 1 rates %v, want all 0.7", r)
	}
	if r := ArrivalRates(0.5, 3, []float64{0.4, 0.4}); math.Abs(r[1]-0.5*3*0.16) > 1e-15 {
		t.Errorf("equal levels: lambda_1 = %v, want %v", r[1], 0.5*3*0.16)
	}
}

func TestErrors(t *testing.T) {
	e, _ := service.Exponential(1)
	ctx := context.Background()
	for name, f := range map[string]func() error{
		"nil law":  func() error { _, err := Predict(ctx, 0.5, 2, nil, Options{}); return err },
		"unstable": func() error { _, err := Predict(ctx, 1, 2, e, Options{}); return err },
		"d = 0":    func() error { _, err := Predict(ctx, 0.5, 0, e, Options{}); return err },
		"reps = 1": func() error { _, err := Predict(ctx, 0.5, 2, e, Options{Simulate: true, Replications: 1}); return err },
		"damping":  func() error { _, err := Predict(ctx, 0.5, 2, e, Options{Simulate: true, Damping: 2}); return err },
		"residual": func() error { _, err := Predict(ctx, 0.5, 2, e, Options{Residual: 2}); return err },
		"depth":    func() error { _, err := Predict(ctx, 0.5, 2, e, Options{Depth: -1}); return err },
		"levels":   func() error { _, err := Predict(ctx, 0.5, 2, e, Options{MaxLevels: 2}); return err },
		"kernel":   func() error { _, err := Predict(ctx, 0.5, 2, e, Options{Kernel: 9}); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Predict(cctx, 0.5, 2, e, Options{Simulate: true}); err == nil {
		t.Errorf("cancelled context: no error")
	}
	p, _ := service.Parse("pareto:alpha=1.5")
	if _, err := Predict(cctx, 0.9, 2, p, Options{}); err == nil {
		t.Errorf("cancelled context (exact): no error")
	}
}
