package lbsim_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
)

// TestSimulationMatchesExact runs every built-in policy on N = 2..4 servers and
// compares the simulated q_1..q_4, mean sojourn and waiting probability with
// the exact stationary solution. Tolerance: 4 confidence half-widths (8
// replications, Student t) plus the exact solution's truncation mass, which
// bounds how far the truncated chain can be from the infinite one. Random and
// round-robin routing on four servers at lambda = 0.8 have geometric tails that
// the default state limit truncates at a mass of a few 1e-4, so up to 1e-3 is
// accepted (and counted in the tolerance).
func TestSimulationMatchesExact(t *testing.T) {
	policies := []func() lbsim.Policy{
		lbsim.Random, lbsim.JSQ, lbsim.JIQ, lbsim.RoundRobin,
		func() lbsim.Policy { return lbsim.JSQd(2) },
		func() lbsim.Policy { return lbsim.JSQdSampling(2, lbsim.WithReplacement) },
		func() lbsim.Policy { return lbsim.JIQd(2) },
	}
	for _, n := range []int{2, 3, 4} {
		for _, lambda := range []float64{0.5, 0.8} {
			for _, mk := range policies {
				p := mk()
				name := fmt.Sprintf("%s/N=%d/lambda=%v", p.Name(), n, lambda)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					sol, err := exact.Solve(context.Background(), exact.Problem{
						System: lbsim.System{N: n}, Lambda: lambda, Policy: p.(lbsim.ExactRouter), Tol: 1e-7,
						MaxTruncationMass: 1e-3})
					if err != nil {
						t.Fatal(err)
					}
					res, err := lbsim.Run(context.Background(), lbsim.Scenario{
						Servers: n, Lambda: lambda, Policy: p, Engine: lbsim.EngineServers,
						Horizon: 40000, Replications: 8, Seed: uint64(n*100) + uint64(lambda*10)})
					if err != nil {
						t.Fatal(err)
					}
					checkAgainstExact(t, res, sol, 4)
				})
			}
		}
	}
}

// Heterogeneous rates under JSQ on three servers, against the exact solution.
func TestHeterogeneousJSQMatchesExact(t *testing.T) {
	rates := []float64{0.5, 1, 2}
	lambda := 0.8 // total arrival rate 2.4 < 3.5
	sol, err := exact.Solve(context.Background(), exact.Problem{
		System: lbsim.System{N: 3, Rates: rates}, Lambda: lambda, Policy: lbsim.JSQ().(lbsim.ExactRouter), Tol: 1e-7})
	if err != nil {
		t.Fatal(err)
	}
	res, err := lbsim.Run(context.Background(), lbsim.Scenario{Servers: 3, Lambda: lambda, Policy: lbsim.JSQ(),
		Rates: rates, Horizon: 40000, Replications: 8, Seed: 17})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if got, ci, want := res.Occupancy[i-1], res.OccupancyCI95[i-1], sol.Q(i); math.Abs(got-want) > 4*ci+sol.TruncationMass {
			t.Errorf("q_%d: simulated %.5f ± %.5f, exact %.5f", i, got, ci, want)
		}
	}
	if math.Abs(res.MeanSojourn-sol.MeanSojourn) > 4*res.MeanSojournCI95 {
		t.Errorf("mean sojourn: simulated %.5f ± %.5f, exact %.5f", res.MeanSojourn, res.MeanSojournCI95, sol.MeanSojourn)
	}
}
