package kernelhelpers

import (
	"math"
	"testing"
)

func TestMaxDistance(t *testing.T) {
	a := [][]float64{{1, 0.5}, {0.9, 0.4, 0.1}}
	b := [][]float64{{1, 0.45, 0.02}, {0.8, 0.4}}
	// Row 1: |0.5-0.45| = 0.05, |0-0.02| = 0.02; row 2: 0.1, 0, |0.1-0| = 0.1 at level 3.
	if d, err := MaxDistance(a, b, 2); err != nil || math.Abs(d-0.1) > 1e-15 {
		t.Errorf("levels 2: %v, %v; want 0.1 (row 2, level 1)", d, err)
	}
	b[1][0] = 0.9
	if d, err := MaxDistance(a, b, 2); err != nil || math.Abs(d-0.05) > 1e-15 {
		t.Errorf("levels 2: %v, %v; want 0.05", d, err)
	}
	if d, err := MaxDistance(a, b, 3); err != nil || math.Abs(d-0.1) > 1e-15 {
		t.Errorf("levels 3: %v, %v; want 0.1 (a missing entry counts as 0)", d, err)
	}
	if _, err := MaxDistance(a, b[:1], 2); err == nil {
		t.Error("rows 2 and 1: no error")
	}
	if _, err := MaxDistance(a, b, 0); err == nil {
		t.Error("levels 0: no error")
	}
	if _, err := MaxDistance([][]float64{{math.NaN()}}, [][]float64{{1}}, 1); err == nil {
		t.Error("NaN: no error")
	}
}

func TestFitPowerLaw(t *testing.T) {
	x := []float64{1e3, 3e3, 1e4, 3e4, 1e5}
	y := make([]float64, len(x))
	for k := range x {
		y[k] = 2.5 * math.Pow(x[k], -0.5)
	}
	f, err := FitPowerLaw(x, y)
	if err != nil || math.Abs(f.Exponent+0.5) > 1e-12 || math.Abs(f.Prefactor-2.5) > 1e-9 || f.ExponentSE > 1e-12 {
		t.Errorf("exact power law: %+v, %v", f, err)
	}
	// Slope 1 plus residuals (e, -e, e, -e) at log x = 0, 1, 2, 3 (by hand:
	// S_xx = 5, S_xr = -2e, so the slope is 1 - 0.4e; the residuals of the fit
	// are (0.4, -1.2, 1.2, -0.4) e, RSS = 3.2 e^2, SE = sqrt(3.2 e^2 / 2 / 5)).
	const e = 0.1
	x4 := []float64{1, math.E, math.E * math.E, math.Pow(math.E, 3)}
	y4 := []float64{math.Exp(e), math.Exp(1 - e), math.Exp(2 + e), math.Exp(3 - e)}
	f, err = FitPowerLaw(x4, y4)
	if err != nil || math.Abs(f.Exponent-(1-0.4*e)) > 1e-12 || math.Abs(f.ExponentSE-e*math.Sqrt(0.32)) > 1e-12 {
		t.Errorf("alternating residuals: %+v, %v; want exponent %v, SE %v", f, err, 1-0.4*e, e*math.Sqrt(0.32))
	}
	if f, err := FitPowerLaw([]float64{1, 2}, []float64{1, 4}); err != nil || math.Abs(f.Exponent-2) > 1e-12 || !math.IsNaN(f.ExponentSE) {
		t.Errorf("two points: %+v, %v; want exponent 2, SE NaN", f, err)
	}
	for _, bad := range [][2][]float64{{{1, 2}, {1}}, {{1, 0}, {1, 1}}, {{1, 2}, {1, -1}}, {{2, 2}, {1, 3}}, {{1}, {1}}, {{1, math.Inf(1)}, {1, 1}}} {
		if _, err := FitPowerLaw(bad[0], bad[1]); err == nil {
			t.Errorf("FitPowerLaw(%v, %v): no error", bad[0], bad[1])
		}
	}
}
