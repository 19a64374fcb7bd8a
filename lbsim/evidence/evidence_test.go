package evidence

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// The tests below measure the layer's own claims on synthetic estimates
// whose truth is known: under the null hypothesis a comparison rejects with
// probability level, and at its stated Detects it rejects with probability
// Spec.Power. Each rate is a proportion over `trials` independent trials
// (fixed seeds), compared with its target within 5 binomial standard errors
// (a correct layer fails with probability below 1e-6 per rate).

// within reports whether rate is within 5 binomial standard errors of p.
func within(t *testing.T, what string, rate, p float64, trials int) {
	t.Helper()
	sd := math.Sqrt(p * (1 - p) / float64(trials))
	if math.Abs(rate-p) > 5*sd {
		t.Errorf("%s: rate %.4f, want %.4f ± %.4f (5 binomial SE over %d trials)", what, rate, p, 5*sd, trials)
	} else {
		t.Logf("%s: rate %.4f, want %.4f ± %.4f", what, rate, p, 5*sd)
	}
}

// sample is n normal draws of mean mu and standard deviation sd.
func sample(r *rand.Rand, n int, mu, sd float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = mu + sd*r.NormFloat64()
	}
	return xs
}

func TestAgreeLevelAndPower(t *testing.T) {
	const trials = 20000
	for _, c := range []struct {
		n     int
		level float64
	}{{4, 0.01}, {16, 0.01}, {16, 0.05}, {64, 0.001}} {
		sd := 0.3
		// What the check states it detects, for the true standard error.
		planned := Agree(Estimate{Value: 0, SE: sd / math.Sqrt(float64(c.n)), DF: float64(c.n - 1)}, Exact(1, 0), Spec{Level: c.level})
		r := mc.Stream(uint64(c.n), uint64(1000*c.level))
		for _, delta := range []float64{0, planned.Detects} {
			rejected := 0
			for range trials {
				o := Agree(Replications(sample(r, c.n, 1+delta, sd)), Exact(1, 0), Spec{Level: c.level})
				if !o.Holds {
					rejected++
				}
			}
			want := c.level
			what := "false rejections"
			if delta > 0 {
				want, what = DefaultPower, "power at Detects"
			}
			within(t, what+" n="+itoa(c.n)+" level="+ftoa(c.level), float64(rejected)/trials, want, trials)
		}
	}
}

func TestLessLevelAndPower(t *testing.T) {
	const trials = 20000
	for _, n := range []int{4, 16} {
		sd := 1.0
		planned := Less(Estimate{SE: sd / math.Sqrt(float64(n)), DF: float64(n - 1)}, Exact(0, 0), Spec{})
		r := mc.Stream(77, uint64(n))
		for _, margin := range []float64{0, planned.Detects} {
			held := 0
			for range trials {
				// a < b with b - a = margin.
				if Less(Replications(sample(r, n, -margin, sd)), Exact(0, 0), Spec{}).Holds {
					held++
				}
			}
			want := DefaultLevel
			if margin > 0 {
				want = DefaultPower
			}
			within(t, "Less n="+itoa(n)+" margin="+ftoa(margin), float64(held)/trials, want, trials)
		}
	}
}

// Welch's test is approximate when the variances differ. With equal
// replication counts it keeps its level and power (measured below, at 5
// binomial SE); with few replications on the noisier side it is liberal:
// at a stated 1% it rejects 1.7% of the time for 5 against 16 replications
// with a standard-deviation ratio 2, and 1.3% for 8 against 16 (measured,
// 20000 trials; see the package doc).
func TestWelchTwoEstimates(t *testing.T) {
	const trials = 10000
	for _, c := range []struct {
		n        int
		sd1, sd2 float64
	}{{16, 1, 0.5}, {8, 1, 0.3}} {
		a0 := Estimate{SE: c.sd1 / math.Sqrt(float64(c.n)), DF: float64(c.n - 1)}
		b0 := Estimate{SE: c.sd2 / math.Sqrt(float64(c.n)), DF: float64(c.n - 1)}
		planned := Agree(a0, b0, Spec{})
		r := mc.Stream(5, uint64(c.n))
		for _, delta := range []float64{0, planned.Detects} {
			rejected := 0
			for range trials {
				a := Replications(sample(r, c.n, delta, c.sd1))
				b := Replications(sample(r, c.n, 0, c.sd2))
				if !Agree(a, b, Spec{}).Holds {
					rejected++
				}
			}
			want := DefaultLevel
			if delta > 0 {
				want = DefaultPower
			}
			within(t, "Welch n="+itoa(c.n)+" delta="+ftoa(delta), float64(rejected)/trials, want, trials)
		}
	}
}

// A deterministic bound: with the true error at the bound, the test still
// rejects at most at its level (here about level/2: one tail only).
func TestBoundKeepsLevel(t *testing.T) {
	const trials = 20000
	r := mc.Stream(9)
	rejected := 0
	for range trials {
		ref := Exact(1, 0.05) // the true value is 1.05
		if !Agree(Replications(sample(r, 8, 1.05, 0.2)), ref, Spec{}).Holds {
			rejected++
		}
	}
	within(t, "rejections at the bound", float64(rejected)/trials, DefaultLevel/2, trials)
}

// For a normal error the detectable deviation has the closed form
// (z_{1-level/2} + z_power) SE when the far tail is negligible.
func TestDetectsNormalClosedForm(t *testing.T) {
	se := 0.01
	o := Agree(Normal(0, se, "test"), Exact(0.5, 0), Spec{Level: 0.01, Power: 0.8})
	want := (distuv.UnitNormal.Quantile(0.995) + distuv.UnitNormal.Quantile(0.8)) * se
	if math.Abs(o.Detects-want) > 1e-6 {
		t.Errorf("Detects %.8g, want %.8g", o.Detects, want)
	}
	if p := o.Power(o.Detects); math.Abs(p-0.8) > 1e-6 {
		t.Errorf("Power(Detects) = %v, want 0.8", p)
	}
	// With an exact reference and no sampling error, only the bound is left.
	e := Agree(Exact(1, 1e-9), Exact(1, 1e-10), Spec{})
	if !e.Holds || math.Abs(e.Detects-1.1e-9) > 1e-15 {
		t.Errorf("exact against exact: holds %v, detects %v", e.Holds, e.Detects)
	}
}

func TestWeakAndDescribe(t *testing.T) {
	est := Replications([]float64{0.70, 0.74, 0.72, 0.73})
	o := Agree(est, Exact(0.729, 1e-9), Spec{Need: 0.005})
	if !o.Weak {
		t.Errorf("4 replications with SE %.3g detect %.3g, more than the 0.005 needed, yet not weak", est.SE, o.Detects)
	}
	line := o.Describe("q_2 vs fixed point")
	for _, want := range []string{"q_2 vs fixed point: ", "detects ", "% of 0.729", "needs 0.005", "4 replications", "level 0.01"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	if o := Agree(est, Exact(0.729, 0), Spec{Need: 1}); o.Weak {
		t.Errorf("need 1 is weak: detects %v", o.Detects)
	}
	if o := Agree(Replications([]float64{math.NaN(), 1}), Exact(1, 0), Spec{Need: 1}); o.Holds || !o.Weak {
		t.Errorf("NaN estimate: holds %v weak %v", o.Holds, o.Weak)
	}
}

func TestFromCI95(t *testing.T) {
	xs := []float64{1.2, 0.9, 1.1, 1.05, 0.97}
	m, h := mc.MeanCI95(xs)
	a, b := FromCI95(m, h, len(xs)), Replications(xs)
	if math.Abs(a.SE-b.SE) > 1e-12 || a.DF != b.DF || a.Value != b.Value {
		t.Errorf("FromCI95 %+v, Replications %+v", a, b)
	}
	d := a.Minus(Exact(1, 0.01)).Scale(-2)
	if math.Abs(d.Value+2*(m-1)) > 1e-12 || math.Abs(d.SE-2*a.SE) > 1e-12 || d.Bound != 0.02 {
		t.Errorf("Minus/Scale: %+v", d)
	}
}

// ar1 is a stationary AR(1) series x_t = phi x_{t-1} + e_t, mean mu.
func ar1(r *rand.Rand, n int, phi, mu float64) []float64 {
	xs := make([]float64, n)
	x := r.NormFloat64() / math.Sqrt(1-phi*phi)
	for i := range xs {
		x = phi*x + r.NormFloat64()
		xs[i] = mu + x
	}
	return xs
}

// Batch means of a strongly correlated series: long batches give a test at
// its level; short ones are refused as correlated.
func TestBatchMeans(t *testing.T) {
	const trials = 2000
	r := mc.Stream(31)
	rejected, refused := 0, 0
	for range trials {
		e, _, err := BatchMeans(ar1(r, 20*2000, 0.9, 3), 20)
		if err != nil {
			refused++
			continue
		}
		if !Agree(e, Exact(3, 0), Spec{Level: 0.05}).Holds {
			rejected++
		}
	}
	// The lag-1 test itself refuses about 1% of independent batchings.
	if refused > trials/20 {
		t.Errorf("batches of 2000 (correlation time 10) refused %d times in %d", refused, trials)
	}
	within(t, "batch-means false rejections", float64(rejected)/float64(trials-refused), 0.05, trials-refused)
	short := 0
	for range 50 {
		if _, _, err := BatchMeans(ar1(r, 40*2, 0.9, 3), 40); errors.Is(err, ErrCorrelatedBatches) {
			short++
		}
	}
	if short < 45 {
		t.Errorf("batches of 2 samples of an AR(0.9) series refused only %d times in 50", short)
	}
	if _, _, err := BatchMeans(make([]float64, 5), 8); err == nil {
		t.Error("5 samples in 8 batches accepted")
	}
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// Estimates go through JSON (kh.Keep) and come back the same, +Inf degrees
// of freedom and a NaN standard error included.
func TestEstimateJSON(t *testing.T) {
	for _, e := range []Estimate{Exact(0.729, 1e-9), Replications([]float64{1, 2, 4}), Replications([]float64{1})} {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back Estimate
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
		if !same(back.Value, e.Value) || !same(back.SE, e.SE) || !same(back.DF, e.DF) || back.Bound != e.Bound || back.Method != e.Method {
			t.Errorf("%+v came back as %+v (%s)", e, back, b)
		}
	}
}

// The Kolmogorov-Smirnov comparison rejects true laws at its level and
// detects a CDF that deviates by its stated Detects at one point with at
// least its power (the statement is conservative: at most 0.95).
func TestLawAgreeLevelAndPower(t *testing.T) {
	uniform := func(x float64) float64 { return math.Min(1, math.Max(0, x)) }
	const trials, n = 4000, 400
	for _, level := range []float64{0.01, 0.05} {
		rng := rand.New(rand.NewPCG(7, uint64(1000*level)))
		xs := make([]float64, n)
		rejected, shiftRejected := 0, 0
		var detects float64
		for range trials {
			for i := range xs {
				xs[i] = rng.Float64()
			}
			o := LawAgree(xs, uniform, 0, Spec{Level: level})
			if !o.Holds {
				rejected++
			}
			detects = o.Detects
			// The same draws under a law whose CDF exceeds F by Detects at 1/2
			// and equals it outside [1/2 - Detects, 1/2 + Detects]: the draws in
			// [1/2, 1/2 + Detects] move to [1/2 - Detects, 1/2]. A deviation
			// at one point is the hardest for the test to see.
			for i, x := range xs {
				if x >= 0.5 && x < 0.5+detects {
					xs[i] = x - detects
				}
			}
			if !LawAgree(xs, uniform, 0, Spec{Level: level}).Holds {
				shiftRejected++
			}
		}
		// Stephens' correction is accurate to a few percent of the level at n = 400.
		within(t, "KS false rejections at level "+strconv.FormatFloat(level, 'g', -1, 64), float64(rejected)/trials, level, trials)
		// Conservative: at least the stated power, and not far above it.
		if rate := float64(shiftRejected) / trials; rate < DefaultPower-5*math.Sqrt(0.16/trials) || rate > 0.95 {
			t.Errorf("KS power at a deviation of Detects %.4f at one point: rate %.4f, want between %v and 0.95", detects, rate, DefaultPower)
		} else {
			t.Logf("KS power at a deviation of Detects %.4f at one point (level %v): rate %.4f, stated %v", detects, level, rate, DefaultPower)
		}
	}
	o := LawAgree([]float64{0.1, 0.5, 0.9}, uniform, 0, Spec{Need: 0.05})
	if !o.Weak || !strings.Contains(o.Describe("three draws", "U(0, 1)"), "detects") {
		t.Errorf("three draws cannot see 0.05: %+v", o)
	}
	if o := LawAgree(nil, uniform, 0, Spec{Need: 0.05}); o.Holds || !o.Weak {
		t.Errorf("no draws: %+v", o)
	}
	if q := kolmogorovQuantile(0.05); math.Abs(q-1.3581) > 1e-3 {
		t.Errorf("Kolmogorov 95%% quantile %v, want 1.3581", q)
	}
}
