package kernelhelpers

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// By hand: two replications whose quantile functions average to the
// reference's shifted by 0.1 give W1 = 0.1 and KS = max_k |G(x_k) - p_k|.
func TestQuantileDistancesByHand(t *testing.T) {
	probs := []float64{0.25, 0.5, 0.75}
	g := distuv.UnitNormal
	rows := [][]float64{{g.Quantile(0.25) + 0.05, 0.05, g.Quantile(0.75) + 0.05}, {g.Quantile(0.25) + 0.15, 0.15, g.Quantile(0.75) + 0.15}}
	d, err := QuantileDistances(rows, probs, g.Quantile, g.CDF, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d.W1-0.1) > 1e-12 {
		t.Errorf("W1 = %v, want 0.1", d.W1)
	}
	want := math.Max(math.Abs(g.CDF(0.1)-0.5), math.Max(math.Abs(g.CDF(g.Quantile(0.25)+0.1)-0.25), math.Abs(g.CDF(g.Quantile(0.75)+0.1)-0.75)))
	if math.Abs(d.KS-want) > 1e-12 {
		t.Errorf("KS = %v, want %v", d.KS, want)
	}
	if !(d.W1CI[0] >= 0.05-1e-12 && d.W1CI[1] <= 0.15+1e-12) {
		t.Errorf("W1 interval %v outside the replications' range [0.05, 0.15]", d.W1CI)
	}
	if _, err := QuantileDistances(rows[:1], probs, g.Quantile, g.CDF, 200, 1); err == nil {
		t.Error("one replication accepted")
	}
}

// Replications of a normal law's empirical quantiles at p = 0.1 .. 0.9 (400
// draws each, 16 replications): against the true law the distance is not resolved (the
// bootstrap test at level 1%) in at least 18 of 20 seeds; against the law
// shifted by 0.1 (a tenth of its scale, about 7 floors) it is resolved in
// 20 of 20: the negative control. The floor is about 0.014.
func TestQuantileDistancesFloor(t *testing.T) {
	probs := make([]float64, 81) // 0.1 .. 0.9: the sample quantiles' own bias stays far below the noise
	for k := range probs {
		probs[k] = float64(k+10) / 100
	}
	g := distuv.UnitNormal
	shifted := distuv.Normal{Mu: 0.1, Sigma: 1}
	resolvedTrue, resolvedShift := 0, 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		rows := make([][]float64, 16)
		for r := range rows {
			xs := make([]float64, 400)
			for i := range xs {
				xs[i] = rng.NormFloat64()
			}
			rows[r] = Quantiles(xs, probs)
		}
		d, err := QuantileDistances(rows, probs, g.Quantile, g.CDF, 400, seed)
		if err != nil {
			t.Fatal(err)
		}
		if d.Resolved() {
			resolvedTrue++
		}
		s, err := QuantileDistances(rows, probs, shifted.Quantile, shifted.CDF, 400, seed)
		if err != nil {
			t.Fatal(err)
		}
		if s.Resolved() {
			resolvedShift++
		}
		if seed == 0 {
			t.Logf("true law: W1 %.4f [%.4f, %.4f] floor %.4f crit %.4f, KS %.4f; shifted: W1 %.4f [%.4f, %.4f], KS %.4f",
				d.W1, d.W1CI[0], d.W1CI[1], d.W1Floor, d.W1Crit, d.KS, s.W1, s.W1CI[0], s.W1CI[1], s.KS)
		}
	}
	if resolvedTrue > 2 || resolvedShift < 20 {
		t.Errorf("resolved: %d of 20 against the true law (want at most 2), %d of 20 against the shifted one (want 20)", resolvedTrue, resolvedShift)
	}
}

// LawNear passes a law at its noise, fails a shifted one and a check too
// small for its need; ControlLawNear rejects the shifted law and fails on
// the right one.
func TestLawNear(t *testing.T) {
	probs := make([]float64, 81)
	for k := range probs {
		probs[k] = float64(k+10) / 100
	}
	g := distuv.UnitNormal
	rng := rand.New(rand.NewPCG(5, 6))
	rows := make([][]float64, 16)
	for r := range rows {
		xs := make([]float64, 400)
		for i := range xs {
			xs[i] = rng.NormFloat64()
		}
		rows[r] = Quantiles(xs, probs)
	}
	right := Must(QuantileDistances(rows, probs, g.Quantile, g.CDF, 400, 1))
	shifted := distuv.Normal{Mu: 0.1, Sigma: 1}
	wrong := Must(QuantileDistances(rows, probs, shifted.Quantile, shifted.CDF, 400, 1))
	if out, failed := capture(func() { LawNear("normal", right, 0.08) }); failed != "" || !strings.HasPrefix(out, "PASS  normal: W1 ") {
		t.Errorf("right law: %q (failed %q)", out, failed)
	}
	if _, failed := capture(func() { LawNear("normal", wrong, 0.08) }); !strings.Contains(failed, "rejected") {
		t.Errorf("shifted law: failed %q, want rejected", failed)
	}
	if _, failed := capture(func() { LawNear("normal", right, right.W1Detects/2) }); !strings.Contains(failed, "weak evidence") {
		t.Errorf("need below what the check detects: failed %q, want weak evidence", failed)
	}
	if out, failed := capture(func() { ControlLawNear("shift 0.1", "normal", wrong, 0.08) }); failed != "" || !strings.HasPrefix(out, "CONTROL  shift 0.1: rejected by normal") {
		t.Errorf("control: %q (failed %q)", out, failed)
	}
	if _, failed := capture(func() { ControlLawNear("none", "normal", right, 0.08) }); failed == "" {
		t.Error("a control at the right law did not fail")
	}
}
