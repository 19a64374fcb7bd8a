package meanfield

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestTimeAverageVarianceExponential: for C(t) = v exp(-t/tau) the
// exponential tail is exact, and the trapezoid rule's error over the lags is
// O(dt^2), (dt/tau)^2/12 = 0.13% here: sigma^2 = 2 v tau within 0.2%.
func TestTimeAverageVarianceExponential(t *testing.T) {
	const v, tau = 1.5, 4.0
	var lags, c []float64
	for k := 0; k <= 20; k++ {
		lags = append(lags, 0.5*float64(k))
		c = append(c, v*math.Exp(-0.5*float64(k)/tau))
	}
	got, err := TimeAverageVariance(lags, c)
	if err != nil || math.Abs(got/(2*v*tau)-1) > 2e-3 {
		t.Errorf("sigma^2 = %v (err %v), want %v", got, err, 2*v*tau)
	}
	if _, err := TimeAverageVariance([]float64{0, 1}, []float64{1, 1}); err == nil {
		t.Error("a flat autocovariance: no error")
	}
	if _, err := ReplicationsForCheck(-1, 1, 1, 0.1, 0.05); err == nil {
		t.Error("sigma2 < 0: no error")
	}
}

// TestPowerSqrtNq2 is the power calculation for a 10% check of sqrt(N) q_2
// against the diffusion's E[Qbar_2] = 0.814 at beta = 1 (README,
// Halfin-Whitt regime). sigma^2, the variance per unit time of the time
// average of Qbar_2, comes from the spread of 48 independent replication
// means over 3900 time units (bridge, dt = 0.02; seed 41), with its 95%
// chi-square interval (47 degrees of freedom); the power calculation uses
// the interval's upper end. Check: the autocovariance route
// (TimeAverageVariance over lags 0..15 of 8 runs of 8000, seed 42) lies in
// the 99.8% interval of the batch estimate; control: four times the batch
// estimate lies outside it.
func TestPowerSqrtNq2(t *testing.T) {
	if testing.Short() {
		t.Skip("2e7 Euler steps")
	}
	const T, W, R = 4000, 100, 48
	e, err := JSQDiffusionEulerLimit(context.Background(), EulerLimitOptions{Beta: 1, Scheme: SchemeBridge, Dts: []float64{0.02},
		Horizon: T, Warmup: W, Replications: R, Seed: 41})
	if err != nil {
		t.Fatal(err)
	}
	s2 := e.Mean2.SE * e.Mean2.SE * R * (T - W)
	chi := distuv.ChiSquared{K: R - 1}
	interval := func(p float64) (lo, hi float64) {
		return s2 * (R - 1) / chi.Quantile(1-(1-p)/2), s2 * (R - 1) / chi.Quantile((1-p)/2)
	}
	lo95, hi95 := interval(0.95)
	lo, hi := interval(0.998)
	p, err := JSQDiffusionProcess(context.Background(), EulerLimitOptions{Beta: 1, Scheme: SchemeBridge, Dts: []float64{0.02},
		Horizon: 8000, Warmup: W, Replications: 8, Seed: 42, Grid: 1, Lags: 15})
	if err != nil {
		t.Fatal(err)
	}
	ac := make([]float64, len(p.Autocov2))
	for k, x := range p.Autocov2 {
		ac[k] = x.Value
	}
	viaAC, err := TimeAverageVariance(p.Lags, ac)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sigma^2(Qbar_2) = %.2f (95%%: %.2f..%.2f; 99.8%%: %.2f..%.2f) from replication means; %.2f from the autocovariance",
		s2, lo95, hi95, lo, hi, viaAC)
	if viaAC < lo || viaAC > hi {
		t.Errorf("sigma^2 from the autocovariance %.2f outside the 99.8%% interval %.2f..%.2f", viaAC, lo, hi)
	}
	if c := 4 * s2; c >= lo && c <= hi {
		t.Errorf("control: 4 sigma^2 = %.2f inside the interval", c)
	}
	for _, T := range []float64{250, 1000, 4000} {
		R, err := ReplicationsForCheck(hi95, T, 0.814, 0.1, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("10%% check of sqrt(N) q_2 (level 0.05, power 0.8, sigma^2 = %.1f): T = %v needs R = %d (R T = %.0f time units)",
			hi95, T, R, float64(R)*T)
	}
}
