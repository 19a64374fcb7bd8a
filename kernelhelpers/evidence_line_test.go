package kernelhelpers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/evidence"
)

func TestFitLineExact(t *testing.T) {
	x := []float64{0.1, 0.05, 0.02, 0.01}
	var ys []Estimate
	for _, v := range x {
		ys = append(ys, Estimate{Value: 4.4 + 6*v, SE: 0.01 + v, DF: 7})
	}
	fit, err := FitLine(x, ys)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fit.Intercept.Value-4.4) > 1e-12 || math.Abs(fit.Slope.Value-6) > 1e-10 || fit.Chi2 > 1e-18 || fit.Intercept.DF != 7 {
		t.Errorf("exact line: %+v", fit)
	}
	if _, err := FitLine(x[:2], ys[:2]); err == nil {
		t.Error("two points accepted")
	}
	if _, err := FitLine([]float64{1, 1, 1}, ys[:3]); err == nil {
		t.Error("one distinct x accepted")
	}
	ys[1].SE = 0
	if _, err := FitLine(x, ys); err == nil {
		t.Error("a zero standard error accepted")
	}
}

// The intercept's stated standard error is right: over synthetic points
// scattered by their standard errors (normal, known), the Agree test of the
// intercept against the true value rejects about 1% of the time at level 1%
// (the fit's SE is inflated when chi2 exceeds its df, which makes the test
// slightly conservative), and a true intercept 5 standard errors away is
// rejected most of the time.
func TestFitLineLevel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x := []float64{0.1, 0.05, 0.02, 0.01, 0.005, 0.001}
	se := []float64{0.01, 0.03, 0.05, 0.06, 0.08, 0.2}
	const trials = 4000
	rejected, shifted := 0, 0
	for range trials {
		var ys []Estimate
		for k, v := range x {
			ys = append(ys, evidence.Normal(3+5*v+se[k]*r.NormFloat64(), se[k], "synthetic"))
		}
		fit, err := FitLine(x, ys)
		if err != nil {
			t.Fatal(err)
		}
		if !evidence.Agree(fit.Intercept, Exact(3, 0), evidence.Spec{}).Holds {
			rejected++
		}
		if !evidence.Agree(fit.Intercept, Exact(3+5*fit.Intercept.SE, 0), evidence.Spec{}).Holds {
			shifted++
		}
	}
	if rate := float64(rejected) / trials; rate > 0.02 || rate < 0.002 {
		t.Errorf("false rejections %.4f at level 1%%", rate)
	}
	if rate := float64(shifted) / trials; rate < 0.7 {
		t.Errorf("an intercept 5 SE away rejected only %.3f of the time", rate)
	}
}
