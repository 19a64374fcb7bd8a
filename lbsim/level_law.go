package lbsim

import (
	"fmt"
	"math"
	"slices"

	"github.com/lbsim/notebooks/lbsim/param"
)

// LawProbabilities is the number of quantiles of a LevelLaw: the quantiles
// at p = 1/100, 2/100, ..., 99/100.
const LawProbabilities = 99

// maxLawLevels and maxLawLevel bound the key law_levels.
const maxLawLevels, maxLawLevel = 8, 64

// LevelLaw is the stationary law of q_L (the fraction of servers with at
// least L tasks), read from the grid samples after the warmup: Quantiles[k]
// is its (k+1)/100-quantile, the mean over replications of each
// replication's own quantile, with the 95% half-width CI95[k] (Student t over
// replications, NaN with one). A replication's quantile is the smallest
// sample x with at least a fraction p of its samples <= x. The grid samples of
// one path are correlated: replications, not samples, carry the error.
type LevelLaw struct {
	Level         int       `json:"level"`
	Samples       int       `json:"samples_per_replication"`
	Quantiles     []float64 `json:"quantiles"`
	QuantilesCI95 []float64 `json:"quantiles_ci95"`
	// PerReplication[r] holds replication r's quantiles.
	PerReplication [][]float64 `json:"per_replication"`
}

// LawProbability is the probability of quantile k of a LevelLaw.
func LawProbability(k int) float64 { return float64(k+1) / (LawProbabilities + 1) }

// checkLawLevels is the check of the key law_levels.
func checkLawLevels(x any, v *param.Values) string {
	ls := x.([]int)
	if len(ls) == 0 || len(ls) > maxLawLevels {
		return fmt.Sprintf("gives %d levels; must give 1 to %d", len(ls), maxLawLevels)
	}
	for j, l := range ls {
		if l < 1 || l > maxLawLevel {
			return fmt.Sprintf("law_levels[%d] = %d: must be between 1 and %d", j, l, maxLawLevel)
		}
		if j > 0 && l <= ls[j-1] {
			return fmt.Sprintf("law_levels[%d] = %d: the levels must increase", j, l)
		}
	}
	g := 0.0
	if v.Has(keyGrid) {
		g = v.Float(keyGrid)
	}
	if g <= 0 {
		return "needs grid > 0 (the law is read from the grid samples)"
	}
	if h, w := v.Float(keyHorizon), lawFrom(v.Float(keyWarmup)); v.Has(keyWarmup) && math.Floor(h/g)*g < w {
		return fmt.Sprintf("no grid time after the warmup (grid = %g, warmup = %g, horizon = %g)", g, w, h)
	}
	return ""
}

// lawFrom is the first time of the samples a level law reads.
func lawFrom(warmup float64) float64 { return math.Max(warmup, 0) }

// levelLaws computes the laws of sc.LawLevels from the replications' grid
// samples.
func levelLaws(sc *Scenario, reps []*replication) []LevelLaw {
	from := lawFrom(sc.Warmup)
	out := make([]LevelLaw, len(sc.LawLevels))
	col := make([]float64, len(reps))
	for j, level := range sc.LawLevels {
		law := LevelLaw{Level: level, Quantiles: make([]float64, LawProbabilities),
			QuantilesCI95: make([]float64, LawProbabilities), PerReplication: make([][]float64, len(reps))}
		for r, rep := range reps {
			var xs []float64
			for k, row := range rep.obs.traj {
				if float64(k)*sc.Grid >= from {
					xs = append(xs, at(row, level-1))
				}
			}
			slices.Sort(xs)
			if r == 0 {
				law.Samples = len(xs)
			}
			q := make([]float64, LawProbabilities)
			for k := range q {
				q[k] = lowerQuantile(xs, LawProbability(k))
			}
			law.PerReplication[r] = q
		}
		for k := range LawProbabilities {
			for r := range reps {
				col[r] = law.PerReplication[r][k]
			}
			law.Quantiles[k], law.QuantilesCI95[k] = MeanCI95(col)
		}
		out[j] = law
	}
	return out
}

// lowerQuantile is the smallest x of the sorted xs with at least a fraction p
// of xs at or below it (NaN for no samples).
func lowerQuantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	k := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}
