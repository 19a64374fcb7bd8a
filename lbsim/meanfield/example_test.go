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
