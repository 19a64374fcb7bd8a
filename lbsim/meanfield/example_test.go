package meanfield_test

import (
	"context"
	"fmt"

	"github.com/lbsim/notebooks/lbsim/meanfield"
)

// JSQ(2) at load 0.9 from empty servers: the occupancy q_i(t) relaxes to the
// doubly exponential fixed point lambda^(2^i - 1).
func ExampleTrajectory() {
	const lambda, d = 0.9, 2
	K, neglected, err := meanfield.Levels(lambda, d, 1e-12, nil)
	if err != nil {
		panic(err)
	}
	drift, err := meanfield.JSQdDrift(lambda, d)
	if err != nil {
		panic(err)
	}
	times := []float64{0, 5, 20, 50, 200}
	path, err := meanfield.Trajectory(context.Background(), drift, nil, times, K, meanfield.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("K = %d levels, neglected fixed-point mass %.1g\n", K, neglected)
	for j, t := range times {
		q := path.Y[j]
		fmt.Printf("t = %3g: q1 = %.6f  q2 = %.6f  q3 = %.6f  q4 = %.6f\n", t, q[0], q[1], q[2], q[3])
	}
	fp, _, _ := meanfield.JSQdFixedPoint(lambda, d, 0)
	fmt.Printf("fixed:   q1 = %.6f  q2 = %.6f  q3 = %.6f  q4 = %.6f\n", fp[0], fp[1], fp[2], fp[3])
	// Output:
	// K = 11 levels, neglected fixed-point mass 4e-188
	// t =   0: q1 = 0.000000  q2 = 0.000000  q3 = 0.000000  q4 = 0.000000
	// t =   5: q1 = 0.784080  q2 = 0.459333  q3 = 0.141827  q4 = 0.010369
	// t =  20: q1 = 0.880817  q2 = 0.680840  q3 = 0.404149  q4 = 0.140434
	// t =  50: q1 = 0.898333  q2 = 0.724762  q3 = 0.471538  q4 = 0.199417
	// t = 200: q1 = 0.900000  q2 = 0.729000  q3 = 0.478297  q4 = 0.205891
	// fixed:   q1 = 0.900000  q2 = 0.729000  q3 = 0.478297  q4 = 0.205891
}

// The stationary law of JSQ's Halfin-Whitt diffusion at beta = 1 from the
// lattice chain extrapolated in h, with its numerical error; E[Qbar_1] =
// -beta is a sanity identity.
func ExampleJSQDiffusionLawLimit() {
	l, err := meanfield.JSQDiffusionLawLimit(context.Background(), meanfield.DiffusionLimitOptions{
		Beta: 1, Points1: []float64{-1}, Points2: []float64{1}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("E[Qbar_2] = %.6f (error %.0e)\n", l.Mean2.Value, l.Mean2.Numerical)
	fmt.Printf("E[Qbar_1] = %.6f, Var(Qbar_1) = %.5f\n", l.Mean1.Value, l.Var1.Value)
	fmt.Printf("P(Qbar_1 <= -1) = %.5f, P(Qbar_2 <= 1) = %.5f\n", l.CDF1[0].Value, l.CDF2[0].Value)
	// Output:
	// E[Qbar_2] = 0.814060 (error 4e-06)
	// E[Qbar_1] = -1.000000, Var(Qbar_1) = 0.59297
	// P(Qbar_1 <= -1) = 0.43029, P(Qbar_2 <= 1) = 0.71481
}
