package kernelhelpers

import (
	"context"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
)

func TestQuantiles(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3} // unsorted: Quantiles sorts a copy
	got := Quantiles(xs, []float64{0, 0.2, 0.21, 0.5, 0.8, 0.81, 1})
	want := []float64{1, 1, 2, 3, 4, 5, 5}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("quantiles of 1..5: got %v, want %v", got, want)
			break
		}
	}
	if xs[0] != 5 {
		t.Errorf("Quantiles modified its input: %v", xs)
	}
	for _, bad := range []func(){
		func() { Quantiles(nil, []float64{0.5}) },
		func() { Quantiles(xs, []float64{1.5}) },
		func() { Quantiles([]float64{1, math.NaN()}, []float64{0.5}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic on bad input")
				}
			}()
			bad()
		}()
	}
}

func TestDensity(t *testing.T) {
	xs := []float64{0, 0.5, 1, 1.5, 2, 2, 7, -1}
	c, d := Density(xs, []float64{0, 1, 2})
	// [0,1): 0, 0.5; [1,2]: 1, 1.5, 2, 2; 7 and -1 outside; 8 samples, width 1.
	if c[0] != 0.5 || c[1] != 1.5 || d[0] != 2.0/8 || d[1] != 4.0/8 {
		t.Errorf("Density: centres %v, densities %v", c, d)
	}
	// Unequal widths: density = fraction / width, integrating to the fraction inside.
	_, d = Density([]float64{0.1, 0.2, 3}, []float64{0, 1, 4})
	if math.Abs(d[0]-2.0/3) > 1e-15 || math.Abs(d[1]-1.0/9) > 1e-15 {
		t.Errorf("Density with unequal bins: %v", d)
	}
}

func TestDiffusionSamples(t *testing.T) {
	res, err := lbsim.Run(context.Background(), lbsim.Scenario{Servers: 400, Lambda: 0.95, Policy: lbsim.JSQ(),
		Horizon: 20, Replications: 1, Seed: 3, Grid: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := DiffusionSamples(res, 2, 10)
	tr := res.Trajectory
	if len(got) != 11 || len(tr.Times) != 21 {
		t.Fatalf("%d samples from %d grid times, want 11 of 21", len(got), len(tr.Times))
	}
	for k, x := range got {
		q := 0.0
		if row := tr.Occupancy[10+k]; len(row) > 1 {
			q = row[1]
		}
		if x != 20*q {
			t.Errorf("sample %d = %v, want sqrt(400) q_2(%v) = %v", k, x, tr.Times[10+k], 20*q)
		}
	}
	// Level 1 after the empty start: sqrt(N) q_1 with q_1 in (0, 1].
	for _, x := range DiffusionSamples(res, 1, 1) {
		if x <= 0 || x > 20 {
			t.Errorf("sqrt(N) q_1 = %v outside (0, 20]", x)
		}
	}
}
