package csma_test

import (
	"context"
	"fmt"

	"github.com/lbsim/notebooks/lbsim/csma"
	"github.com/lbsim/notebooks/lbsim/mc"
)

// The exact optimum for target activities on a path of 4 nodes, and the
// spectral gap of the chain there.
func ExampleSolveTargets() {
	g, _ := csma.Conflict("path:4", 0)
	sets, _ := csma.Enumerate(g, 1<<16)
	theta, _, _ := csma.SolveTargets(sets, []float64{0.5, 0.3, 0.3, 0.5}, 1e-12)
	act, _ := sets.Activity(theta)
	mix, _ := sets.SpectralGap(theta)
	fmt.Printf("theta* = %.4f\ns(theta*) = %.4f\nrelaxation time %.3f\n", theta, act, mix.RelaxationTime)
	// Output:
	// theta* = [0.9163 0.9651 0.9651 0.9163]
	// s(theta*) = [0.5000 0.3000 0.3000 0.5000]
	// relaxation time 1.550
}

// The online algorithm on the same network: 400 windows of growing length
// 20 sqrt(m), steps 5/m^0.7.
func ExampleOnline() {
	g, _ := csma.Conflict("path:4", 0)
	w, _ := csma.NewNetwork(g, mc.Source(1, 0))
	o, _ := csma.NewOnline(w, csma.Targets{0.5, 0.3, 0.3, 0.5},
		csma.Schedule{Step: csma.Step{A: 5, P: 0.7}, Window: 20, Growth: 0.5}, nil)
	if err := o.Run(context.Background(), 400, nil); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("%d windows, time %.0f, theta within 0.1 of theta*: %v\n", o.M, o.Time,
		maxDiff(o.Theta, []float64{0.9163, 0.9651, 0.9651, 0.9163}) < 0.1)
	// Output: 400 windows, time 106863, theta within 0.1 of theta*: true
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, a[i]-b[i], b[i]-a[i])
	}
	return d
}
