package meanfield

import (
	"context"
	"math"
	"testing"
)

// fluidPath integrates drift from q0 on a grid of n+1 points to tEnd.
func fluidPath(t *testing.T, drift System, q0 []float64, K int, tEnd float64, n int) *Path {
	t.Helper()
	p, err := Trajectory(context.Background(), drift, q0, grid(0, tEnd, n+1), K, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func fluidDrifts(t *testing.T, lambda float64) map[string]System {
	t.Helper()
	jsq, err := JSQDrift(lambda)
	if err != nil {
		t.Fatal(err)
	}
	jiq, err := JIQDrift(lambda)
	if err != nil {
		t.Fatal(err)
	}
	jiq2, err := JIQdDrift(lambda, 2)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]System{"jsq": jsq, "jiq": jiq, "jiq(2)": jiq2}
}

func TestFluidFromEmpty(t *testing.T) {
	for _, lambda := range []float64{0.5, 0.9, 0.99} {
		for name, f := range fluidDrifts(t, lambda) {
			p := fluidPath(t, f, nil, 10, 60, 60)
			end := p.Y[len(p.Y)-1]
			want := make([]float64, 10)
			want[0] = lambda
			// From empty, q_1 = lambda (1 - e^-t) and the rest stay 0.
			if d := maxAbsDiff(end, want); d > 1e-7 {
				t.Errorf("%s lambda=%v: q(60) = %v, want (lambda, 0, ...) (diff %.3g)", name, lambda, end[:3], d)
			}
			for j, tj := range p.Times {
				if d := math.Abs(p.Y[j][0] - lambda*(1-math.Exp(-tj))); d > 1e-7 {
					t.Fatalf("%s: q_1(%v) off the closed form by %.3g", name, tj, d)
				}
			}
			if p.OrderViolation > 1e-9 {
				t.Errorf("%s: order violation %.3g", name, p.OrderViolation)
			}
		}
	}
}

// TestFluidLoadedStartDrains starts with three full levels and checks that the
// excess drains to (lambda, 0, ...), that q stays ordered in [0, 1], and the
// mass balance d/dt sum q_i = lambda - q_1 along the solution (Simpson's rule
// on the dense output).
func TestFluidLoadedStartDrains(t *testing.T) {
	// K = 40: JIQ spreads its excess over all levels while q_1 = 1, and a
	// lower cap would lose mass over the top.
	const lambda, K = 0.9, 40
	q0 := []float64{1, 1, 1, 0.5, 0.2}
	for name, f := range fluidDrifts(t, lambda) {
		const n = 20000
		p := fluidPath(t, f, q0, K, 200, n)
		end := p.Y[n]
		if end[0]-lambda > 1e-8 || math.Abs(end[0]-lambda) > 1e-6 || MeanTasks(end[1:]) > 1e-6 {
			t.Errorf("%s: q(200) = %.6g, want (0.9, 0, ...)", name, end[:4])
		}
		if p.OrderViolation > 1e-7 {
			t.Errorf("%s: order violation %.3g", name, p.OrderViolation)
		}
		// Mass balance: sum q(t) - sum q(0) = int_0^t (lambda - q_1).
		h := p.Times[1] - p.Times[0]
		worst := 0.0
		integral := 0.0
		for j := 2; j <= n; j += 2 {
			integral += h / 3 * ((lambda - p.Y[j-2][0]) + 4*(lambda-p.Y[j-1][0]) + (lambda - p.Y[j][0]))
			worst = math.Max(worst, math.Abs(MeanTasks(p.Y[j])-MeanTasks(p.Y[0])-integral))
		}
		if worst > 1e-6 {
			t.Errorf("%s: mass balance off by %.3g", name, worst)
		}
		t.Logf("%s: q(200)_1 = %.10f, mass-balance error %.2g, order violation %.2g, %d steps (%d rejected)",
			name, end[0], worst, p.OrderViolation, p.Steps, p.Rejected)
	}
}

// TestJSQFluidPhases checks the first phase of the JSQ fluid from (1, 1, 0.5)
// in closed form: levels 1 and 2 are full, level 2's departures (rate 1 - q_3)
// are refilled and the overflow lambda - (1 - q_3) joins level 3, so dq_3/dt =
// lambda - (1 - q_3) - q_3 = lambda - 1: q_3 = 0.5 - (1 - lambda) t, until
// 1 - q_3 = lambda at t = 4 (lambda = 0.9); after that q_2 leaves 1.
func TestJSQFluidPhases(t *testing.T) {
	const lambda = 0.9
	f, _ := JSQDrift(lambda)
	p := fluidPath(t, f, []float64{1, 1, 0.5}, 6, 6, 600)
	for j, tj := range p.Times {
		q := p.Y[j]
		if tj <= 4 {
			want := []float64{1, 1, 0.5 - (1-lambda)*tj, 0, 0, 0}
			if d := maxAbsDiff(q, want); d > 1e-7 { // the step across the switch at t = 4 overshoots by ~4e-8
				t.Fatalf("t=%v: q = %v, want %v", tj, q[:3], want[:3])
			}
		} else if tj > 4.1 && !(q[1] < 1-1e-4 && math.Abs(q[0]-1) < 1e-8) {
			t.Fatalf("t=%v: q = %v, want q_1 = 1 > q_2", tj, q[:3])
		}
	}
}

func TestFluidFixedPoint(t *testing.T) {
	for _, lambda := range []float64{0.3, 0.9} {
		for name, f := range fluidDrifts(t, lambda) {
			q, res, err := FixedPoint(context.Background(), f, 8, []float64{1, 1, 0.5})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := make([]float64, 8)
			want[0] = lambda
			if d := maxAbsDiff(q, want); d > 1e-10 {
				t.Errorf("%s lambda=%v: fixed point %v (residual %.2g), want (lambda, 0, ...)", name, lambda, q[:3], res)
			}
		}
	}
}

func TestFluidBadInput(t *testing.T) {
	if _, err := JSQDrift(-1); err == nil {
		t.Error("JSQDrift(-1): no error")
	}
	if _, err := JIQdDrift(0.5, 0); err == nil {
		t.Error("JIQdDrift(0.5, 0): no error")
	}
}
