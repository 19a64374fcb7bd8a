package cavity

import (
	"context"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim/service"
)

func mustExact(t *testing.T, spec string, lambda float64, d int, o Options) *Prediction {
	t.Helper()
	dist, err := service.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Predict(context.Background(), lambda, d, dist, o)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Converged || p.Method != "exact" {
		t.Fatalf("%s: converged %v, method %q", spec, p.Converged, p.Method)
	}
	t.Logf("%s %s d=%d lambda=%g: K=%d, %d iterations, residual %.2g, q %.3f, errors %.2g + %.2g + %.2g = %.2g, u = %.8f",
		spec, o.Kernel, d, lambda, p.Levels, p.Iterations, p.Residual, p.Contraction, p.IterationError, p.Truncation, p.Quadrature, p.Accuracy, p.U[:min(8, len(p.U))])
	return p
}

func agreeWithin(t *testing.T, name string, a, b []float64, tol float64) {
	t.Helper()
	for i := 0; i < max(len(a), len(b)); i++ {
		if d := math.Abs(at(a, i) - at(b, i)); d > tol {
			t.Errorf("%s: u_%d = %.12f vs %.12f, |diff| %.2g > %.2g", name, i+1, at(a, i), at(b, i), d, tol)
		}
	}
}

// Exponential service: the fixed point is rho^((d^n-1)/(d-1)), by every
// kernel that can integrate it (mixture, Kronecker phase-type,
// uniformization), within the stated accuracy.
func TestExactExponential(t *testing.T) {
	for _, d := range []int{2, 3} {
		for _, k := range []Kernel{KernelAuto, KernelExpm, KernelUniformization} {
			p := mustExact(t, "exp", 0.9, d, Options{Kernel: k, Depth: 1e-12})
			want := InsensitivePrediction(0.9, d, 1e-300)
			agreeWithin(t, "exp "+k.String(), p.U, want[:min(len(want), len(p.U))], p.Accuracy+1e-14)
			if p.Accuracy > 1e-8 {
				t.Errorf("exp %s: accuracy %.2g", k, p.Accuracy)
			}
		}
	}
	// Mean 2 at lambda 0.4: the load 0.8 is what enters.
	p := mustExact(t, "exp:mean=2", 0.4, 2, Options{})
	agreeWithin(t, "exp mean 2", p.U[:6], InsensitivePrediction(0.8, 2, 1e-300)[:6], p.Accuracy+1e-14)
}

// The bar: FIFO JSQ(2) at lambda = 0.9 under deterministic and Lomax (alpha =
// 3) service by two independent computations (matrix exponential against
// the Poisson series for the atom; the Gamma mixture of exponentials against
// the Poisson series with quadrature of the Lomax density) agree within the
// sum of their stated accuracies, which is below 1e-3.
func TestExactIndependentKernels(t *testing.T) {
	for _, spec := range []string{"det", "pareto:alpha=3", "bimodal:scv=4", "erlang:k=3"} {
		a := mustExact(t, spec, 0.9, 2, Options{})
		b := mustExact(t, spec, 0.9, 2, Options{Kernel: KernelUniformization, Depth: 1e-10})
		tol := a.Accuracy + b.Accuracy
		if tol > 1e-3 {
			t.Errorf("%s: stated accuracies %.2g + %.2g above 1e-3", spec, a.Accuracy, b.Accuracy)
		}
		agreeWithin(t, spec, a.U[:8], b.U[:8], tol)
		// Work conservation: u_1 = rho, up to the truncation.
		if d := math.Abs(a.U[0] - 0.9); d > a.Accuracy+1e-12 {
			t.Errorf("%s: u_1 = %.12f, want 0.9", spec, a.U[0])
		}
	}
}

// d = 1 is the M/G/1 queue: mean length Pollaczek-Khinchine's
// rho + lambda^2 E[S^2]/(2(1-rho)), to 1e-8 (the Lomax law of alpha = 5 has
// a queue-length tail n^-4 under d = 1, cut at 4096 levels).
func TestExactMG1(t *testing.T) {
	for _, spec := range []string{"det", "bimodal:scv=4", "pareto:alpha=5", "hyperexp:scv=4", "erlang:k=4", "weibull:shape=2", "lognormal:sigma=0.5"} {
		dist, _ := service.Parse(spec)
		const lambda = 0.7
		p := mustExact(t, spec, lambda, 1, Options{})
		pk := lambda + lambda*lambda*dist.SecondMoment()/(2*(1-lambda))
		if d := math.Abs(p.MeanLength - pk); d > 1e-8 {
			t.Errorf("%s: mean length %.12f, Pollaczek-Khinchine %.12f", spec, p.MeanLength, pk)
		}
	}
}

// PS and LIFO-PR are insensitive, FIFO is not: the exact FIFO fixed point for
// deterministic service is lighter than rho^(2^n-1) from u_2 on, by far more
// than the stated accuracy, and the Lomax one heavier.
func TestExactSensitiveUnderFIFO(t *testing.T) {
	ins := InsensitivePrediction(0.9, 2, 1e-300)
	det := mustExact(t, "det", 0.9, 2, Options{})
	lom := mustExact(t, "pareto:alpha=3", 0.9, 2, Options{})
	for n := 1; n < 5; n++ {
		if !(det.U[n]+1e3*det.Accuracy < ins[n]) || !(lom.U[n]-1e3*lom.Accuracy > ins[n]) {
			t.Errorf("u_%d: det %.6f, insensitive %.6f, Lomax %.6f", n+1, det.U[n], ins[n], lom.U[n])
		}
	}
}

// Heavy tails: Lomax alpha = 1.5 (below d/(d-1) = 2) has a power-law tail,
// so the solver reaches MaxLevels with a stated truncation error; its deep
// tail decays like n^-gamma with gamma near (alpha-1)/(2-alpha) = 1.
func TestExactHeavyTail(t *testing.T) {
	p := mustExact(t, "pareto:alpha=1.5", 0.9, 2, Options{MaxLevels: 1024})
	if p.Levels != 1024 || !(p.Truncation > 0) || p.Truncation > 0.01 {
		t.Errorf("levels %d, truncation %.2g", p.Levels, p.Truncation)
	}
	slope := math.Log(p.U[399]/p.U[99]) / math.Log(4)
	t.Logf("log-log slope of u_n, n = 100..400: %.3f", slope)
	if !(slope < -0.7 && slope > -1.3) {
		t.Errorf("slope %.3f, want about -1", slope)
	}
}
