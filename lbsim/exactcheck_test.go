package lbsim_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
)

// checkAgainstExact compares a simulation with the exact stationary
// solution of the same system: q_1..q_levels, the mean sojourn time and the
// waiting probability must each agree within 4 confidence half-widths plus
// the exact solution's truncation mass (which bounds the distance between the
// truncated and the infinite chain) plus 1e-6. With 8 replications (Student
// t) a correct simulation fails a given check with probability about 1e-3,
// and the tests' seeds are fixed.
func checkAgainstExact(t *testing.T, res *lbsim.Result, sol *exact.Solution, levels int) {
	t.Helper()
	slack := sol.TruncationMass + 1e-6
	check := func(what string, got, ci, want float64) {
		t.Helper()
		if math.Abs(got-want) > 4*ci+slack {
			t.Errorf("%s: simulated %.5f ± %.5f, exact %.5f (truncation mass %.2g)", what, got, ci, want, sol.TruncationMass)
		}
	}
	for i := 1; i <= levels; i++ {
		want := sol.Q(i)
		var got, ci float64
		if i <= len(res.Occupancy) {
			got, ci = res.Occupancy[i-1], res.OccupancyCI95[i-1]
		}
		check(fmt.Sprintf("q_%d", i), got, ci, want)
	}
	check("mean sojourn", res.MeanSojourn, res.MeanSojournCI95, sol.MeanSojourn)
	check("wait probability", res.WaitProbability, res.WaitProbabilityCI95, sol.WaitProbability)
}

// checkSameLaw fails t unless two runs of the same scenario (independent
// seeds), named a and b in the messages, give q_1..q_levels, the mean sojourn
// and the waiting probability within 4 combined confidence half-widths (a
// correct pair fails one given check with probability about 1e-4).
func checkSameLaw(t *testing.T, a, b string, ra, rb *lbsim.Result, levels int) {
	t.Helper()
	check := func(what string, x, xci, y, yci float64) {
		t.Helper()
		if ci := math.Hypot(xci, yci); math.Abs(x-y) > 4*ci+1e-9 {
			t.Errorf("%s: %s %.5f, %s %.5f (combined ci %.5f)", what, a, x, b, y, ci)
		}
	}
	for i := range levels {
		check(fmt.Sprintf("q_%d", i+1), at(ra.Occupancy, i), at(ra.OccupancyCI95, i), at(rb.Occupancy, i), at(rb.OccupancyCI95, i))
	}
	check("mean sojourn", ra.MeanSojourn, ra.MeanSojournCI95, rb.MeanSojourn, rb.MeanSojournCI95)
	check("wait probability", ra.WaitProbability, ra.WaitProbabilityCI95, rb.WaitProbability, rb.WaitProbabilityCI95)
}
