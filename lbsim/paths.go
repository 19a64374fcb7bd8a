package lbsim

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// RunPaths runs the sc.Replications replications of sc as separate runs of
// one replication each and returns their results in order, so that each
// replication keeps its own trajectory (Result.Trajectory, when sc.Grid > 0)
// where Run keeps only the mean over replications and its band: what a
// statistic of single paths needs (the sup over time of a path's distance to
// the mean-field ODE, the variance of q_i(t) across replications).
//
// Replication k is Run of sc with Replications 1 and Seed PathSeed(sc.Seed,
// k), so it does not draw the numbers of Run's replication k; the paths are
// independent, and the same sc always gives the same paths, whatever
// sc.Workers (the number of replications run at once; 0: GOMAXPROCS). Each
// result's confidence half-widths are NaN (one replication). sc.Progress, if
// set, receives the progress of the whole set: Done counts finished
// replications, Fraction the share of simulated time done.
func RunPaths(ctx context.Context, sc Scenario) ([]*Result, error) {
	if sc.Replications < 1 {
		return nil, invalid(fmt.Errorf("replications = %d: RunPaths needs at least 1", sc.Replications))
	}
	reps, progress := sc.Replications, sc.Progress
	out := make([]*Result, reps)
	var mu sync.Mutex
	var done atomic.Int64
	reached := make([]float64, reps)
	report := func(k int, t float64) {
		if progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		reached[k] = min(t, sc.Horizon)
		total := 0.0
		for _, x := range reached {
			total += x
		}
		progress(Progress{Replication: k, Done: int(done.Load()), Replications: reps, Time: reached[k],
			Horizon: sc.Horizon, Fraction: total / (sc.Horizon * float64(reps))})
	}
	err := mc.Replicate(reps, sc.Workers, sc.Horizon, nil, func(k int, _ func(float64)) error {
		one := sc
		one.Replications, one.Seed, one.Workers = 1, PathSeed(sc.Seed, k), 1
		if progress != nil {
			one.Progress = func(p Progress) { report(k, p.Time) }
		}
		res, err := Run(ctx, one)
		if err != nil {
			return fmt.Errorf("replication %d: %w", k, err)
		}
		res.Scenario.Progress = nil
		out[k] = res
		done.Add(1)
		report(k, sc.Horizon)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PathSeed is the seed of replication k of RunPaths with root seed seed.
func PathSeed(seed uint64, k int) uint64 {
	return mc.SplitMix(mc.SplitMix(seed^0x5bd1e9955bd1e995) + uint64(k))
}
