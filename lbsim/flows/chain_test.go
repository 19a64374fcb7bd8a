package flows

import (
	"context"
	"math"
	"testing"
)

// The exact chain of two servers with geometric flows, for the policies
// whose packet routing depends only on the queue lengths and the server of
// the flow's previous packet (static, jsq, jsqd, sticky with d = N): the
// state is (Q1, Q2, C1, V1, C2, V2), C_j the flows in progress whose last
// packet went to server j and that never moved, V_j those that did.
// Queues are truncated at qmax and flows in progress at fmax (arrivals
// beyond are dropped; the mass there is checked to be negligible).

type chainState [6]int8 // Q1, Q2, C1, V1, C2, V2

type chainResult struct {
	meanDelay, moved, violated, boundary float64
	states, sweeps                       int
}

// route2 returns the probability that a packet bound by its flow for
// server last (home, for a first packet) goes to server 0.
func route2(pol Policy, thr int, q [2]int, last int) float64 {
	other := 1 - last
	switch pol {
	case Static:
	case JSQ:
		if q[0] == q[1] {
			return 0.5
		}
		if q[0] < q[1] {
			return 1
		}
		return 0
	case Sticky:
		if q[last] >= thr && q[other] < q[last] {
			last = other
		}
	default:
		panic("route2: policy")
	}
	if last == 0 {
		return 1
	}
	return 0
}

// solveChain solves the chain with servers of service rates mu.
func solveChain(t *testing.T, pol Policy, thr int, lambda, m, r float64, mu [2]float64, qmax, fmax int) chainResult {
	t.Helper()
	lf, p := 2*lambda/m, 1/m
	index := map[chainState]int{}
	var states []chainState
	type edge struct {
		to   int
		rate float64
	}
	var out [][]edge
	var moveRate, violRate []float64
	add := func(s chainState) int {
		if k, ok := index[s]; ok {
			return k
		}
		index[s] = len(states)
		states = append(states, s)
		out = append(out, nil)
		moveRate, violRate = append(moveRate, 0), append(violRate, 0)
		return len(states) - 1
	}
	add(chainState{})
	for k := 0; k < len(states); k++ {
		s := states[k]
		q := [2]int{int(s[0]), int(s[1])}
		flowsIn := int(s[2] + s[3] + s[4] + s[5])
		var es []edge
		to := func(n chainState, rate float64) {
			if rate > 0 {
				es = append(es, edge{add(n), rate})
			}
		}
		// A packet to server j: the queue grows (dropped at qmax).
		push := func(n chainState, j int) (chainState, bool) {
			if int(n[j]) >= qmax {
				return n, false
			}
			n[j]++
			return n, true
		}
		// New flows, home uniform.
		for h := range 2 {
			p0 := route2(pol, thr, q, h)
			for j, pj := range []float64{p0, 1 - p0} {
				n, ok := push(s, j)
				if !ok || pj == 0 {
					continue
				}
				to(n, lf*0.5*pj*p) // a one-packet flow
				if flowsIn < fmax {
					n2 := n
					n2[2+2*j]++
					to(n2, lf*0.5*pj*(1-p))
				}
			}
		}
		// Packets of flows in progress.
		for last := range 2 {
			p0 := route2(pol, thr, q, last)
			for v := range 2 { // clean, violated
				cnt := float64(s[2+2*last+v])
				if cnt == 0 {
					continue
				}
				for j, pj := range []float64{p0, 1 - p0} {
					n, ok := push(s, j)
					if !ok || pj == 0 {
						continue
					}
					rate := cnt * r * pj
					n[2+2*last+v]--
					if j != last {
						moveRate[k] += rate
						if v == 0 {
							violRate[k] += rate
						}
						to(n, rate*p)
						n2 := n
						n2[2+2*j+1]++
						to(n2, rate*(1-p))
					} else {
						to(n, rate*p)
						n2 := n
						n2[2+2*j+v]++
						to(n2, rate*(1-p))
					}
				}
			}
		}
		for j := range 2 {
			if q[j] > 0 {
				n := s
				n[j]--
				to(n, mu[j])
			}
		}
		out[k] = es
	}
	// Gauss-Seidel on pi Q = 0 over the incoming edges.
	ns := len(states)
	qout := make([]float64, ns)
	type inEdge struct {
		from int
		rate float64
	}
	in := make([][]inEdge, ns)
	for k, es := range out {
		for _, e := range es {
			if e.to != k {
				qout[k] += e.rate
				in[e.to] = append(in[e.to], inEdge{k, e.rate})
			}
		}
	}
	pi := make([]float64, ns)
	for k := range pi {
		pi[k] = 1 / float64(ns)
	}
	sweep := 0
	for ; sweep < 4000; sweep++ {
		change := 0.0
		for k := range ns {
			x := 0.0
			for _, e := range in[k] {
				x += pi[e.from] * e.rate
			}
			x /= qout[k]
			change = math.Max(change, math.Abs(x-pi[k]))
			pi[k] = x
		}
		total := 0.0
		for _, x := range pi {
			total += x
		}
		for k := range pi {
			pi[k] /= total
		}
		if change/total < 1e-12 && sweep > 10 {
			break
		}
	}
	var res chainResult
	res.states, res.sweeps = ns, sweep
	meanQ := 0.0
	for k, s := range states {
		meanQ += pi[k] * float64(s[0]+s[1])
		res.moved += pi[k] * moveRate[k]
		res.violated += pi[k] * violRate[k]
		if int(s[0]) == qmax || int(s[1]) == qmax || int(s[2]+s[3]+s[4]+s[5]) == fmax {
			res.boundary += pi[k]
		}
	}
	res.meanDelay = meanQ / (2 * lambda)
	res.moved /= 2 * lambda
	res.violated /= lf
	return res
}

// Two servers with geometric flows (lambda 0.4, m = 2, r = 1):
// simulation against the exact chain for per-packet JSQ and sticky with
// T = 1 and 2, with equal service rates and with rates 0.5 and 1.5 (the
// routing compares queue lengths; the slow server serves at a third of the
// fast one's rate): mean delay, fraction of packets moved and of flows
// violated, each within 4 of its 95% half-widths (16 replications of 40000
// time units; about 9 standard errors over 36 comparisons: a false alarm has
// probability far below 1e-9, while a routing error of a percent shows);
// the chain's truncated mass, below 1e-5, moves its figures by far less.
func TestTwoServersAgainstChain(t *testing.T) {
	for _, c := range []struct {
		pol Policy
		thr int
		m   float64
		mu  [2]float64
	}{{JSQ, 0, 2, [2]float64{1, 1}}, {Sticky, 1, 2, [2]float64{1, 1}}, {Sticky, 2, 2, [2]float64{1, 1}},
		{JSQ, 0, 2, [2]float64{0.5, 1.5}}, {Sticky, 1, 2, [2]float64{0.5, 1.5}}, {Sticky, 2, 2, [2]float64{0.5, 1.5}}} {
		ex := solveChain(t, c.pol, c.thr, 0.4, c.m, 1, c.mu, 16, 6)
		if ex.boundary > 1e-5 {
			t.Fatalf("%v: truncated chain: mass %v at the boundary", c, ex.boundary)
		}
		res, err := Simulate(context.Background(), Options{Servers: 2, Rates: c.mu[:], Lambda: 0.4, PacketsPerFlow: c.m, PacketRate: 1,
			Policy: PolicyOptions{Policy: c.pol, D: 2, Threshold: c.thr}, Horizon: 40000, Warmup: 100, Replications: 16, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v (%d states, %d sweeps, boundary %.2g): delay %.5f±%.5f exact %.5f; moved %.5f±%.5f exact %.5f; violated %.5f±%.5f exact %.5f",
			c, ex.states, ex.sweeps, ex.boundary, res.MeanDelay, res.MeanDelayCI95, ex.meanDelay, res.MovedPacketFraction, res.MovedPacketFractionCI95,
			ex.moved, res.ViolatedFlowFraction, res.ViolatedFlowFractionCI95, ex.violated)
		for _, f := range []struct {
			what          string
			got, ci, want float64
		}{{"delay", res.MeanDelay, res.MeanDelayCI95, ex.meanDelay}, {"moved", res.MovedPacketFraction, res.MovedPacketFractionCI95, ex.moved},
			{"violated", res.ViolatedFlowFraction, res.ViolatedFlowFractionCI95, ex.violated}} {
			if !closeTo(f.got, f.want, 4*f.ci+1e-5) {
				t.Errorf("%+v: %s = %v ± %v, exact %v", c, f.what, f.got, f.ci, f.want)
			}
		}
	}
}
