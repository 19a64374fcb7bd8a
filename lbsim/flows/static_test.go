package flows

import (
	"math"
	"testing"
)

// One packet per flow: M/M/1, P(Q >= i) = lambda^i, D exponential with
// rate 1-lambda (to 1e-9: the truncation is at 1e-13).
func TestStaticExactMM1(t *testing.T) {
	for _, lambda := range []float64{0.3, 0.8, 0.95} {
		s, err := StaticExact(lambda, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !closeTo(s.MeanDelay, 1/(1-lambda), 1e-9) || !closeTo(s.MeanQueue, lambda/(1-lambda), 1e-9) {
			t.Errorf("lambda %v: E[D] %v E[Q] %v", lambda, s.MeanDelay, s.MeanQueue)
		}
		for i, q := range s.Occupancy[:10] {
			if !closeTo(q, math.Pow(lambda, float64(i+1)), 1e-9) {
				t.Errorf("lambda %v: q_%d = %v", lambda, i+1, q)
			}
		}
		for _, p := range []float64{0.5, 0.99, 0.9999} {
			if got, want := s.DelayQuantile(p), -math.Log(1-p)/(1-lambda); !closeTo(got, want, 1e-8*want) {
				t.Errorf("lambda %v: quantile %v = %v, want %v", lambda, p, got, want)
			}
		}
	}
}

// With flows: Little's law E[Q] = lambda E[D] (E[D] from the law seen by
// arriving packets, E[Q] from the time-stationary law), the mean flows in
// progress, and delays longer than M/M/1's.
func TestStaticExactFlows(t *testing.T) {
	for _, c := range []struct{ lambda, m, r float64 }{{0.5, 3, 1}, {0.8, 10, 1}, {0.8, 100, 0.1}, {0.9, 20, 2}} {
		s, err := StaticExact(c.lambda, c.m, c.r)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: E[D] %.6g E[Q] %.6g rho(R) %.6g phases %d levels %d p99 %.4g", c, s.MeanDelay, s.MeanQueue, s.SpectralRadius, s.MaxFlows+1, len(s.arrivalTail), s.DelayQuantile(0.99))
		if !closeTo(s.MeanQueue, c.lambda*s.MeanDelay, 1e-8*s.MeanQueue) {
			t.Errorf("%+v: Little: E[Q] %v, lambda E[D] %v", c, s.MeanQueue, c.lambda*s.MeanDelay)
		}
		if !(s.MeanDelay > 1/(1-c.lambda)) {
			t.Errorf("%+v: E[D] %v not above M/M/1's %v", c, s.MeanDelay, 1/(1-c.lambda))
		}
	}
}

// As the packet rate grows a flow arrives as a batch: the M^X/M/1 queue
// with geometric batches of mean m, P(Q >= n) = lambda z^(n-1) with
// z = 1 - (1-lambda)/m and mean delay m/(1-lambda). At r = 10^4 the
// exact solution is within 0.1% of it (a flow's packets then arrive within
// m/r = 10^-3 of each other).
func TestStaticExactBatchLimit(t *testing.T) {
	for _, c := range []struct{ lambda, m float64 }{{0.5, 4}, {0.8, 10}} {
		s, err := StaticExact(c.lambda, c.m, 1e4)
		if err != nil {
			t.Fatal(err)
		}
		z := 1 - (1-c.lambda)/c.m
		if want := c.m / (1 - c.lambda); !closeTo(s.MeanDelay, want, 1e-3*want) {
			t.Errorf("%+v: E[D] %v, batch limit %v", c, s.MeanDelay, want)
		}
		for _, n := range []int{1, 5, 20} {
			if want := c.lambda * math.Pow(z, float64(n-1)); !closeTo(s.Occupancy[n-1], want, 1e-3*want) {
				t.Errorf("%+v: P(Q >= %d) = %v, batch limit %v", c, n, s.Occupancy[n-1], want)
			}
		}
		if !closeTo(s.SpectralRadius, z, 1e-4) {
			t.Errorf("%+v: rho(R) %v, batch limit %v", c, s.SpectralRadius, z)
		}
	}
}
