package lbsim_test

import (
	"context"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
)

// RunPaths: replication k is Run with one replication and seed PathSeed(seed,
// k), its own trajectory kept; the set does not depend on Workers, and
// progress reaches Fraction 1 with every replication done.
func TestRunPaths(t *testing.T) {
	sc := lbsim.Scenario{Servers: 200, Lambda: 0.9, Policy: lbsim.JSQd(2), Horizon: 20, Warmup: lbsim.NoWarmup,
		Replications: 3, Seed: 5, Grid: 1}
	last := lbsim.Progress{}
	sc.Progress = func(p lbsim.Progress) { last = p }
	paths, err := lbsim.RunPaths(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if last.Done != 3 || math.Abs(last.Fraction-1) > 1e-12 {
		t.Errorf("last progress %+v", last)
	}
	sc.Progress, sc.Workers = nil, 1
	again, err := lbsim.RunPaths(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range paths {
		one := sc
		one.Replications, one.Seed = 1, lbsim.PathSeed(sc.Seed, k)
		res, err := lbsim.Run(context.Background(), one)
		if err != nil {
			t.Fatal(err)
		}
		if p.Trajectory == nil || len(p.Trajectory.Times) != 21 {
			t.Fatalf("replication %d: trajectory %+v", k, p.Trajectory)
		}
		for j := range p.Trajectory.Times {
			for i, q := range p.Trajectory.Occupancy[j] {
				if q != res.Trajectory.Occupancy[j][i] || q != again[k].Trajectory.Occupancy[j][i] {
					t.Fatalf("replication %d, time %d, level %d: %v, Run gives %v, workers 1 gives %v", k, j, i+1, q,
						res.Trajectory.Occupancy[j][i], again[k].Trajectory.Occupancy[j][i])
				}
			}
		}
		if k > 0 && p.Trajectory.Occupancy[20][1] == paths[0].Trajectory.Occupancy[20][1] && p.MeanSojourn == paths[0].MeanSojourn {
			t.Errorf("replications 0 and %d look identical", k)
		}
	}
	if _, err := lbsim.RunPaths(context.Background(), lbsim.Scenario{Servers: 10, Lambda: 0.5, Policy: lbsim.JSQd(2), Horizon: 1, Replications: 0}); err == nil {
		t.Error("zero replications accepted")
	}
}
