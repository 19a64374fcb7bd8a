package kernelhelpers

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// LawNear asserts that a law estimated from replications agrees with the
// reference law of d (QuantileDistances) to within its noise: W1 at or below
// its critical value (the bootstrap test at level 1%). need is in the units
// of the quantity (NeedAbs-like): the check is weak, and fails the cell,
// when the shift it detects (W1Detects) exceeds need.
func LawNear(name string, d LawDistance, need float64) {
	line := d.describe(name, need)
	switch {
	case d.W1Detects > need:
		report(false, "weak evidence: "+line+": the check cannot see the deviation the claim needs; add replications or horizon")
	case d.Resolved():
		report(false, line+": rejected")
	default:
		report(true, line)
	}
}

// ControlLawNear is a negative control for LawNear: the law of a wrong
// model (described by wrong) must be resolved from the reference.
func ControlLawNear(wrong, name string, d LawDistance, need float64) {
	line := d.describe(name, need)
	if !d.Resolved() {
		report(false, "CONTROL "+wrong+": NOT rejected by "+line)
		return
	}
	fmt.Fprintln(checkOut, "CONTROL  "+wrong+": rejected by "+line)
}

func (d LawDistance) describe(name string, need float64) string {
	return fmt.Sprintf("%s: W1 %.4g (95%% spread %.3g to %.3g) vs critical %.4g at level 0.01 (noise floor %.3g; %d replications, bootstrap); KS %.3g; detects a shift of %.3g at 80%% power, needs %.3g",
		name, d.W1, d.W1CI[0], d.W1CI[1], d.W1Crit, d.W1Floor, d.Replications, d.KS, d.W1Detects, need)
}

// LawDistance compares a law estimated from independent replications, each
// giving its quantiles at the same probabilities, with a reference law
// (QuantileDistances). The law's estimate is the mean over replications of
// each quantile (the quantile function averaged), and two distances are
// read at the probabilities p_k:
//
//	W1 = mean_k |x_k - G^{-1}(p_k)|   (the Wasserstein-1 distance of the central part the p_k span),
//	KS = max_k |G(x_k) - p_k|         (the Kolmogorov distance at the estimated quantiles).
//
// Both are biased upwards by the noise of the estimate. Floor is the
// distance the noise alone gives: the bootstrap mean of the distance between
// a resampled estimate and the estimate itself, what the distance would be
// if the reference were the true law. Crit is the 99th percentile of that
// null distance: W1 > W1Crit rejects, at level 1%, that the law is the
// reference (Resolved). CI95 holds the 2.5% and 97.5% percentiles of the
// distance over bootstrap resamples of the replications (centred on the
// biased distance, so a spread, not a test).
type LawDistance struct {
	Replications     int
	W1, KS           float64
	W1CI, KSCI       [2]float64
	W1Floor, KSFloor float64
	W1Crit, KSCrit   float64
	// W1Detects is the shift of the whole quantile function that the test
	// rejects with probability about 80%: W1Crit plus 0.84 bootstrap
	// standard deviations of W1 (the 95% spread over 3.92), since a shift
	// delta well above the noise moves W1 to about delta.
	W1Detects float64
}

// QuantileDistances computes the LawDistance of rows (rows[r][k]: the
// quantile at probs[k] of replication r) from the reference law with
// quantile function quantile and distribution function cdf, with
// resamples bootstrap resamples drawn from seed.
func QuantileDistances(rows [][]float64, probs []float64, quantile, cdf func(float64) float64, resamples int, seed uint64) (LawDistance, error) {
	if len(rows) < 2 {
		return LawDistance{}, errors.New("kernelhelpers.QuantileDistances: needs at least two replications")
	}
	if resamples < 100 {
		return LawDistance{}, fmt.Errorf("kernelhelpers.QuantileDistances: resamples = %d: needs at least 100", resamples)
	}
	ref := make([]float64, len(probs))
	for k, p := range probs {
		ref[k] = quantile(p)
	}
	for r, row := range rows {
		if len(row) != len(probs) {
			return LawDistance{}, fmt.Errorf("kernelhelpers.QuantileDistances: replication %d has %d quantiles for %d probabilities", r, len(row), len(probs))
		}
	}
	mean := func(pick func(j int) int, out []float64) []float64 {
		clear(out)
		for j := range rows {
			for k, x := range rows[pick(j)] {
				out[k] += x
			}
		}
		for k := range out {
			out[k] /= float64(len(rows))
		}
		return out
	}
	dist := func(x, to []float64, toCDF bool) (w1, ks float64) {
		for k, p := range probs {
			w1 += math.Abs(x[k] - to[k])
			if toCDF {
				ks = math.Max(ks, math.Abs(cdf(x[k])-p))
			}
		}
		return w1 / float64(len(probs)), ks
	}
	est := mean(func(j int) int { return j }, make([]float64, len(probs)))
	out := LawDistance{Replications: len(rows)}
	out.W1, out.KS = dist(est, ref, true)
	rng := rand.New(rand.NewPCG(seed, 0x1a9d157a))
	w1s, kss := make([]float64, resamples), make([]float64, resamples)
	nullW1, nullKS := make([]float64, resamples), make([]float64, resamples)
	boot := make([]float64, len(probs))
	// The null distances: a resample against the estimate (for KS read
	// through the reference's distribution function, |G(x*_k) - G(x_k)|).
	for b := range resamples {
		mean(func(int) int { return rng.IntN(len(rows)) }, boot)
		w1s[b], kss[b] = dist(boot, ref, true)
		fw, _ := dist(boot, est, false)
		fk := 0.0
		for k := range probs {
			fk = math.Max(fk, math.Abs(cdf(boot[k])-cdf(est[k])))
		}
		nullW1[b], nullKS[b] = fw, fk
		out.W1Floor += fw / float64(resamples)
		out.KSFloor += fk / float64(resamples)
	}
	slices.Sort(nullW1)
	slices.Sort(nullKS)
	crit := int(math.Ceil(0.99*float64(resamples))) - 1
	out.W1Crit, out.KSCrit = nullW1[crit], nullKS[crit]
	slices.Sort(w1s)
	slices.Sort(kss)
	lo, hi := int(0.025*float64(resamples)), int(math.Ceil(0.975*float64(resamples)))-1
	out.W1CI = [2]float64{w1s[lo], w1s[hi]}
	out.W1Detects = out.W1Crit + 0.8416*(out.W1CI[1]-out.W1CI[0])/3.92
	out.KSCI = [2]float64{kss[lo], kss[hi]}
	return out, nil
}

// Resolved reports whether W1 exceeds its critical value: the estimated law
// differs from the reference by more than its noise (level 1%).
func (d LawDistance) Resolved() bool { return d.W1 > d.W1Crit }
