package flows

import (
	"math"
	"strings"
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

// One packet per flow under per-server speeds: server i is M/M/1 with
// arrival rate lambda and service rate mu_i, so a packet's delay is the
// equal-weight mixture of exponentials of rates mu_i - lambda,
// E[D] = mean of 1/(mu_i - lambda), q_i = mean of (lambda/mu_i)^i
// (ratesMM1; to 1e-9, and E[Q] = lambda E[D]; the quantiles to a relative
// 1e-9 of the closed-form CCDF at them).
func TestStaticExactRatesMM1(t *testing.T) {
	for _, c := range []struct {
		lambda float64
		rates  []float64
	}{
		{0.4, []float64{0.5, 1.5, 0.5, 1.5}},
		{0.3, []float64{0.6, 1, 2, 2, 0.6, 1.4}},
		{0.8, []float64{1, 1, 1}},
	} {
		s, err := StaticExactRates(c.lambda, 1, 1, c.rates)
		if err != nil {
			t.Fatal(err)
		}
		cf := ratesMM1{c.lambda, c.rates}
		meanD, meanQ := cf.meanDelay(), c.lambda*cf.meanDelay()
		if !closeTo(s.MeanDelay, meanD, 1e-9*meanD) || !closeTo(s.MeanQueue, meanQ, 1e-9*meanQ) {
			t.Errorf("%+v: E[D] %v E[Q] %v, want %v and %v", c, s.MeanDelay, s.MeanQueue, meanD, meanQ)
		}
		for i, q := range s.Occupancy[:10] {
			if want := cf.occupancy(i + 1); !closeTo(q, want, 1e-9) {
				t.Errorf("%+v: q_%d = %v, want %v", c, i+1, q, want)
			}
		}
		for _, x := range []float64{0.5, 3, 20} {
			if got, want := s.DelayCCDF(x), cf.ccdf(x); !closeTo(got, want, 1e-9*want) {
				t.Errorf("%+v: P(D > %v) = %v, want %v", c, x, got, want)
			}
		}
		for _, p := range []float64{0.5, 0.9, 0.99, 0.999, 0.9999} {
			if x := s.DelayQuantile(p); !closeTo(cf.ccdf(x), 1-p, 1e-9*(1-p)) {
				t.Errorf("%+v: quantile %v = %v, where the closed-form P(D > x) = %v", c, p, x, cf.ccdf(x))
			}
		}
	}
	for _, c := range []struct {
		lambda float64
		rates  []float64
		want   string
	}{
		{0.5, []float64{0.5, 1.5}, "lambda = 0.5: must be below every rate (rates[0] = 0.5)"},
		{0.4, []float64{1, math.NaN()}, "rates[1] = NaN: must be a finite rate > 0"},
		{0.4, nil, "rates: none given"},
	} {
		if _, err := StaticExactRates(c.lambda, 1, 1, c.rates); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, %v: %v, want %q", c.lambda, c.rates, err, c.want)
		}
	}
}

// With long flows sent fast (r = 10^4) a server of rate mu is the M^X/M/1
// queue with geometric batches of mean m at load lambda/mu: mean delay
// m/(mu - lambda), P(Q >= n) = (lambda/mu) z^(n-1), z = 1 - (1-lambda/mu)/m;
// over speeds the mixture of those (within 0.1%, as for one rate).
func TestStaticExactRatesBatchLimit(t *testing.T) {
	const lambda, m = 0.5, 4
	rates := []float64{0.75, 0.75, 2.25, 2.25}
	s, err := StaticExactRates(lambda, m, 1e4, rates)
	if err != nil {
		t.Fatal(err)
	}
	var meanD float64
	occ := make([]float64, 20)
	for _, mu := range rates {
		meanD += m / (mu - lambda) / 4
		z := 1 - (1-lambda/mu)/m
		for n := range occ {
			occ[n] += lambda / mu * math.Pow(z, float64(n)) / 4
		}
	}
	if !closeTo(s.MeanDelay, meanD, 1e-3*meanD) {
		t.Errorf("E[D] %v, batch limit %v", s.MeanDelay, meanD)
	}
	for _, n := range []int{1, 5, 20} {
		if !closeTo(s.Occupancy[n-1], occ[n-1], 1e-3*occ[n-1]) {
			t.Errorf("q_%d = %v, batch limit %v", n, s.Occupancy[n-1], occ[n-1])
		}
	}
}
