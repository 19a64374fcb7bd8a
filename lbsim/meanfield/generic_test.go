package meanfield

import (
	"context"
	"math"
	"testing"
)

func TestFixedPointJSQdClosedForm(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		lambda float64
		d      int
	}{{0.5, 2}, {0.9, 2}, {0.95, 3}, {0.99, 2}} {
		K, _, err := Levels(c.lambda, c.d, 1e-14, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := JSQdDrift(c.lambda, c.d)
		q, res, err := FixedPoint(ctx, f, K, nil)
		if err != nil {
			t.Fatalf("lambda=%v d=%d: %v", c.lambda, c.d, err)
		}
		want, _, _ := JSQdFixedPoint(c.lambda, c.d, 1e-300)
		diff := maxAbsDiff(q, want[:K])
		if diff > 1e-10 {
			t.Errorf("lambda=%v d=%d K=%d: |q - closed form| = %.3g (residual %.2g)", c.lambda, c.d, K, diff, res)
		}
		t.Logf("lambda=%v d=%d K=%d: |q - closed form| = %.2g, residual %.2g", c.lambda, c.d, K, diff, res)
	}
}

func TestFixedPointRandom(t *testing.T) {
	for _, lambda := range []float64{0.3, 0.7} {
		const K = 120
		f, _ := RandomDrift(lambda)
		q, res, err := FixedPoint(context.Background(), f, K, nil)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i := range q {
			worst = math.Max(worst, math.Abs(q[i]-math.Pow(lambda, float64(i+1))))
		}
		if worst > 1e-10 {
			t.Errorf("lambda=%v: |q - lambda^i| = %.3g (residual %.2g)", lambda, worst, res)
		}
	}
}

// TestFixedPointFallback makes Newton find a root outside [0, 1], which
// FixedPoint must reject and replace by integration: y' = (y - 0.4)(y - 2)
// from y = 1.5, where Newton jumps to 2.42 and converges to the unstable root
// 2, while the flow goes to the stable root 0.4.
func TestFixedPointFallback(t *testing.T) {
	f := System(func(_ float64, y, dy []float64) {
		dy[0] = (y[0] - 0.4) * (y[0] - 2)
		dy[1] = 0.5 - y[1]
	})
	if q, _ := newton(f, []float64{1.5, 0}); math.Abs(q[0]-2) > 1e-9 {
		t.Fatalf("Newton alone gives %v, expected the spurious root 2", q)
	}
	q, res, err := FixedPoint(context.Background(), f, 2, []float64{1.5, 0})
	if err != nil || math.Abs(q[0]-0.4) > 1e-12 || math.Abs(q[1]-0.5) > 1e-12 || res > 1e-13 {
		t.Errorf("q = %v, residual %.2g, err %v; want (0.4, 0.5)", q, res, err)
	}
	if _, _, err := FixedPoint(context.Background(), nil, 2, nil); err == nil {
		t.Error("nil drift: no error")
	}
	if _, _, err := FixedPoint(context.Background(), f, 0, nil); err == nil {
		t.Error("levels 0: no error")
	}
}

func TestMetrics(t *testing.T) {
	q, _, _ := JSQdFixedPoint(0.9, 2, 1e-300)
	T, _ := JSQdMeanSojourn(0.9, 2)
	if got := MeanSojourn(q, 0.9); math.Abs(got-T) > 1e-12 {
		t.Errorf("MeanSojourn = %v, want %v", got, T)
	}
	if got := MeanTasks(q); math.Abs(got-0.9*T) > 1e-12 {
		t.Errorf("MeanTasks = %v, want %v", got, 0.9*T)
	}
	if got := WaitProbability(q, 2); math.Abs(got-0.81) > 1e-15 {
		t.Errorf("WaitProbability = %v, want 0.81", got)
	}
	if WaitProbability(nil, 2) != 0 {
		t.Error("WaitProbability(nil) != 0")
	}
}

func TestHeterogeneousReducesToJSQd(t *testing.T) {
	const lambda, d, K = 0.8, 3, 10
	ref, _ := JSQdDrift(lambda, d)
	one, err := HeterogeneousJSQdDrift(lambda, d, []float64{1}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	two, err := HeterogeneousJSQdDrift(lambda, d, []float64{0.3, 0.7}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range [][]float64{
		{1, 1, 0.5, 0.2, 0.2, 0.1, 0, 0, 0, 0},
		{0.9, 0.6, 0.3, 0.1, 0.05, 0.01, 0.001, 0, 0, 0},
	} {
		want := make([]float64, K)
		ref(0, q, want)
		got := make([]float64, K)
		one(0, q, got)
		if d := maxAbsDiff(got, want); d > 1e-15 {
			t.Errorf("one class: drift differs by %.3g", d)
		}
		q2 := make([]float64, 2*K)
		for i := range q {
			q2[i], q2[K+i] = 0.3*q[i], 0.7*q[i]
		}
		got2 := make([]float64, 2*K)
		two(0, q2, got2)
		for i := range want {
			if e := math.Abs(got2[i]+got2[K+i]-want[i]) + math.Abs(got2[i]-0.3*want[i]); e > 1e-14 {
				t.Errorf("two identical classes, level %d: %v + %v != %v", i+1, got2[i], got2[K+i], want[i])
			}
		}
	}
}

func TestHeterogeneousFlowBalance(t *testing.T) {
	gamma, mu := []float64{0.5, 0.5}, []float64{0.8, 1.6} // capacity 1.2
	const lambda, d, K = 0.9, 2, 30
	f, err := HeterogeneousJSQdDrift(lambda, d, gamma, mu)
	if err != nil {
		t.Fatal(err)
	}
	// Integrate to stationarity from empty, then compare with FixedPoint.
	sol, err := Integrate(context.Background(), f, make([]float64, 2*K), []float64{0, 400}, Options{RelTol: 1e-10, AbsTol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	q := sol.Y[1]
	flow := mu[0]*q[0] + mu[1]*q[K]
	if math.Abs(flow-lambda) > 1e-8 {
		t.Errorf("sum_c mu_c q_{c,1} = %v, want lambda = %v", flow, lambda)
	}
	fp, res, err := FixedPoint(context.Background(), f, 2*K, q)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(fp, q); d > 1e-7 {
		t.Errorf("FixedPoint differs from the integrated state by %.3g", d)
	}
	flow = mu[0]*fp[0] + mu[1]*fp[K]
	if math.Abs(flow-lambda) > 1e-11 {
		t.Errorf("at FixedPoint: flow %v, want %v", flow, lambda)
	}
	// JSQ(d) ignores the rates, so the slow servers hold more tasks each.
	slow, fast := MeanTasks(fp[:K])/gamma[0], MeanTasks(fp[K:])/gamma[1]
	if !(slow > fast) {
		t.Errorf("tasks per slow server %v <= per fast server %v", slow, fast)
	}
	t.Logf("flow %v, residual %.2g; busy slow %.4f fast %.4f; tasks/server slow %.4f fast %.4f",
		flow, res, fp[0]/gamma[0], fp[K]/gamma[1], slow, fast)
}

func TestHeterogeneousBadInput(t *testing.T) {
	for _, c := range []struct{ gamma, mu []float64 }{
		{nil, nil}, {[]float64{1}, []float64{1, 2}}, {[]float64{0.5, 0.4}, []float64{1, 1}},
		{[]float64{-0.5, 1.5}, []float64{1, 1}}, {[]float64{1}, []float64{0}},
	} {
		if _, err := HeterogeneousJSQdDrift(0.5, 2, c.gamma, c.mu); err == nil {
			t.Errorf("gamma %v mu %v: no error", c.gamma, c.mu)
		}
	}
}
