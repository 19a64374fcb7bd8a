package lbsim

import (
	"math"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// DiffusionScaled returns the diffusion-scaled time averages of a simulation
// of N = r.Scenario.Servers servers, the finite-N counterparts of the state of
// meanfield.SimulateJSQDiffusion (Halfin-Whitt regime):
//
//	qbar1 = (Q_1 - N)/sqrt(N) = sqrt(N) (q_1 - 1)   (<= 0: minus the idle servers / sqrt(N)),
//	qbar2 = Q_2/sqrt(N)       = sqrt(N) q_2,
//
// each the mean over replications with its 95% confidence half-width
// (Student t over the replications' own time averages, as the Result's other
// intervals; NaN with one replication). With unit service rates E[Q_1] =
// lambda N exactly (the busy servers equal the arrival rate), so under
// meanfield.HalfinWhittLambda(N, beta) the expectation of qbar1 is -beta at
// every N. All four are NaN when the result has no replications.
func (r *Result) DiffusionScaled() (qbar1, ci1, qbar2, ci2 float64) {
	n := r.Scenario.Servers
	if n < 1 || len(r.PerReplication) == 0 {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	s := math.Sqrt(float64(n))
	x1 := make([]float64, len(r.PerReplication))
	x2 := make([]float64, len(r.PerReplication))
	for k, rr := range r.PerReplication {
		x1[k] = s * (occupancyLevel(rr.Occupancy, 0) - 1)
		x2[k] = s * occupancyLevel(rr.Occupancy, 1)
	}
	qbar1, ci1 = mc.MeanCI95(x1)
	qbar2, ci2 = mc.MeanCI95(x2)
	return
}

// occupancyLevel returns q[i], or 0 beyond the levels q holds.
func occupancyLevel(q []float64, i int) float64 {
	if i < len(q) {
		return q[i]
	}
	return 0
}
