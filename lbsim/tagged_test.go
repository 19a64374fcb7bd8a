package lbsim_test

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
	"github.com/lbsim/notebooks/lbsim/service"
)

// A hand-made log: server 0 starts with 1 task, server 1 empty, over [0, 10].
func TestTagLogByHand(t *testing.T) {
	l := &lbsim.TagLog{Servers: 2, Start: 0, End: 10, Initial: []int{1, 0}, Events: []lbsim.TagEvent{
		{Time: 2, Server: 1, Arrival: true}, // (1,1) from 2
		{Time: 5, Server: 0},                // (0,1) from 5
		{Time: 6, Server: 0, Arrival: true}, // (1,1) from 6; server 0 was at 0 for 1
		{Time: 9, Server: 1},                // (1,0) from 9
	}}
	want := [][]float64{{0, 0.1}, {0.3, 0.6}} // (0,1): 1; (1,0): 2 + 1; (1,1): 3 + 3
	if got := l.Joint(0, 1); !reflect.DeepEqual(got, want) {
		t.Errorf("Joint = %v, want %v", got, want)
	}
	// Length 0: server 1 spends [0,2) and [9,10], server 0 [5,6). Arrivals
	// that find length 0: server 1 at 2 (gap 2), server 0 at 6 (gap 1).
	gaps, exp := l.Gaps(0)
	if !reflect.DeepEqual(gaps, []float64{2, 1}) || exp != 4 {
		t.Errorf("Gaps(0) = %v, %v; want [2 1], 4", gaps, exp)
	}
	// E[L0] = 0.9, E[L1] = 0.7, E[L0 L1] = 0.6: cov = -0.03, var 0.09, 0.21.
	if got, want := lbsim.JointCorrelation(want), -0.03/math.Sqrt(0.09*0.21); math.Abs(got-want) > 1e-12 {
		t.Errorf("JointCorrelation = %v, want %v", got, want)
	}
	// With two servers the pooled estimate uses E[L0 L1] and the pooled mean
	// 0.8 and second moment 0.8: (0.6 - 0.64) / (0.8 - 0.64) = -0.25.
	if got := l.PairCorrelation(); math.Abs(got+0.25) > 1e-12 {
		t.Errorf("PairCorrelation = %v, want -0.25", got)
	}
	if g, rate := lbsim.PooledGaps([]*lbsim.TagLog{l, l}, 0); len(g) != 4 || rate != 0.5 {
		t.Errorf("PooledGaps of the log twice: %v, rate %v; want 4 gaps, 0.5", g, rate)
	}
	if _, rate := lbsim.PooledGaps([]*lbsim.TagLog{l}, 7); !math.IsNaN(rate) {
		t.Errorf("PooledGaps at a length never held: rate %v, want NaN", rate)
	}
	if got := lbsim.KSExponential([]float64{math.Ln2}, 1); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("KS of the median alone = %v, want 0.5", got)
	}
	// Two servers: the pooled pair law is Joint(0, 1) symmetrised.
	if got, pair := l.PairJoint(), [][]float64{{0, 0.2}, {0.2, 0.6}}; !reflect.DeepEqual(got, pair) {
		t.Errorf("PairJoint = %v, want %v", got, pair)
	}
	// Marginals (0.1, 0.9) and (0.3, 0.7): every cell is 0.03 off its product.
	if got := lbsim.IndependenceTV(want); math.Abs(got-0.06) > 1e-12 {
		t.Errorf("IndependenceTV = %v, want 0.06", got)
	}
	if got := lbsim.IndependenceTV([][]float64{{0.06, 0.14}, {0.24, 0.56}}); math.Abs(got) > 1e-12 {
		t.Errorf("IndependenceTV of a product law = %v, want 0", got)
	}
	if got := lbsim.IndependenceTV([][]float64{{0.5}, {0, 0.5}}); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("IndependenceTV of X = Y, a fair bit = %v, want 0.5", got)
	}
	// Only one gap per server at length 0: no pair.
	if rho, pairs := l.GapSerialCorrelation(0); pairs != 0 || !math.IsNaN(rho) {
		t.Errorf("GapSerialCorrelation(0) = %v, %d pairs; want NaN, 0", rho, pairs)
	}
	// One server, empty at 0: arrivals at 1, 5, 8, 13, each served in 1, so
	// the gaps at length 0 are 1, 3, 2, 4 and the pairs (1,3), (3,2), (2,4):
	// covariance -1/3, variances 2/3, correlation -1/2.
	one := &lbsim.TagLog{Servers: 1, Start: 0, End: 14, Initial: []int{0}, Events: []lbsim.TagEvent{
		{Time: 1, Arrival: true}, {Time: 2}, {Time: 5, Arrival: true}, {Time: 6},
		{Time: 8, Arrival: true}, {Time: 9}, {Time: 13, Arrival: true}, {Time: 14},
	}}
	if rho, pairs := one.GapSerialCorrelation(0); pairs != 3 || math.Abs(rho+0.5) > 1e-12 {
		t.Errorf("GapSerialCorrelation(0) = %v, %d pairs; want -0.5, 3", rho, pairs)
	}
}

func tagRun(t *testing.T, sc lbsim.Scenario, k int) []*lbsim.TagLog {
	t.Helper()
	tg, err := lbsim.TagQueues(sc.Policy, k, sc.Horizon/10, sc.Horizon)
	if err != nil {
		t.Fatal(err)
	}
	sc.Policy = tg
	res, err := lbsim.Run(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if res.Engine != lbsim.EngineGeneral {
		t.Fatalf("engine %s, want general", res.Engine)
	}
	logs := tg.Logs()
	if len(logs) != sc.Replications {
		t.Fatalf("%d logs, want %d", len(logs), sc.Replications)
	}
	return logs
}

// The joint law of two tagged queues of JSQ(2) on 3 servers (exponential
// service, on the general engine) against the exact stationary law, and its
// correlation. Tolerance: 4 half-widths over 8 replications of 2e4 time units
// plus the truncation mass.
func TestTaggedJointMatchesExact(t *testing.T) {
	const n, lambda = 3, 0.7
	sol, err := exact.Solve(context.Background(), exact.Problem{System: lbsim.System{N: n}, Lambda: lambda,
		Policy: lbsim.JSQd(2).(lbsim.ExactRouter), Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	exactJoint := make([][]float64, sol.Cap+1)
	for x := range exactJoint {
		exactJoint[x] = make([]float64, sol.Cap+1)
		for y := range exactJoint[x] {
			for z := 0; z <= sol.Cap; z++ {
				exactJoint[x][y] += sol.Prob([]int{x, y, z})
			}
		}
	}
	logs := tagRun(t, lbsim.Scenario{Servers: n, Lambda: lambda, Policy: lbsim.JSQd(2), Horizon: 20000,
		Replications: 8, Seed: 3}, n)
	var rho, pooled []float64
	cells := map[[2]int][]float64{}
	for _, l := range logs {
		p := l.Joint(0, 1)
		rho = append(rho, lbsim.JointCorrelation(p))
		pooled = append(pooled, l.PairCorrelation())
		for _, c := range [][2]int{{0, 0}, {1, 0}, {1, 1}, {2, 1}, {2, 2}} {
			v := 0.0
			if c[0] < len(p) && c[1] < len(p[c[0]]) {
				v = p[c[0]][c[1]]
			}
			cells[c] = append(cells[c], v)
		}
	}
	want := lbsim.JointCorrelation(exactJoint)
	if want < 0.1 {
		t.Fatalf("exact correlation %v: expected a clearly positive one at N = 3", want)
	}
	for name, xs := range map[string][]float64{"servers 0 and 1": rho, "pooled pairs": pooled} {
		m, h := lbsim.MeanCI95(xs)
		if math.Abs(m-want) > 4*h+sol.TruncationMass {
			t.Errorf("correlation (%s): simulated %.4f ± %.4f, exact %.4f", name, m, h, want)
		}
	}
	for c, xs := range cells {
		m, h := lbsim.MeanCI95(xs)
		if w := exactJoint[c[0]][c[1]]; math.Abs(m-w) > 4*h+sol.TruncationMass {
			t.Errorf("P(L0 = %d, L1 = %d): simulated %.5f ± %.5f, exact %.5f", c[0], c[1], m, h, w)
		}
	}
}

// On 2 servers JSQ(2) is JSQ: a queue of length l receives tasks at rate
// 2 lambda when the other is longer, lambda on a tie, 0 when shorter. The
// measured rate given the tagged queue's length against the exact one (the
// mean of these over the exact law of the other queue), within 4 half-widths;
// and the stream given the length is far from Poisson (the KS distance of the
// gaps to the exponential of the measured rate is above 3 times the 99% bound;
// measured 4, 11 and 11 times at lengths 0, 1, 2).
func TestTaggedArrivalRateMatchesExact(t *testing.T) {
	const lambda = 0.7
	sol, err := exact.Solve(context.Background(), exact.Problem{System: lbsim.System{N: 2}, Lambda: lambda,
		Policy: lbsim.JSQd(2).(lbsim.ExactRouter), Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	logs := tagRun(t, lbsim.Scenario{Servers: 2, Lambda: lambda, Policy: lbsim.JSQd(2), Horizon: 20000,
		Replications: 8, Seed: 5}, 2)
	for l := 0; l < 3; l++ {
		var num, den float64
		for m := 0; m <= sol.Cap; m++ {
			p := sol.Prob([]int{l, m})
			rate := 0.0
			switch {
			case l < m:
				rate = 2 * lambda
			case l == m:
				rate = lambda
			}
			num += p * rate
			den += p
		}
		want := num / den
		var rates, all []float64
		for _, lg := range logs {
			g, exposure := lg.Gaps(l)
			rates = append(rates, float64(len(g))/exposure)
			all = append(all, g...)
		}
		m, h := lbsim.MeanCI95(rates)
		if math.Abs(m-want) > 4*h {
			t.Errorf("rate at length %d: simulated %.4f ± %.4f, exact %.4f", l, m, h, want)
		}
		bound := 1.628 / math.Sqrt(float64(len(all)))
		ks := lbsim.KSExponential(all, m)
		if ks < 3*bound {
			t.Errorf("length %d: KS distance %.4f to the exponential, want above 3 x %.4f (not Poisson)", l, ks, bound)
		}
	}
	// The pooled pair law against the exact joint law of the two queues: its
	// TV distance to the product of its marginals (0.2867 at lambda = 0.7),
	// the mean over replications within 4 half-widths.
	var joint [][]float64
	for l := 0; l <= sol.Cap; l++ {
		row := make([]float64, sol.Cap+1)
		for m := range row {
			row[m] = sol.Prob([]int{l, m})
		}
		joint = append(joint, row)
	}
	want := lbsim.IndependenceTV(joint)
	var tvs, serial []float64
	for _, lg := range logs {
		tvs = append(tvs, lbsim.IndependenceTV(lg.PairJoint()))
		r, _ := lg.GapSerialCorrelation(1)
		serial = append(serial, r)
	}
	if m, h := lbsim.MeanCI95(tvs); math.Abs(m-want) > 4*h {
		t.Errorf("TV distance of the pair law to its product: simulated %.4f ± %.4f, exact %.4f", m, h, want)
	}
	// Nor are the gaps at length 1 independent: the other queue's length
	// persists from one gap to the next (serial correlation 0.027 ± 0.007
	// with this seed), above 3 half-widths.
	if m, h := lbsim.MeanCI95(serial); !(m > 3*h) {
		t.Errorf("serial correlation of the gaps at length 1: %.4f ± %.4f, want above 3 half-widths", m, h)
	}
}

// Random routing with deterministic service: independent M/D/1 queues, each
// fed by a Poisson stream of rate lambda whatever its length. The gaps given
// the length are exponential of rate lambda (KS below the 99% bound, fixed
// seed), their rate within 4 standard errors, and the pooled pair correlation
// within 4 half-widths of 0.
func TestTaggedIndependentQueues(t *testing.T) {
	const lambda = 0.7
	det, err := service.Deterministic(1)
	if err != nil {
		t.Fatal(err)
	}
	logs := tagRun(t, lbsim.Scenario{Servers: 8, Lambda: lambda, Policy: lbsim.Random(), Service: det,
		Horizon: 20000, Replications: 4, Seed: 7}, 8)
	var rho []float64
	for _, lg := range logs {
		rho = append(rho, lg.PairCorrelation())
	}
	if m, h := lbsim.MeanCI95(rho); math.Abs(m) > 4*h {
		t.Errorf("pair correlation %.4f ± %.4f, want 0", m, h)
	}
	// The pooled pair law is a product law up to its sampling noise (0.002
	// per replication here; JSQ(2) on 2 servers is at 0.29, below).
	for i, lg := range logs {
		if tv := lbsim.IndependenceTV(lg.PairJoint()); !(tv < 0.01) {
			t.Errorf("replication %d: TV distance of the pair law to its product %.4f, want below 0.01", i, tv)
		}
	}
	// The gaps given the length are independent: the lag-1 correlation of a
	// server's successive gaps, averaged over the replications with their
	// numbers of pairs as weights, within 4 of its null standard error
	// 1/sqrt(pairs) (a level of 6e-5 per length; it detects a correlation of
	// 4.84/sqrt(pairs) with 80% power: 0.014 at length 0, 0.018 at length 2).
	// A t test over 4 replications is not used: their spread can be small by
	// chance (seed 7 gives 0.0091-0.0102 at length 2, each ± 0.007).
	for l := 0; l < 3; l++ {
		var sum, pairs float64
		for _, lg := range logs {
			r, p := lg.GapSerialCorrelation(l)
			sum += r * float64(p)
			pairs += float64(p)
		}
		if m, se := sum/pairs, 1/math.Sqrt(pairs); !(math.Abs(m) < 4*se) {
			t.Errorf("length %d: serial correlation of the gaps %.4f, want 0 within 4 x %.4f", l, m, se)
		}
	}
	for l := 0; l < 3; l++ {
		all, rate := lbsim.PooledGaps(logs, l)
		k := float64(len(all))
		if math.Abs(rate-lambda) > 4*lambda/math.Sqrt(k) {
			t.Errorf("rate at length %d: %.4f, want %.1f within 4 x %.4f", l, rate, lambda, lambda/math.Sqrt(k))
		}
		if ks, bound := lbsim.KSExponential(all, lambda), 1.628/math.Sqrt(k); ks > bound {
			t.Errorf("length %d: KS distance %.4f above the 99%% bound %.4f (%d gaps)", l, ks, bound, len(all))
		}
	}
}

// Tagging changes nothing in the run: random routing, which the general
// engine dispatches through Dispatch either way, gives the same figures.
func TestTaggedSameRun(t *testing.T) {
	det, _ := service.Deterministic(1)
	sc := lbsim.Scenario{Servers: 50, Lambda: 0.8, Policy: lbsim.Random(), Service: det, Horizon: 500, Replications: 2, Seed: 9}
	plain, err := lbsim.Run(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := lbsim.TagQueues(sc.Policy, 5, 0, 500)
	sc.Policy = tg
	tagged, err := lbsim.Run(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain.Occupancy, tagged.Occupancy) || plain.Events != tagged.Events {
		t.Errorf("tagging changed the run: %v, %d events against %v, %d", tagged.Occupancy, tagged.Events, plain.Occupancy, plain.Events)
	}
	// Each log replays to the lengths the events imply: no length below 0.
	for _, l := range tg.Logs() {
		n := append([]int(nil), l.Initial...)
		for _, e := range l.Events {
			if e.Arrival {
				n[e.Server]++
			} else if n[e.Server]--; n[e.Server] < 0 {
				t.Fatalf("server %d below 0 at %v", e.Server, e.Time)
			}
		}
	}
}

func TestTaggedRefused(t *testing.T) {
	for _, bad := range [][3]float64{{0, 0, 1}, {2, -1, 1}, {2, 5, 5}, {2, math.NaN(), 1}} {
		if _, err := lbsim.TagQueues(lbsim.Random(), int(bad[0]), bad[1], bad[2]); err == nil {
			t.Errorf("TagQueues(k = %v, [%v, %v]) accepted", bad[0], bad[1], bad[2])
		}
	}
	tg, _ := lbsim.TagQueues(lbsim.JSQd(2), 3, 0, 10)
	if _, err := lbsim.Run(context.Background(), lbsim.Scenario{Servers: 2, Lambda: 0.5, Policy: tg, Horizon: 10}); err == nil {
		t.Error("3 tagged servers out of 2 accepted")
	}
	tg, _ = lbsim.TagQueues(lbsim.JSQd(2), 2, 0, 10)
	if _, err := lbsim.Run(context.Background(), lbsim.Scenario{Servers: 4, Lambda: 0.5, Policy: tg, Horizon: 10,
		Engine: lbsim.EngineServers}); err == nil {
		t.Error("a Tagger on the per-server engine accepted")
	}
}
