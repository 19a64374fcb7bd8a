package flows

import (
	"fmt"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim/evidence"
	"github.com/lbsim/notebooks/lbsim/service"
)

// ratesMM1 is the closed form of one packet per flow with per-server speeds
// when every server receives a Poisson stream of rate lambda (static
// hashing, or any uniform per-packet routing that ignores the queues):
// independent M/M/1 queues, server i of service rate mu_i, so a packet's
// delay is the equal-weight mixture of exponentials of rates mu_i - lambda
// and q_k is the mean over servers of (lambda/mu_i)^k.
type ratesMM1 struct {
	lambda float64
	rates  []float64
}

func (c ratesMM1) meanDelay() float64 {
	sum := 0.0
	for _, mu := range c.rates {
		sum += 1 / (mu - c.lambda)
	}
	return sum / float64(len(c.rates))
}

func (c ratesMM1) ccdf(x float64) float64 {
	sum := 0.0
	for _, mu := range c.rates {
		sum += math.Exp(-(mu - c.lambda) * x)
	}
	return sum / float64(len(c.rates))
}

func (c ratesMM1) quantile(p float64) float64 { return quantileOf(c.ccdf, p) }

func (c ratesMM1) occupancy(k int) float64 {
	sum := 0.0
	for _, mu := range c.rates {
		sum += math.Pow(c.lambda/mu, float64(k))
	}
	return sum / float64(len(c.rates))
}

// twoSpeeds returns n rates, the first half lo and the rest hi.
func twoSpeeds(n int, lo, hi float64) []float64 {
	rates := make([]float64, n)
	for i := range rates {
		rates[i] = hi
		if i < n/2 {
			rates[i] = lo
		}
	}
	return rates
}

// figureCheck is one figure of a replication compared with its reference,
// needing to see a deviation of need times the reference.
type figureCheck struct {
	name      string
	of        func(RepResult) float64
	ref, need float64
}

// replicationsOf is the estimate of a figure from the replications of res.
func replicationsOf(res *Result, of func(RepResult) float64) evidence.Estimate {
	xs := make([]float64, len(res.PerReplication))
	for r, rr := range res.PerReplication {
		xs[r] = of(rr)
	}
	return evidence.Replications(xs)
}

// agreeAll tests every figure against its reference with evidence.Agree at
// the family level 1% (Bonferroni: 1%/len(checks) each), logs each line and
// fails the test when one is rejected or cannot see its need (Weak).
func agreeAll(t *testing.T, res *Result, checks []figureCheck) {
	t.Helper()
	level := 0.01 / float64(len(checks))
	for _, c := range checks {
		o := evidence.Agree(replicationsOf(res, c.of), evidence.Exact(c.ref, 1e-9), evidence.Spec{Level: level, Need: c.need * c.ref})
		t.Log(o.Describe(c.name))
		if !o.Holds || o.Weak {
			t.Errorf("%s: holds %v, weak %v", c.name, o.Holds, o.Weak)
		}
	}
}

// quantileOfRep returns the figure of the i-th delay quantile.
func quantileOfRep(i int) func(RepResult) float64 {
	return func(rr RepResult) float64 { return rr.DelayQuantiles[i] }
}

func meanDelayOf(rr RepResult) float64 { return rr.MeanDelay }

// Static hashing with one packet per flow under two server speeds is a set
// of independent M/M/1 queues (ratesMM1). N = 300, half the servers at rate
// 0.5 and half at 1.5 (mean 1), lambda = 0.4 (the slow servers at load 0.8);
// 16 replications of 12000 time units after 2000 of warm-up (the slow
// servers relax in about 180). The mean delay, the five default quantiles
// and q_1, q_2 each pass evidence.Agree at the family level 1%, and each
// must see a deviation of at most: 3% of the mean delay, 2% of the median,
// 3% of p90, 5% of p99, 10% of p99.9 and p99.99, 1% of q_1 and q_2.
// Negative controls, on the same replications: the closed form of the load
// 1% too high (mean delay 3.9% higher) and of the speeds ignored (every
// server at rate 1) are rejected.
func TestStaticRatesOnePacketIsMM1(t *testing.T) {
	const lambda, n = 0.4, 300
	cf := ratesMM1{lambda, twoSpeeds(n, 0.5, 1.5)}
	res := simulate(t, Options{Servers: n, Rates: cf.rates, Lambda: lambda, PacketsPerFlow: 1, PacketRate: 1,
		Policy: PolicyOptions{Policy: Static}, Horizon: 14000, Warmup: 2000, Replications: 16, Seed: 11})
	checks := []figureCheck{{"mean delay", meanDelayOf, cf.meanDelay(), 0.03}}
	for i, p := range res.QuantileLevels {
		need := map[float64]float64{0.5: 0.02, 0.9: 0.03, 0.99: 0.05, 0.999: 0.1, 0.9999: 0.1}[p]
		checks = append(checks, figureCheck{quantileName(p), quantileOfRep(i), cf.quantile(p), need})
	}
	for k := 1; k <= 2; k++ {
		checks = append(checks, figureCheck{fmt.Sprintf("q_%d", k), func(rr RepResult) float64 { return rr.Occupancy[k-1] }, cf.occupancy(k), 0.01})
	}
	agreeAll(t, res, checks)
	mean := replicationsOf(res, meanDelayOf)
	for _, wrong := range []struct {
		name string
		cf   ratesMM1
	}{{"load 1% too high", ratesMM1{1.01 * lambda, cf.rates}}, {"speeds ignored", ratesMM1{lambda, twoSpeeds(n, 1, 1)}}} {
		o := evidence.Agree(mean, evidence.Exact(wrong.cf.meanDelay(), 1e-9), evidence.Spec{Level: 0.01})
		t.Log(o.Describe("control, " + wrong.name))
		if o.Holds {
			t.Errorf("control %s: not rejected", wrong.name)
		}
	}
}

// The speeds in the other policies' service, where a closed form holds: with
// one packet per flow, per-packet JSQ(1) (uniform routing), sticky and bins
// with a threshold never reached (2^30; bins B = 2N, so each flow's server
// is uniform) and static hashing all make every server M/M/1 with arrival
// rate lambda. Static hashing also with rates whose mean is 2 (1 and 3 at
// lambda 0.8): rates are absolute, not normalised (normalised, the slow
// servers would be at load 1.6). The mean delay and p99 by evidence.Agree
// (family level 1%), needing to see 5% and 10%; 16 replications of 6000
// time units after 1000 of warm-up.
func TestRatesOtherPoliciesMM1(t *testing.T) {
	const n = 100
	for _, c := range []struct {
		pol    PolicyOptions
		lambda float64
		rates  []float64
	}{
		{PolicyOptions{Policy: JSQd, D: 1}, 0.4, twoSpeeds(n, 0.5, 1.5)},
		{PolicyOptions{Policy: Sticky, D: n, Threshold: 1 << 30}, 0.4, twoSpeeds(n, 0.5, 1.5)},
		{PolicyOptions{Policy: Bins, D: n, Threshold: 1 << 30, Bins: 2 * n}, 0.4, twoSpeeds(n, 0.5, 1.5)},
		{PolicyOptions{Policy: Static}, 0.8, twoSpeeds(n, 1, 3)},
	} {
		cf := ratesMM1{c.lambda, c.rates}
		res := simulate(t, Options{Servers: n, Rates: c.rates, Lambda: c.lambda, PacketsPerFlow: 1, PacketRate: 1, Policy: c.pol,
			Horizon: 7000, Warmup: 1000, Replications: 16, Seed: 12, Quantiles: []float64{0.99}})
		t.Logf("%v, rates %v and %v:", c.pol.Policy, c.rates[0], c.rates[n-1])
		agreeAll(t, res, []figureCheck{{"mean delay", meanDelayOf, cf.meanDelay(), 0.05},
			{"delay_p99", quantileOfRep(0), cf.quantile(0.99), 0.1}})
	}
}

// Static hashing with geometric flows (m = 5, r = 1) under two speeds
// against StaticExactRates (the QBD of each server with its clock scaled
// by its rate, mixed over the servers), lambda = 0.3 (the slow servers at
// load 0.6): mean delay, p90, p99 and q_1 by evidence.Agree at the family
// level 1%, needing to see 5% (10% for p99); 16 replications of 10000 time
// units after 2000 of warm-up. The QBD at the mean rate (speeds ignored)
// is rejected.
func TestStaticRatesFlowsAgainstExact(t *testing.T) {
	const lambda, m, r, n = 0.3, 5, 1, 100
	rates := twoSpeeds(n, 0.5, 1.5)
	ex, err := StaticExactRates(lambda, m, r, rates)
	if err != nil {
		t.Fatal(err)
	}
	res := simulate(t, Options{Servers: n, Rates: rates, Lambda: lambda, PacketsPerFlow: m, PacketRate: r, Policy: PolicyOptions{Policy: Static},
		Horizon: 12000, Warmup: 2000, Replications: 16, Seed: 13, Quantiles: []float64{0.9, 0.99}})
	agreeAll(t, res, []figureCheck{{"mean delay", meanDelayOf, ex.MeanDelay, 0.05},
		{"delay_p90", quantileOfRep(0), ex.DelayQuantile(0.9), 0.05}, {"delay_p99", quantileOfRep(1), ex.DelayQuantile(0.99), 0.1},
		{"q_1", func(rr RepResult) float64 { return rr.Occupancy[0] }, ex.Occupancy[0], 0.05}})
	one, err := StaticExact(lambda, m, r)
	if err != nil {
		t.Fatal(err)
	}
	o := evidence.Agree(replicationsOf(res, meanDelayOf), evidence.Exact(one.MeanDelay, 1e-9), evidence.Spec{Level: 0.01})
	t.Log(o.Describe("control, speeds ignored"))
	if o.Holds {
		t.Error("control speeds ignored: not rejected")
	}
}

// The event-driven engine serves a requirement S in S/mu: deterministic
// service at two speeds makes each server M/D/1 with service time 1/mu_i,
// mean delay 1/mu + lambda/(2 mu^2 (1 - lambda/mu)) (Pollaczek-Khinchine),
// mixed with equal weights; by evidence.Agree at level 1%, needing to see
// 5% (8 replications).
func TestGeneralServiceRates(t *testing.T) {
	const lambda, n = 0.4, 100
	det, err := service.Deterministic(1)
	if err != nil {
		t.Fatal(err)
	}
	rates := twoSpeeds(n, 0.5, 1.5)
	want := 0.0
	for _, mu := range rates {
		want += (1/mu + lambda/(2*mu*mu*(1-lambda/mu))) / n
	}
	res := simulate(t, Options{Servers: n, Rates: rates, Lambda: lambda, PacketsPerFlow: 1, PacketRate: 1, Policy: PolicyOptions{Policy: Static},
		Service: det, Horizon: 8000, Warmup: 1000, Replications: 8, Seed: 14, Quantiles: []float64{0.5}})
	agreeAll(t, res, []figureCheck{{"M/D/1 mixture mean delay", meanDelayOf, want, 0.05}})
}
