package lbsim_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
)

// The uniformized engine against the exact stationary solution on N = 4
// servers: JSQ(2) and JSQ(3), each with and without replacement (d = 2 runs
// the hot loop fast2, d = 3 the general loop), at lambda = 0.7 or 0.9, and
// random routing. q_1..q_4, the mean sojourn and the waiting probability
// must be within 4 confidence half-widths (8 replications of 10^5 time
// units, about 3*10^6 steps each; Student t) plus the exact solution's
// truncation mass, as in TestSimulationMatchesExact. The exact solutions
// stop at tolerance 1e-5 (a truncation mass of about 5e-6 at lambda = 0.9,
// far below the half-widths; 1e-7 takes 5 times longer).
func TestUniformizedMatchesExact(t *testing.T) {
	type tc struct {
		lambda float64
		p      lbsim.Policy
	}
	cases := []tc{
		{0.9, lbsim.JSQdSampling(2, lbsim.WithReplacement)},
		{0.7, lbsim.JSQd(2)},
		{0.7, lbsim.JSQdSampling(3, lbsim.WithReplacement)},
		{0.9, lbsim.JSQd(3)},
		{0.7, lbsim.Random()},
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%s/lambda=%v", c.p.Name(), c.lambda), func(t *testing.T) {
			t.Parallel()
			sol, err := exact.Solve(context.Background(), exact.Problem{
				System: lbsim.System{N: 4}, Lambda: c.lambda, Policy: c.p.(lbsim.ExactRouter), Tol: 1e-5,
				MaxTruncationMass: 1e-3})
			if err != nil {
				t.Fatal(err)
			}
			res, err := lbsim.Run(context.Background(), lbsim.Scenario{
				Servers: 4, Lambda: c.lambda, Policy: c.p, Engine: lbsim.EngineUniformized,
				Horizon: 1e5, Replications: 8, Seed: uint64(900 + ci)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Engine != lbsim.EngineUniformized {
				t.Fatalf("engine %s ran", res.Engine)
			}
			checkAgainstExact(t, res, sol, 4)
		})
	}
}

// Equality in law with the occupancy engine (the jump chain with exponential
// holding times) at N = 100 and 1000: q_1..q_5, the mean sojourn, the
// waiting probability and the 0.9 sojourn quantile of the same scenario agree
// within 4 combined confidence half-widths (8 replications each, independent
// seeds; a correct pair fails one given check with probability about 1e-4).
// The quantile is pooled over replications, with no interval of its own: it
// must agree within 1%. The scenarios start empty, so the agreement covers
// the warm-up and the grid trajectory (checked at t = 5, in the transient,
// within 4 combined half-widths too).
func TestUniformizedEqualsOccupancyInLaw(t *testing.T) {
	cases := []struct {
		n int
		p lbsim.Policy
	}{
		{100, lbsim.JSQdSampling(2, lbsim.WithReplacement)},
		{100, lbsim.JSQd(3)},
		{1000, lbsim.JSQdSampling(2, lbsim.WithReplacement)},
		{1000, lbsim.JSQd(2)},
		{1000, lbsim.Random()},
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%s/N=%d", c.p.Name(), c.n), func(t *testing.T) {
			t.Parallel()
			sc := lbsim.Scenario{Servers: c.n, Lambda: 0.9, Policy: c.p, Engine: lbsim.EngineUniformized,
				Horizon: 300000 / float64(c.n), Replications: 8, Grid: 5, Seed: uint64(1000 + 2*ci)}
			uni, err := lbsim.Run(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			sc.Engine = lbsim.EngineOccupancy
			sc.Seed++
			occ, err := lbsim.Run(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			checkSameLaw(t, "uniformized", "occupancy", uni, occ, 5)
			// The transient: q_i(5) on the grid, from empty.
			for i := range 5 {
				x, xci := at(uni.Trajectory.Occupancy[1], i), at(uni.Trajectory.CI95[1], i)
				y, yci := at(occ.Trajectory.Occupancy[1], i), at(occ.Trajectory.CI95[1], i)
				if ci := math.Hypot(xci, yci); math.Abs(x-y) > 4*ci+1e-9 {
					t.Errorf("q_%d(5): uniformized %.5f, occupancy %.5f (combined ci %.5f)", i+1, x, y, ci)
				}
			}
			if a, b := uni.SojournQuantiles[1], occ.SojournQuantiles[1]; a.P != 0.9 || math.Abs(a.Value/b.Value-1) > 0.01 {
				t.Errorf("0.9 sojourn quantile: uniformized %v, occupancy %v", a, b)
			}
			if len(uni.Trajectory.Times) != len(occ.Trajectory.Times) {
				t.Errorf("trajectory: %d points, occupancy engine %d", len(uni.Trajectory.Times), len(occ.Trajectory.Times))
			}
		})
	}
}

// The mean-field fixed point of JSQ(d) with replacement at N = 10^5:
// q_i = lambda^((d^i - 1)/(d - 1)) (Mitzenmacher; Vvedenskaya et al.), d = 2
// and 3, lambda = 0.9, from the fixed point, 4 replications (d = 2: 100 time
// units after 20 of warm-up, about 2*10^7 steps each; d = 3, on the general
// loop: 50 after 10). The finite-N bias is O(1/N) (refined mean field: a
// few 1e-5 here), so q_1..q_5 must be within 4 confidence half-widths plus
// 2e-4 of the limit. The same seed gives the same figures.
func TestUniformizedMeanField(t *testing.T) {
	const n, lambda = 100000, 0.9
	for _, d := range []int{2, 3} {
		mf := func(i int) float64 { return math.Pow(lambda, (math.Pow(float64(d), float64(i))-1)/float64(d-1)) }
		var init []float64
		for i := 1; mf(i)*n >= 0.5; i++ {
			init = append(init, mf(i))
		}
		horizon := 120.0 / float64(d-1)
		sc := lbsim.Scenario{Servers: n, Lambda: lambda, Policy: lbsim.JSQdSampling(d, lbsim.WithReplacement),
			Engine: lbsim.EngineUniformized, Horizon: horizon, Warmup: horizon / 6, Replications: 4,
			InitOccupancy: init, Seed: 7}
		res, err := lbsim.Run(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 5; i++ {
			if got, ci := res.Q(i), at(res.OccupancyCI95, i-1); math.Abs(got-mf(i)) > 4*ci+2e-4 {
				t.Errorf("d = %d: q_%d = %.6f ± %.6f, mean field %.6f", d, i, got, ci, mf(i))
			}
		}
		sc.Horizon, sc.Warmup, sc.Grid = 2, 1, 0.5
		a, err := lbsim.Run(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		b, err := lbsim.Run(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Occupancy, b.Occupancy) || a.Events != b.Events || a.MeanSojourn != b.MeanSojourn ||
			!slices.Equal(a.Trajectory.Occupancy[3], b.Trajectory.Occupancy[3]) {
			t.Errorf("d = %d: the same seed gave different figures", d)
		}
	}
}

// The engine is refused, naming the key, where it does not apply.
func TestUniformizedRefused(t *testing.T) {
	base := lbsim.Scenario{Servers: 10, Lambda: 0.5, Policy: lbsim.JSQd(2), Engine: lbsim.EngineUniformized, Horizon: 10}
	for _, c := range []struct {
		edit func(*lbsim.Scenario)
		want string
	}{
		{func(sc *lbsim.Scenario) { sc.Policy = lbsim.JSQ() }, "engine = uniformized: policy jsq is not one of jsqd"},
		{func(sc *lbsim.Scenario) { sc.Policy = lbsim.JIQ() }, "engine = uniformized: policy jiq is not one of jsqd"},
		{func(sc *lbsim.Scenario) { sc.Rates = []float64{1, 1, 1, 1, 1, 2, 2, 2, 2, 2} }, "engine = uniformized: service rates are heterogeneous"},
		{func(sc *lbsim.Scenario) { sc.InitLengths = make([]int, 10) }, "engine = uniformized: per-server initial lengths"},
		{func(sc *lbsim.Scenario) { sc.Discipline = lbsim.PS }, "engine = uniformized: discipline is ps"},
	} {
		sc := base
		c.edit(&sc)
		_, err := lbsim.Run(context.Background(), sc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error with %q", err, c.want)
		}
	}
	sc := base
	sc.Rates = slices.Repeat([]float64{2}, 10) // equal rates are fine
	if _, err := lbsim.Run(context.Background(), sc); err != nil {
		t.Errorf("equal rates 2: %v", err)
	}
}
