package kernelhelpers

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSlopeOverReplications(t *testing.T) {
	x := []float64{1000, 3000, 10000, 30000}
	// Synthetic sweeps y = 2 x^-0.5 exp(0.3 Z): the estimate covers -0.5 at
	// the stated rate, and its SE matches the spread of the estimates.
	rng := rand.New(rand.NewPCG(1, 2))
	const trials, reps = 2000, 12
	covered := 0
	var vals []float64
	for range trials {
		ys := make([][]float64, reps)
		for r := range ys {
			ys[r] = make([]float64, len(x))
			for j, v := range x {
				ys[r][j] = 2 * math.Pow(v, -0.5) * math.Exp(0.3*rng.NormFloat64())
			}
		}
		e, err := SlopeOverReplications(x, ys)
		if err != nil {
			t.Fatal(err)
		}
		if e.DF != reps-1 {
			t.Fatalf("DF = %v, want %d", e.DF, reps-1)
		}
		// 99% two-sided Student-t interval with 11 df: 3.106 SE.
		if math.Abs(e.Value+0.5) <= 3.106*e.SE {
			covered++
		}
		vals = append(vals, e.Value)
	}
	if rate := float64(covered) / trials; math.Abs(rate-0.99) > 0.01 {
		t.Errorf("coverage of the 99%% interval %.3f, want 0.99", rate)
	}
	// The spread of the estimates against the slope's theoretical SE:
	// 0.3 / sqrt(sum (ln x - mean)^2) / sqrt(reps).
	m, sxx := 0.0, 0.0
	for _, v := range x {
		m += math.Log(v) / float64(len(x))
	}
	for _, v := range x {
		sxx += (math.Log(v) - m) * (math.Log(v) - m)
	}
	want := 0.3 / math.Sqrt(sxx) / math.Sqrt(reps)
	mean, ss := 0.0, 0.0
	for _, v := range vals {
		mean += v / trials
	}
	for _, v := range vals {
		ss += (v - mean) * (v - mean) / (trials - 1)
	}
	if sd := math.Sqrt(ss); math.Abs(sd/want-1) > 0.06 {
		t.Errorf("sd of the estimates %.4f, want %.4f", sd, want)
	}
	if _, err := SlopeOverReplications(x, [][]float64{{1, 2, 3, 4}}); err == nil {
		t.Error("one replication: no error")
	}
	if _, err := SlopeOverReplications(x, [][]float64{{1, 2, 3, 4}, {1, -2, 3, 4}}); err == nil {
		t.Error("a negative value: no error")
	}
}
