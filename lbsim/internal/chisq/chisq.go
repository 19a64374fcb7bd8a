// Package chisq is the chi-square goodness-of-fit check the simulator's
// sampling tests share: counts of outcomes drawn against their exact
// probabilities, rejected at significance 1e-6 (so a correct sampler with a
// fixed seed fails about once in a million seeds, and a wrong one with enough
// draws fails for every seed).
package chisq

import (
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Check fails t when counts, from draws independent draws, disagree with the
// probabilities probs by Pearson's chi-square test at significance 1e-6, or
// when an outcome of probability 0 was drawn. Outcomes of probability 0 do not
// count as degrees of freedom; with fewer than two possible outcomes there is
// nothing to test.
func Check(t testing.TB, what string, counts map[int]int, probs map[int]float64, draws int) {
	t.Helper()
	stat, dof := 0.0, -1
	for k, p := range probs {
		if p == 0 {
			continue
		}
		e := p * float64(draws)
		d := float64(counts[k]) - e
		stat += d * d / e
		dof++
	}
	for k, c := range counts {
		if probs[k] == 0 && c > 0 {
			t.Fatalf("%s: outcome %d drawn %d times but has probability 0", what, k, c)
		}
	}
	if dof < 1 {
		return
	}
	if crit := Critical(dof); stat > crit {
		t.Errorf("%s: chi-square %.1f > %.1f (dof %d): sampling disagrees with the exact probabilities", what, stat, crit, dof)
	}
}

// Critical returns the chi-square quantile of order 1 - 1e-6 with dof degrees
// of freedom, the rejection threshold of Check.
func Critical(dof int) float64 {
	return distuv.ChiSquared{K: float64(dof)}.Quantile(1 - 1e-6)
}
