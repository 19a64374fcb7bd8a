package evidence_test

import (
	"fmt"

	"github.com/lbsim/notebooks/lbsim/evidence"
)

// A simulated q_2 over 8 replications against the mean-field fixed point
// 0.9^3 = 0.729, asked to see a 1% deviation; then the same check on a
// simulation with a 1% higher load, which it rejects.
func ExampleAgree() {
	sim := evidence.Replications([]float64{0.7291, 0.7287, 0.7295, 0.7289, 0.7293, 0.7290, 0.7286, 0.7292})
	fixed := evidence.Exact(0.729, 1e-9)
	o := evidence.Agree(sim, fixed, evidence.Spec{Need: 0.01 * 0.729})
	fmt.Println(o.Holds, o.Weak)
	fmt.Println(o.Describe("q_2 vs fixed point"))

	wrong := evidence.Replications([]float64{0.7509, 0.7503, 0.7512, 0.7506, 0.7510, 0.7505, 0.7501, 0.7508})
	fmt.Println(evidence.Agree(wrong, fixed, evidence.Spec{Need: 0.01 * 0.729}).Holds)
	// Output:
	// true false
	// q_2 vs fixed point: 0.729038 ± SE 0.00011 [8 replications] vs 0.729 [exact to 1e-09]; diff 3.75e-05, tol 0.000374 (t(7 df) 3.5 × SE 0.000107 + bound 1e-09); p = 0.74 at level 0.01; detects 0.000482 (0.0661% of 0.729) at 80% power, needs 0.00729 (1% of 0.729)
	// false
}

// One long run's time series: batch means give the standard error, and the
// lag-1 correlation of the batch means says whether the batches are long
// enough to be independent.
func ExampleBatchMeans() {
	xs := make([]float64, 4000)
	x := 0.0
	for i := range xs { // a deterministic series with a short memory
		x = 0.5*x + float64((i*7919)%13) - 6
		xs[i] = 10 + x
	}
	e, r, err := evidence.BatchMeans(xs, 20)
	fmt.Printf("%.3f ± %.3f, lag-1 r = %.2f, err = %v\n", e.Value, e.SE, r, err)
	// Output: 9.997 ± 0.009, lag-1 r = -0.28, err = <nil>
}
