package meanfield_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/meanfield"
)

// jsqDiffusionRef is E[Qbar_2] of the JSQ diffusion at beta = 1 from the
// bridge scheme (JSQDiffusionStationary's documentation: 0.813 by
// Richardson extrapolation from dt = 0.02, 0.01 and from 0.01, 0.005, each
// point with a 95% half-width of about 0.003).
const jsqDiffusionRef = 0.813

// TestJSQHalfinWhittMatchesDiffusion simulates JSQ with N = 10^4 and 10^5
// servers at per-server load 1 - 1/sqrt(N) (beta = 1) on the occupancy
// engine and compares the diffusion-scaled time averages with the SDE.
//
//   - (N - Q_1)/sqrt(N) = -Qbar_1 has expectation beta at every N (unit
//     rates: E[Q_1] = lambda N), so the tolerance is 4 CI only.
//   - Q_2/sqrt(N) = Qbar_2 converges at rate O(1/sqrt(N)) (the jumps of the
//     scaled process are 1/sqrt(N)); the measured gap 0.813 - E[Qbar_2(N)]
//     is 0.215 ± 0.006, 0.075 ± 0.015, 0.038 ± 0.023 at N = 100, 1000,
//     10^4 (8 replications of 4e5 events per server), about 2.3/sqrt(N),
//     and the allowance is 6/sqrt(N) (0.06 at N = 10^4, 0.019 at 10^5) plus
//     the bridge scheme's bias bound 0.4 dt and 4 CI of both estimates.
func TestJSQHalfinWhittMatchesDiffusion(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 1.6e9 events")
	}
	ctx := context.Background()
	sde, err := meanfield.JSQDiffusionStationary(ctx, 1, 0.01, 2e4, 8, 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SDE (bridge, dt = 0.01): E[Qbar_1] = %.4f ± %.4f, E[Qbar_2] = %.4f ± %.4f (bias <= %.4f)",
		sde.Mean1, sde.CI1, sde.Mean2, sde.CI2, sde.Bias2)
	if d := math.Abs(sde.Mean2 - jsqDiffusionRef); d > 4*sde.CI2+sde.Bias2+0.003 {
		t.Errorf("SDE E[Qbar_2] = %.4f, reference %.3f", sde.Mean2, jsqDiffusionRef)
	}
	for _, c := range []struct {
		n       int
		horizon float64
	}{{10000, 5000}, {100000, 500}} {
		const beta, reps = 1.0, 8
		sn := math.Sqrt(float64(c.n))
		res, err := lbsim.Run(ctx, lbsim.Scenario{
			Servers: c.n, Lambda: meanfield.HalfinWhittLambda(c.n, beta), Policy: lbsim.JSQ(),
			Horizon: c.horizon, Warmup: 50, Replications: reps, Seed: 11,
			// Start near the diffusion's stationary means: beta sqrt(N) idle
			// servers, 0.8 sqrt(N) with a waiting task.
			InitOccupancy: []float64{1 - beta/sn, 0.8 / sn},
		})
		if err != nil {
			t.Fatal(err)
		}
		q1, ci1, q2, ci2 := res.DiffusionScaled()
		t.Logf("N = %d: (N - Q_1)/sqrt(N) = %.4f ± %.4f, Q_2/sqrt(N) = %.4f ± %.4f (%d events, %.1f s)",
			c.n, -q1, ci1, q2, ci2, res.Events, res.WallSeconds)
		if tol := 4 * math.Hypot(ci1, sde.CI1); math.Abs(-q1-beta) > tol {
			t.Errorf("N = %d: (N - Q_1)/sqrt(N) = %.4f, want %v ± %.4f", c.n, -q1, beta, tol)
		}
		tol := 4*math.Hypot(ci2, sde.CI2) + sde.Bias2 + 6/sn
		if d := q2 - sde.Mean2; math.Abs(d) > tol {
			t.Errorf("N = %d: Q_2/sqrt(N) = %.4f, SDE %.4f: gap %.4f > %.4f", c.n, q2, sde.Mean2, d, tol)
		}
	}
}

// TestFluidTrajectoriesN1e5 starts N = 10^5 servers empty at lambda = 0.9
// and compares the simulated q_i(t) (4 replications, levels 1..3) with the
// fluid ODEs at t = 0.5, 1, 2, 5, 10, 20: JSQdDrift for JSQ(2), JSQDrift
// for JSQ, JIQDrift for JIQ and JIQdDrift for JIQ(2). The band is 4 CI95
// half-widths plus 0.002: the O(1/N) bias of the mean is 1e-5, and 0.002
// (about one standard deviation of q_1 at N = 10^5) allows for a CI that
// is itself estimated from 4 replications.
func TestFluidTrajectoriesN1e5(t *testing.T) {
	const n, lambda, reps = 100000, 0.9, 4
	checkTimes := []float64{0.5, 1, 2, 5, 10, 20}
	for k, c := range []struct {
		policy lbsim.Policy
		drift  func() (meanfield.System, error)
	}{
		{lbsim.JSQd(2), func() (meanfield.System, error) { return meanfield.JSQdDrift(lambda, 2) }},
		{lbsim.JSQ(), func() (meanfield.System, error) { return meanfield.JSQDrift(lambda) }},
		{lbsim.JIQ(), func() (meanfield.System, error) { return meanfield.JIQDrift(lambda) }},
		{lbsim.JIQd(2), func() (meanfield.System, error) { return meanfield.JIQdDrift(lambda, 2) }},
	} {
		res, err := lbsim.Run(context.Background(), lbsim.Scenario{Servers: n, Lambda: lambda, Policy: c.policy,
			Horizon: 20, Warmup: lbsim.NoWarmup, Replications: reps, Seed: uint64(20 + k), Grid: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		drift, err := c.drift()
		if err != nil {
			t.Fatal(err)
		}
		tr := res.Trajectory
		ode, err := meanfield.Trajectory(context.Background(), drift, nil, tr.Times, 12, meanfield.Options{})
		if err != nil {
			t.Fatal(err)
		}
		worst, line := 0.0, ""
		for j, tm := range tr.Times {
			if !contains(checkTimes, tm) {
				continue
			}
			for i := 0; i < 3; i++ {
				sim, ci := at(tr.Occupancy[j], i), at(tr.CI95[j], i)
				gap := math.Abs(sim - ode.Y[j][i])
				tol := 4*ci + 0.002
				if gap > tol {
					t.Errorf("%s: q_%d(%v) = %.5f ± %.5f, ODE %.5f, gap %.5f > %.5f", res.Policy, i+1, tm, sim, ci, ode.Y[j][i], gap, tol)
				}
				worst = math.Max(worst, gap)
			}
			line += fmt.Sprintf(" t=%v: q=(%.4f,%.4f,%.4f) ode=(%.4f,%.4f,%.4f);", tm, at(tr.Occupancy[j], 0), at(tr.Occupancy[j], 1),
				at(tr.Occupancy[j], 2), ode.Y[j][0], ode.Y[j][1], ode.Y[j][2])
		}
		t.Logf("%s: largest gap %.5f;%s", res.Policy, worst, line)
	}
}

func contains(xs []float64, x float64) bool {
	for _, v := range xs {
		if math.Abs(v-x) < 1e-9 {
			return true
		}
	}
	return false
}

func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return 0
}

func TestHalfinWhittLambda(t *testing.T) {
	if got := meanfield.HalfinWhittLambda(10000, 1); got != 0.99 {
		t.Errorf("HalfinWhittLambda(1e4, 1) = %v", got)
	}
	for _, bad := range [][2]float64{{0, 1}, {100, 0}, {100, 10}, {100, math.NaN()}} {
		if v := meanfield.HalfinWhittLambda(int(bad[0]), bad[1]); !math.IsNaN(v) {
			t.Errorf("HalfinWhittLambda(%v, %v) = %v, want NaN", bad[0], bad[1], v)
		}
	}
}
