package lbsim_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
	"github.com/lbsim/notebooks/lbsim/graph"
)

// TestWalkMatchesExact simulates random-walk sampling on small graphs and
// compares q_1..q_4, the mean sojourn time and the waiting probability with
// the exact stationary solution of the chain whose state is the queue lengths
// together with every walker's directed edge (non-backtracking) or vertex
// (simple walk):
//
//   - K4 (3-regular), the non-backtracking walk with d = 1 and d = 2 at
//     lambda = 0.5 and 0.8, two steps per arrival, and the simple walk; the
//     simulation runs on the implicit complete graph and the exact chain on
//     explicit lists, so the two representations are checked against each
//     other as well;
//   - the triangular prism (3-regular on 6 vertices, not complete), d = 1;
//   - the star on 4 vertices, where the walk must backtrack from every leaf.
//
// The state spaces are kept under the exact solver's default limit of 2e6
// states by fixing the cap where the automatic one would exceed it; the
// truncation mass is then up to a few 1e-3 and is added to the tolerance, as
// it bounds the distance between the truncated and the infinite chain.
// Tolerance otherwise 4 confidence half-widths (8 replications, Student t):
// a correct simulation fails a given check with probability about 1e-3, and
// the seeds are fixed.
func TestWalkMatchesExact(t *testing.T) {
	k4, _ := graph.Complete(4)
	k4e, _ := k4.Materialize()
	prism := edges(t, 6, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 0}, [2]int{3, 4}, [2]int{4, 5}, [2]int{5, 3},
		[2]int{0, 3}, [2]int{1, 4}, [2]int{2, 5})
	star := edges(t, 4, [2]int{0, 1}, [2]int{0, 2}, [2]int{0, 3})
	cases := []struct {
		name     string
		sim, ex  *graph.Graph
		d, steps int
		walk     lbsim.Walk
		lambda   float64
		cap      int
	}{
		{"K4", k4, k4e, 1, 1, lbsim.NonBacktracking, 0.5, 14},
		{"K4", k4, k4e, 2, 1, lbsim.NonBacktracking, 0.5, 7},
		{"K4", k4, k4e, 2, 1, lbsim.NonBacktracking, 0.8, 9},
		{"K4", k4, k4e, 2, 2, lbsim.NonBacktracking, 0.5, 6},
		{"K4", k4, k4e, 2, 1, lbsim.SimpleWalk, 0.5, 12},
		{"prism", prism, prism, 1, 1, lbsim.NonBacktracking, 0.4, 5},
		// The centre holds half of the walker's visits: load 2*lambda.
		{"star4", star, star, 1, 1, lbsim.NonBacktracking, 0.25, 14},
	}
	for ci, c := range cases {
		p := lbsim.WalkJSQd(c.sim, c.d, c.walk, c.steps)
		n := c.sim.N()
		t.Run(fmt.Sprintf("%s/%s/lambda=%v", c.name, p.Name(), c.lambda), func(t *testing.T) {
			t.Parallel()
			sol, err := exact.Solve(context.Background(), exact.Problem{
				System: lbsim.System{N: n}, Lambda: c.lambda, Cap: c.cap, Tol: 1e-7, MaxTruncationMass: 1e-3,
				Policy: lbsim.WalkJSQd(c.ex, c.d, c.walk, c.steps).(lbsim.ExactRouter)})
			if err != nil {
				t.Fatal(err)
			}
			if sol.TruncationMass > 1e-2 {
				t.Fatalf("truncation mass %.3g at cap %d: too large for a meaningful comparison", sol.TruncationMass, sol.Cap)
			}
			res, err := lbsim.Run(context.Background(), lbsim.Scenario{
				Servers: n, Lambda: c.lambda, Policy: p, Horizon: 40000, Replications: 8, Seed: uint64(700 + ci)})
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstExact(t, res, sol, 4)
		})
	}
}
