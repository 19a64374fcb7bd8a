package redundancy

import (
	"math"
	"testing"
)

// One pair of two servers is an M/M/1 queue of service rate 2: P(N >= n) =
// (Lambda/2)^n exactly, so G_n = 2^-n and each tail series is one term.
func TestLightTrafficLawSinglePair(t *testing.T) {
	G, err := LightTrafficLaw(mustUniform(t, 2, 2), nil, 6)
	if err != nil {
		t.Fatal(err)
	}
	for n, g := range G {
		if !closeTo(g, math.Pow(2, -float64(n)), 1e-15) {
			t.Errorf("G_%d = %v, want 2^-%d", n, g, n)
		}
	}
	for n := 1; n <= 6; n++ {
		ts, err := TailSeries(G, n)
		if err != nil {
			t.Fatal(err)
		}
		for m, c := range ts {
			want := 0.0
			if m == n {
				want = math.Pow(2, -float64(n))
			}
			if !closeTo(c, want, 1e-15) {
				t.Errorf("P(N >= %d): coefficient of Lambda^%d = %v, want %v", n, m, c, want)
			}
		}
	}
}

// The tail series add up to LightTraffic's series of E[N] = sum_n P(N >= n);
// G_1 = 1/2 for pairs; the series agree with the exact law at a small load;
// and uniform pairs have the smaller leading coefficients than the ring on
// 4 servers (the light-traffic dominance of the law), with TwoTaskA2 equal
// to a_2.
func TestLightTrafficLawConsistency(t *testing.T) {
	const K = 7
	for _, c := range []struct {
		name string
		a2   float64
	}{{"uniform4", 7.0 / 72}, {"ring4", 5.0 / 48}} {
		d := mustUniform(t, 4, 2)
		if c.name == "ring4" {
			d = mustRing(t, 4)
		}
		G, err := LightTrafficLaw(d, nil, K)
		if err != nil {
			t.Fatal(err)
		}
		if !closeTo(G[1], 0.5, 1e-15) {
			t.Errorf("%s: G_1 = %v, want 1/2", c.name, G[1])
		}
		a, _ := LightTraffic(d, nil, K)
		sum := make([]float64, K+1)
		for n := 1; n <= K; n++ {
			ts, _ := TailSeries(G, n)
			for m := range ts {
				sum[m] += ts[m]
			}
			if ts[n] != G[n] {
				t.Errorf("%s: leading coefficient of P(N >= %d) = %v, want G_%d = %v", c.name, n, ts[n], n, G[n])
			}
		}
		for m := 1; m <= K; m++ {
			if !closeTo(sum[m], a[m-1], 1e-13) {
				t.Errorf("%s: sum of the tail series at Lambda^%d = %v, a_%d = %v", c.name, m, sum[m], m, a[m-1])
			}
		}
		a2, err := TwoTaskA2(d)
		if err != nil || !closeTo(a2, c.a2, 1e-15) || !closeTo(a2, a[1], 1e-15) {
			t.Errorf("%s: TwoTaskA2 = %v (%v), want %v = a_2 %v", c.name, a2, err, c.a2, a[1])
		}
		// The exact P(N >= n) / Lambda^n at Lambda = 1e-3 against G_n: the
		// next term is (G_{n+1} - G_1 G_n) Lambda, below 1e-3 relative.
		x := 1e-3
		s := mustExact(t, d, x/4, nil)
		for n := 1; n <= 4; n++ {
			tail := s.TailMass
			for m := n; m < len(s.TasksDistribution); m++ {
				tail += s.TasksDistribution[m]
			}
			ts, _ := TailSeries(G, n)
			got := tail / math.Pow(x, float64(n))
			if math.Abs(got-G[n]) > 2*math.Abs(ts[n+1])*x+1e-9*G[n] {
				t.Errorf("%s: P(N >= %d)/Lambda^%d = %v at Lambda = %v, G_%d = %v", c.name, n, n, got, x, n, G[n])
			}
		}
	}
	Gu, _ := LightTrafficLaw(mustUniform(t, 4, 2), nil, K)
	Gr, _ := LightTrafficLaw(mustRing(t, 4), nil, K)
	if !(Gu[2]-Gu[1]*Gu[1] < Gr[2]-Gr[1]*Gr[1]) {
		t.Errorf("n = 1: uniform's Lambda^2 coefficient %v, ring's %v", Gu[2]-0.25, Gr[2]-0.25)
	}
	for n := 2; n <= K; n++ {
		if !(Gu[n] < Gr[n]) {
			t.Errorf("G_%d: uniform %v, ring %v", n, Gu[n], Gr[n])
		}
	}
	if _, err := TailSeries([]float64{2, 1}, 1); err == nil {
		t.Error("TailSeries with G_0 = 2: want an error")
	}
	if _, err := LightTrafficLaw(mustUniform(t, 4, 2), nil, 0); err == nil {
		t.Error("k = 0: want an error")
	}
}
