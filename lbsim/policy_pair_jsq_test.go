package lbsim_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
	"github.com/lbsim/notebooks/lbsim/pairs"
)

// Pair-sampled JSQ(2) on four servers against the exact solution of its
// chain (4 half-widths plus the truncation mass; the per-server engine runs
// Dispatch, the exact solver Route), for the pair graphs of the paper's
// four-server comparison; and uniform pairs are JSQ(2) without replacement
// exactly (the two exact solutions agree to 1e-10).
func TestPairJSQ(t *testing.T) {
	dir := t.TempDir()
	weighted := filepath.Join(dir, "w.txt")
	if err := os.WriteFile(weighted, []byte("0 1 3\n1 2 1\n2 3 1\n3 0 1\n0 2 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	solve := func(p lbsim.Policy, lambda float64) *exact.Solution {
		t.Helper()
		sol, err := exact.Solve(context.Background(), exact.Problem{System: lbsim.System{N: 4}, Lambda: lambda,
			Policy: p.(lbsim.ExactRouter), Tol: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		return sol
	}
	var ringQ2 float64
	for _, c := range []struct {
		keys   map[string]any
		lambda float64
	}{
		{map[string]any{"pairs": "uniform"}, 0.8},
		{map[string]any{"pairs": "ring", "degree": 2}, 0.8},
		{map[string]any{"pairs": weighted}, 0.6},
	} {
		keys := map[string]any{"servers": 4, "lambda": c.lambda, "policy": "pair-jsq", "engine": "servers",
			"horizon": 20000, "replications": 8, "seed": 5}
		for k, x := range c.keys {
			keys[k] = x
		}
		sc, err := lbsim.ScenarioFromKeys(keys)
		if err != nil {
			t.Fatal(err)
		}
		res, err := lbsim.Run(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		sol := solve(sc.Policy, c.lambda)
		t.Logf("%v: q = %.4f, exact %.4f", c.keys["pairs"], res.Occupancy[:3], sol.Occupancy[:3])
		checkAgainstExact(t, res, sol, 4)
		if c.keys["pairs"] == "ring" {
			ringQ2 = sol.Q(2)
		}
	}
	// Uniform pairs are JSQ(2) without replacement; the ring C4 does worse
	// (the paper's dominance of uniform sampling, at one load).
	u, _ := pairs.Uniform(4, 2)
	uni, jsq2 := solve(lbsim.PairJSQ(u), 0.8), solve(lbsim.JSQd(2), 0.8)
	for i := 1; i <= 4; i++ {
		if math.Abs(uni.Q(i)-jsq2.Q(i)) > 1e-10 {
			t.Errorf("q_%d: uniform pairs %v, JSQ(2) %v", i, uni.Q(i), jsq2.Q(i))
		}
	}
	if !(uni.Q(2) < ringQ2) {
		t.Errorf("q_2: uniform %v, ring %v; uniform should be smaller", uni.Q(2), ringQ2)
	}

	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("0 1\n1 1\n"), 0o644)
	half := filepath.Join(dir, "half.txt")
	os.WriteFile(half, []byte("0 1\n"), 0o644)
	for _, c := range []struct {
		keys map[string]any
		want string
	}{
		{map[string]any{"pairs": bad}, "two distinct servers"},
		{map[string]any{"pairs": half}, "server 2 (and 1 others) is in no pair"},
		{map[string]any{"pairs": "nowhere"}, `pairs = "nowhere": must be uniform, a topology`},
		{map[string]any{"pairs": "uniform", "degree": 2}, "degree = 2: pairs uniform takes no degree"},
		{map[string]any{"pairs": "ring", "degree": 3}, "degree = 3"},
		{map[string]any{"pairs": "ring", "degree": 2, "d": 2}, "policy pair-jsq takes no d"},
	} {
		keys := map[string]any{"servers": 4, "lambda": 0.5, "policy": "pair-jsq"}
		for k, x := range c.keys {
			keys[k] = x
		}
		if _, err := lbsim.ScenarioFromKeys(keys); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.keys, err, c.want)
		}
	}
}
