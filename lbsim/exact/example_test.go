package exact_test

import (
	"context"
	"fmt"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
)

// Solve takes the policies the constructors return: JSQ(2) on 3 servers at
// load 0.7, solved to a truncation mass below Tol, next to random routing,
// where each server is an M/M/1 queue (mean sojourn 1/(1 - 0.7) = 3.333).
// A policy without an exact routing distribution is refused.
func ExampleSolve() {
	for _, p := range []lbsim.Policy{lbsim.JSQd(2), lbsim.Random(), lbsim.JSWd(2)} {
		sol, err := exact.Solve(context.Background(), exact.Problem{System: lbsim.System{N: 3}, Lambda: 0.7, Policy: p, Tol: 1e-9})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: mean sojourn %.4f, P(wait) %.4f (cap %d)\n", p.Name(), sol.MeanSojourn, sol.WaitProbability, sol.Cap)
	}
	// Output:
	// jsqd(d=2,without): mean sojourn 1.8848, P(wait) 0.5303 (cap 24)
	// random: mean sojourn 3.3333, P(wait) 0.7000 (cap 60)
	// policy "jswd(d=2)" cannot be solved exactly: it does not state its routing distribution (lbsim.ExactRouter)
}
