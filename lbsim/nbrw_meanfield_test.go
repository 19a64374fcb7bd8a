package lbsim_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/meanfield"
)

// TestWalkExpanderReachesFixedPoint checks Tang and Subramanian's claim at
// N = 10^4, lambda = 0.9, d = 2: with two non-backtracking walkers on a
// random 10-regular graph (an expander: spectral gap about 10 - 2 sqrt(9) =
// 4), the stationary occupancy q_1..q_5 is the JSQ(2) fixed point
// lambda^(2^i - 1) of i.i.d. sampling. Tolerance: 4 confidence half-widths (4
// replications, Student t) plus 0.004 for the finite-N gap (JSQ(2) itself
// sits about 1e-3 above the limit at N = 10^4, and the graph's few short
// cycles add an O(1/N) correlation of the same order). On the ring lattice of
// degree 4 (each server joined to two on each side; spectral gap of order
// 1/N^2) the walkers move diffusively: in one mean service time they make
// lambda*N steps but cover only about sqrt(lambda*N) servers, which are
// flooded while the walkers linger. Every replication must then hold more
// than 10 tasks per server on average, against lambda*T_2(lambda) = 2.35 at
// the fixed point (it holds about 100 and still grows at t = 400). On the
// ring of degree 2 the non-backtracking walk is a deterministic rotation;
// every replication's occupancy must then be more than 0.05 from the fixed
// point at some level i <= 5 (0.15 or so is measured, whether the walkers turn
// the same way or not).
func TestWalkExpanderReachesFixedPoint(t *testing.T) {
	const n, lambda, d = 10000, 0.9, 2
	fixed, _, err := meanfield.JSQdFixedPoint(lambda, d, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	run := func(g *graph.Graph, seed uint64) *lbsim.Result {
		res, err := lbsim.Run(context.Background(), lbsim.Scenario{
			Servers: n, Lambda: lambda, Policy: lbsim.NBRWJSQd(g, d), InitOccupancy: fixed,
			Horizon: 400, Warmup: 40, Replications: 4, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	expander, err := graph.RandomRegular(n, 10, rand.New(rand.NewPCG(10, 1)))
	if err != nil {
		t.Fatal(err)
	}
	res := run(expander, 1)
	for i := 1; i <= 5; i++ {
		got, ci, want := at(res.Occupancy, i-1), at(res.OccupancyCI95, i-1), fixed[i-1]
		if math.Abs(got-want) > 4*ci+0.004 {
			t.Errorf("random 10-regular: q_%d = %.5f ± %.5f, fixed point %.5f", i, got, ci, want)
		}
	}
	ring, err := graph.Ring(n, 2)
	if err != nil {
		t.Fatal(err)
	}
	cycle, err := graph.Ring(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	for r, rep := range run(cycle, 3).PerReplication {
		far := 0.0
		for i := 0; i < 5; i++ {
			far = math.Max(far, math.Abs(at(rep.Occupancy, i)-fixed[i]))
		}
		if far < 0.05 {
			t.Errorf("ring of degree 2, replication %d: q = %.4f, within 0.05 of the fixed point", r, rep.Occupancy)
		}
	}
	for r, rep := range run(ring, 2).PerReplication {
		if rep.MeanTasksPerServer < 10 {
			t.Errorf("ring of degree 4, replication %d: %.3f tasks per server, want above 10 (the fixed point has 2.35)", r, rep.MeanTasksPerServer)
		}
	}
}
