package meanfield_test

import (
	"context"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/meanfield"
	"gonum.org/v1/gonum/stat"
)

// The covariance of JSQdRefined (the Lyapunov solution W, N Var(q_i(N)) ->
// W_ii) against simulation for d = 2, where no closed form exists: JSQ(2)
// at lambda = 0.9 and N = 1000 from the fixed point, 8 replications of 1500
// time units (the first 100 dropped), q_i(t) read every time unit. Each
// replication gives N times the mean square deviation of q_i(t) from the
// grand mean; their mean must be within 4 standard errors of W_ii for i =
// 1..4 (measured with 16 replications of 6944 time units: within 1.7% of W,
// at 1.0 to 1.3% standard errors; the finite-N change of N Var is below 4%
// at N = 100, so a tenth of that here). Halving Q or dropping A's transpose
// term would move W by far more.
func TestJSQdCovarianceAgainstSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const n, lambda, reps, horizon, warm = 1000, 0.9, 8, 1500.0, 100.0
	r, err := meanfield.JSQdRefined(lambda, 2, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := lbsim.RunPaths(context.Background(), lbsim.Scenario{Servers: n, Lambda: lambda, Policy: lbsim.JSQd(2),
		Horizon: horizon, Warmup: lbsim.NoWarmup, Replications: reps, Seed: 77, Grid: 1, InitOccupancy: r.FixedPoint})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		var all []float64
		for _, p := range paths {
			for j, tm := range p.Trajectory.Times {
				if tm >= warm {
					all = append(all, p.Trajectory.Occupancy[j][i])
				}
			}
		}
		m := stat.Mean(all, nil)
		v := make([]float64, reps)
		for k, p := range paths {
			s, c := 0.0, 0
			for j, tm := range p.Trajectory.Times {
				if tm >= warm {
					d := p.Trajectory.Occupancy[j][i] - m
					s, c = s+d*d, c+1
				}
			}
			v[k] = n * s / float64(c)
		}
		mean, sd := stat.MeanStdDev(v, nil)
		se, w := sd/math.Sqrt(reps), r.Covariance[i][i]
		t.Logf("i = %d: N Var(q_i) = %.4f ± %.4f (SE), W_ii = %.4f", i+1, mean, se, w)
		if math.Abs(mean-w) > 4*se {
			t.Errorf("i = %d: N Var(q_i) = %.4f ± %.4f (SE) against W_ii = %.4f", i+1, mean, se, w)
		}
	}
}
