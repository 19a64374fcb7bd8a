package admission

import (
	"context"
	"math"
	"testing"
)

// The simulated time-average revenue agrees with the exact R_s(tau) within
// 4 half-widths of its 95% confidence interval (s = 100, 8 replications of
// 2000 time units after 200 of warm-up, about 8 * 4e5 events).
func TestSimulationAgainstExact(t *testing.T) {
	sys := System{Servers: 100, Beta: 0.5}
	for _, c := range []struct {
		r   Revenue
		tau int
	}{{Linear{A: 1, B: 1}, 8}, {Exponential{A: 2, B: 1}, 3}, {Linear{A: 1, B: 2}, 20}} {
		res, err := Simulate(context.Background(), SimOptions{System: sys, Revenue: c.r, Threshold: c.tau,
			Horizon: 2200, Warmup: 200, Replications: 8, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := sys.RevenueRate(c.r, c.tau)
		if d := math.Abs(res.Revenue - want); !(d <= 4*res.RevenueCI95) || res.RevenueCI95 <= 0 {
			t.Errorf("%v tau=%d: simulated %v ± %v, exact %v", c.r, c.tau, res.Revenue, res.RevenueCI95, want)
		}
		t.Logf("%v tau=%d: simulated %.5f ± %.5f, exact %.5f, %d events", c.r, c.tau, res.Revenue, res.RevenueCI95, want, res.Events)
	}
}

func TestSimulationReproducible(t *testing.T) {
	o := SimOptions{System: System{Servers: 20, Beta: 0}, Revenue: Linear{A: 1, B: 1}, Threshold: 4,
		Horizon: 100, Warmup: 10, Replications: 3, Seed: 5}
	a, err := Simulate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.Workers = 1
	b, _ := Simulate(context.Background(), o)
	if a.Revenue != b.Revenue || a.Events != b.Events {
		t.Errorf("workers changed the result: %v/%d vs %v/%d", a.Revenue, a.Events, b.Revenue, b.Events)
	}
	o.Warmup = 100
	if _, err := Simulate(context.Background(), o); err == nil {
		t.Error("warmup = horizon: want an error")
	}
}
