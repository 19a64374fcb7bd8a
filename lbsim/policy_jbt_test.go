package lbsim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
)

// JBT against the exact solution of small systems, on both engines: the
// per-server engine runs Dispatch (rejection and scan), the occupancy engine
// JoinLevel, and the exact solver Route; q_i, the mean sojourn and the wait
// probability must agree within 4 half-widths (plus the truncation mass).
// A JBT that ignored the threshold (random routing, q_2 = lambda^2 = 0.7225
// at lambda = 0.85) is off by far more than that: the exact q_2 at N = 4,
// T = 2 is 0.642, and the half-widths are about 0.003.
func TestJBTAgainstExact(t *testing.T) {
	for _, c := range []struct {
		n, threshold int
		lambda       float64
		engine       string
	}{
		{4, 2, 0.85, "servers"},
		{4, 2, 0.85, "occupancy"},
		{3, 3, 0.8, "servers"},
		{5, 1, 0.7, "occupancy"},
	} {
		sc, err := lbsim.ScenarioFromKeys(map[string]any{"servers": c.n, "lambda": c.lambda, "policy": "jbt",
			"threshold": c.threshold, "engine": c.engine, "horizon": 20000, "replications": 8, "seed": 3})
		if err != nil {
			t.Fatal(err)
		}
		res, err := lbsim.Run(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := exact.Solve(context.Background(), exact.Problem{System: lbsim.System{N: c.n}, Lambda: c.lambda,
			Policy: lbsim.JBT(c.threshold).(lbsim.ExactRouter)})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("N = %d, T = %d, %s: q = %.4f, exact %.4f", c.n, c.threshold, c.engine, res.Occupancy[:3], sol.Occupancy[:3])
		checkAgainstExact(t, res, sol, 4)
	}
	if _, err := lbsim.ScenarioFromKeys(map[string]any{"servers": 4, "lambda": 0.5, "policy": "jbt", "threshold": 0}); err == nil ||
		!strings.Contains(err.Error(), "threshold = 0: must be between 1 and 16777216") {
		t.Errorf("threshold 0: %v", err)
	}
	if _, err := lbsim.ScenarioFromKeys(map[string]any{"servers": 4, "lambda": 0.5, "policy": "jsq", "threshold": 2}); err == nil ||
		!strings.Contains(err.Error(), "policy jsq takes no threshold") {
		t.Errorf("threshold for jsq: %v", err)
	}
}
