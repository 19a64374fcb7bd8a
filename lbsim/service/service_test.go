package service

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lbsim/notebooks/lbsim/mc"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

const (
	nSamples = 1_000_000
	nSE      = 5    // tolerance in standard errors
	ksAlpha  = 1e-6 // KS significance level
)

// lawCase is one law under test with independent closed forms.
type lawCase struct {
	name   string
	d      Distribution
	moment func(n int) float64     // E[S^n], +Inf when infinite
	cdf    func(x float64) float64 // nil for laws with atoms (tested otherwise)
	hazard HazardClass
}

func must(d Distribution, err error) Distribution {
	if err != nil {
		panic(err)
	}
	return d
}

func factorial(n int) float64 { return math.Gamma(float64(n) + 1) }

// phMoment is n! alpha (-T)^-n 1, computed independently of the package.
func phMoment(alpha []float64, T [][]float64, n int) float64 {
	k := len(alpha)
	negT := mat.NewDense(k, k, nil)
	for i := range T {
		for j := range T[i] {
			negT.Set(i, j, -T[i][j])
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(negT); err != nil {
		panic(err)
	}
	v := mat.NewVecDense(k, nil)
	for i := 0; i < k; i++ {
		v.SetVec(i, 1)
	}
	for i := 0; i < n; i++ {
		v.MulVec(&inv, v)
	}
	return factorial(n) * mat.Dot(mat.NewVecDense(k, append([]float64(nil), alpha...)), v)
}

// phCDF returns F for PH(alpha, T) with sum(alpha) = 1, 1 - alpha exp(Tx) 1,
// by the eigendecomposition T = V diag(l) V^-1 (T must have real eigenvalues):
// F(x) = 1 - sum_k c_k exp(l_k x), c_k = (alpha V)_k (V^-1 1)_k.
func phCDF(alpha []float64, T [][]float64) func(float64) float64 {
	k := len(alpha)
	td := mat.NewDense(k, k, nil)
	for i := range T {
		for j := range T[i] {
			td.Set(i, j, T[i][j])
		}
	}
	var eig mat.Eigen
	if !eig.Factorize(td, mat.EigenRight) {
		panic("eigen factorisation failed")
	}
	l := make([]float64, k)
	for i, v := range eig.Values(nil) {
		if imag(v) != 0 {
			panic("complex eigenvalue")
		}
		l[i] = real(v)
	}
	var cv mat.CDense
	eig.VectorsTo(&cv)
	v := mat.NewDense(k, k, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			v.Set(i, j, real(cv.At(i, j)))
		}
	}
	var vinv mat.Dense
	if err := vinv.Inverse(v); err != nil {
		panic(err)
	}
	w := mat.NewVecDense(k, nil)
	w.MulVec(v.T(), mat.NewVecDense(k, append([]float64(nil), alpha...)))
	ones := make([]float64, k)
	for i := range ones {
		ones[i] = 1
	}
	u := mat.NewVecDense(k, nil)
	u.MulVec(&vinv, mat.NewVecDense(k, ones))
	c := make([]float64, k)
	for i := range c {
		c[i] = w.AtVec(i) * u.AtVec(i)
	}
	return func(x float64) float64 {
		s := 0.0
		for i := range c {
			s += c[i] * math.Exp(l[i]*x)
		}
		return 1 - s
	}
}

var (
	erlangPHAlpha = []float64{1, 0, 0, 0}
	erlangPHT     = [][]float64{{-2, 2, 0, 0}, {0, -2, 2, 0}, {0, 0, -2, 2}, {0, 0, 0, -2}} // Erlang(4, mean 2)
	coxAlpha      = []float64{0.7, 0.3, 0}
	coxT          = [][]float64{{-3, 1, 1}, {0.5, -2, 0.5}, {0.2, 0, -0.4}} // with feedback
	atomAlpha     = []float64{0.5, 0.25}                                    // atom 1/4 at zero
	atomT         = [][]float64{{-1, 0.5}, {0, -4}}
	empData       = func() []float64 {
		r := rand.New(rand.NewPCG(7, 7))
		x := make([]float64, 1000)
		for i := range x {
			x[i] = math.Exp(r.NormFloat64())
		}
		return x
	}()
)

func lawCases(t testing.TB) []lawCase {
	var cs []lawCase
	add := func(name string, d Distribution, err error, moment func(int) float64, cdf func(float64) float64, h HazardClass) {
		cs = append(cs, lawCase{name, must(d, err), moment, cdf, h})
	}
	{
		d, err := Exponential(2)
		add("exp", d, err, func(n int) float64 { return factorial(n) * math.Pow(2, float64(n)) },
			distuv.Exponential{Rate: 0.5}.CDF, HazardConstant)
	}
	{
		d, err := Deterministic(1.5)
		add("det", d, err, func(n int) float64 { return math.Pow(1.5, float64(n)) }, nil, HazardIncreasing)
	}
	for _, p := range []struct {
		k    int
		mean float64
	}{{1, 1}, {4, 2}, {5, 1}, {6, 1}, {40, 0.5}} {
		d, err := Erlang(p.k, p.mean)
		th := p.mean / float64(p.k)
		h := HazardIncreasing
		if p.k == 1 {
			h = HazardConstant
		}
		add(d.String(), d, err, func(n int) float64 {
			return math.Pow(th, float64(n)) * math.Exp(lgamma(float64(p.k+n))-lgamma(float64(p.k)))
		}, distuv.Gamma{Alpha: float64(p.k), Beta: 1 / th}.CDF, h)
	}
	hyper := func(probs, means []float64) (func(int) float64, func(float64) float64) {
		return func(n int) float64 {
				s := 0.0
				for i := range probs {
					s += probs[i] * factorial(n) * math.Pow(means[i], float64(n))
				}
				return s
			}, func(x float64) float64 {
				s := 0.0
				for i := range probs {
					s += probs[i] * -math.Expm1(-x/means[i])
				}
				return s
			}
	}
	for _, p := range []struct{ mean, scv float64 }{{1, 4}, {2, 1.5}, {1, 30}} {
		d, err := HyperexpSCV(p.mean, p.scv)
		q := (1 + math.Sqrt((p.scv-1)/(p.scv+1))) / 2
		m, c := hyper([]float64{q, 1 - q}, []float64{p.mean / (2 * q), p.mean / (2 * (1 - q))})
		add(d.String(), d, err, m, c, HazardDecreasing)
	}
	{
		probs, means := []float64{0.2, 0.5, 0.3}, []float64{0.1, 1, 5}
		d, err := Hyperexponential(probs, means)
		m, c := hyper(probs, means)
		add("hyperexp3", d, err, m, c, HazardDecreasing)
	}
	for _, p := range []struct{ mean, scv float64 }{{1, 4}, {3, 0.5}} {
		d, err := Bimodal(p.mean, p.scv)
		q := 1 / (1 + 4*p.scv)
		a, b := p.mean/2, p.mean*(1+2*p.scv)
		add(d.String(), d, err, func(n int) float64 {
			return (1-q)*math.Pow(a, float64(n)) + q*math.Pow(b, float64(n))
		}, nil, HazardNeither)
	}
	for _, p := range []struct{ alpha, mean float64 }{{1.5, 1}, {2.5, 1}, {5, 2}} {
		d, err := Pareto(p.alpha, p.mean)
		lam := p.mean * (p.alpha - 1)
		add(d.String(), d, err, func(n int) float64 {
			if p.alpha <= float64(n) {
				return math.Inf(1)
			}
			s := math.Pow(lam, float64(n)) * factorial(n)
			for i := 1; i <= n; i++ {
				s /= p.alpha - float64(i)
			}
			return s
		}, func(x float64) float64 { return distuv.Pareto{Xm: lam, Alpha: p.alpha}.CDF(x + lam) }, HazardDecreasing)
	}
	for _, p := range []struct{ shape, mean float64 }{{0.5, 1}, {1, 1}, {2, 3}} {
		d, err := Weibull(p.shape, p.mean)
		lam := p.mean / math.Gamma(1+1/p.shape)
		h := HazardConstant
		if p.shape < 1 {
			h = HazardDecreasing
		} else if p.shape > 1 {
			h = HazardIncreasing
		}
		add(d.String(), d, err, func(n int) float64 {
			return math.Pow(lam, float64(n)) * math.Gamma(1+float64(n)/p.shape)
		}, distuv.Weibull{K: p.shape, Lambda: lam}.CDF, h)
	}
	for _, p := range []struct{ sigma, mean float64 }{{1, 1}, {0.5, 2}} {
		d, err := Lognormal(p.sigma, p.mean)
		mu := math.Log(p.mean) - p.sigma*p.sigma/2
		add(d.String(), d, err, func(n int) float64 {
			fn := float64(n)
			return math.Exp(fn*mu + fn*fn*p.sigma*p.sigma/2)
		}, distuv.LogNormal{Mu: mu, Sigma: p.sigma}.CDF, HazardNeither)
	}
	{
		d, err := PhaseType(erlangPHAlpha, erlangPHT)
		add("ph-erlang4", d, err, func(n int) float64 { return phMoment(erlangPHAlpha, erlangPHT, n) },
			distuv.Gamma{Alpha: 4, Beta: 2}.CDF, HazardIncreasing)
	}
	{
		d, err := PhaseType(coxAlpha, coxT)
		add("ph-feedback", d, err, func(n int) float64 { return phMoment(coxAlpha, coxT, n) },
			phCDF(coxAlpha, coxT), HazardNeither)
	}
	{
		// Rescaled to mean 1: multiply T by E[S].
		m := phMoment(coxAlpha, coxT, 1)
		scaled := make([][]float64, len(coxT))
		for i := range coxT {
			scaled[i] = make([]float64, len(coxT[i]))
			for j := range coxT[i] {
				scaled[i][j] = coxT[i][j] * m
			}
		}
		d, err := PhaseTypeWithMean(coxAlpha, coxT, 1)
		add("ph-feedback-mean1", d, err, func(n int) float64 { return phMoment(coxAlpha, scaled, n) },
			phCDF(coxAlpha, scaled), HazardNeither)
	}
	{
		d, err := PhaseType(atomAlpha, atomT)
		add("ph-atom", d, err, func(n int) float64 { return phMoment(atomAlpha, atomT, n) }, nil, HazardNeither)
	}
	{
		d, err := Empirical(empData)
		add("empirical", d, err, func(n int) float64 {
			s := 0.0
			for _, x := range empData {
				s += math.Pow(x, float64(n))
			}
			return s / float64(len(empData))
		}, nil, HazardNeither)
	}
	return cs
}

func lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

// TestMoments checks the stated Mean and SecondMoment against independent
// closed forms, and the sample mean and variance of 10^6 draws against them
// within 5 standard errors (the variance's standard error from the fourth
// central moment; skipped when that is infinite).
func TestMoments(t *testing.T) {
	for i, c := range lawCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m1, m2, m3, m4 := c.moment(1), c.moment(2), c.moment(3), c.moment(4)
			if !close(c.d.Mean(), m1, 1e-12) {
				t.Errorf("Mean() = %v, closed form %v", c.d.Mean(), m1)
			}
			if !close(c.d.SecondMoment(), m2, 1e-10) {
				t.Errorf("SecondMoment() = %v, closed form %v", c.d.SecondMoment(), m2)
			}
			r := rand.New(rand.NewPCG(uint64(i)+1, 12345))
			// Welford for numerical stability.
			mean, sq := 0.0, 0.0
			for k := 1; k <= nSamples; k++ {
				x := c.d.Sample(r)
				if !(x >= 0) || math.IsInf(x, 0) {
					t.Fatalf("sample %d = %v", k, x)
				}
				dx := x - mean
				mean += dx / float64(k)
				sq += dx * (x - mean)
			}
			n := float64(nSamples)
			v := sq / (n - 1)
			sigma2 := m2 - m1*m1
			if math.IsInf(m2, 1) {
				t.Logf("infinite variance: mean %v (stated %v) not tested by standard errors", mean, m1)
				return
			}
			se := math.Sqrt(sigma2 / n)
			if math.Abs(mean-m1) > nSE*se+1e-12*m1 {
				t.Errorf("sample mean %v, want %v ± %v (5 SE)", mean, m1, nSE*se)
			}
			if math.IsInf(m4, 1) || math.IsInf(m3, 1) {
				t.Logf("infinite fourth moment: sample variance %v (stated %v) not tested", v, sigma2)
				return
			}
			mu4 := m4 - 4*m1*m3 + 6*m1*m1*m2 - 3*m1*m1*m1*m1
			seV := math.Sqrt(math.Max(mu4-sigma2*sigma2, 0) / n)
			if math.Abs(v-sigma2) > nSE*seV+1e-9*m2 {
				t.Errorf("sample variance %v, want %v ± %v (5 SE)", v, sigma2, nSE*seV)
			}
		})
	}
}

func close(a, b, rel float64) bool {
	if math.IsInf(b, 1) {
		return math.IsInf(a, 1)
	}
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// ksCritical is the asymptotic Kolmogorov-Smirnov critical value of D_n at
// significance ksAlpha: P(sqrt(n) D_n > x) ~ 2 exp(-2x^2).
func ksCritical(n int) float64 {
	return math.Sqrt(math.Log(2/ksAlpha)/2) / math.Sqrt(float64(n))
}

// TestKS compares 10^6 draws of each continuous law with its closed-form CDF
// (gonum distuv where it has the law).
func TestKS(t *testing.T) {
	for i, c := range lawCases(t) {
		if c.cdf == nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			n := nSamples
			r := rand.New(rand.NewPCG(uint64(i)+1000, 999))
			x := make([]float64, n)
			for k := range x {
				x[k] = c.d.Sample(r)
			}
			slices.Sort(x)
			d, crit := mc.KSDistance(x, c.cdf), ksCritical(n)
			if d > crit {
				t.Errorf("KS D = %.3g > critical %.3g (significance %g)", d, crit, ksAlpha)
			}
		})
	}
}

// TestKSDetectsWrongLaw checks the KS test has power: Erlang(4) samples
// against the Erlang(3) CDF, and a Pareto against the wrong alpha.
func TestKSDetectsWrongLaw(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	e4 := must(Erlang(4, 1))
	x := make([]float64, 100_000)
	for i := range x {
		x[i] = e4.Sample(r)
	}
	slices.Sort(x)
	if d := mc.KSDistance(x, distuv.Gamma{Alpha: 3, Beta: 3}.CDF); d < ksCritical(len(x)) {
		t.Errorf("Erlang(4) vs Erlang(3) CDF: D = %v, not rejected", d)
	}
	p := must(Pareto(2.5, 1))
	for i := range x {
		x[i] = p.Sample(r)
	}
	slices.Sort(x)
	lam := 1.5 * 1.05
	if d := mc.KSDistance(x, func(v float64) float64 { return distuv.Pareto{Xm: lam, Alpha: 2.5}.CDF(v + lam) }); d < ksCritical(len(x)) {
		t.Errorf("Pareto scale off by 5%%: D = %v, not rejected", d)
	}
}

// TestAtoms checks the laws with atoms by their point frequencies.
func TestAtoms(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	freq := func(d Distribution, f func(float64) bool) float64 {
		c := 0
		for k := 0; k < nSamples; k++ {
			if f(d.Sample(r)) {
				c++
			}
		}
		return float64(c) / nSamples
	}
	binom := func(name string, got, p float64) {
		t.Helper()
		if se := math.Sqrt(p * (1 - p) / nSamples); math.Abs(got-p) > nSE*se {
			t.Errorf("%s: frequency %v, want %v ± %v", name, got, p, nSE*se)
		}
	}
	det := must(Deterministic(1.5))
	if got := freq(det, func(x float64) bool { return x == 1.5 }); got != 1 {
		t.Errorf("det: P(S = 1.5) = %v", got)
	}
	for _, scv := range []float64{4, 0.5} {
		d := must(Bimodal(2, scv))
		a, b := 1.0, 2*(1+2*scv)
		if got := freq(d, func(x float64) bool { return x == a || x == b }); got != 1 {
			t.Errorf("%v: P(S in {%v, %v}) = %v", d, a, b, got)
		}
		binom(d.String(), freq(d, func(x float64) bool { return x == b }), 1/(1+4*scv))
	}
	ph := must(PhaseType(atomAlpha, atomT))
	binom("ph-atom P(S=0)", freq(ph, func(x float64) bool { return x == 0 }), 0.25)

	em := must(Empirical(empData))
	in := map[float64]bool{}
	for _, x := range empData {
		in[x] = true
	}
	if got := freq(em, func(x float64) bool { return in[x] }); got != 1 {
		t.Errorf("empirical: P(S in data) = %v", got)
	}
	// Uniform resampling: the first datum's frequency is 1/len.
	binom("empirical P(S = data[0])", freq(em, func(x float64) bool { return x == empData[0] }), 1.0/float64(len(empData)))
}

func TestHazard(t *testing.T) {
	for _, c := range lawCases(t) {
		if got := c.d.Hazard(); got != c.hazard {
			t.Errorf("%s: Hazard() = %v, want %v", c.name, got, c.hazard)
		}
	}
	// Phase-type recognition.
	for _, c := range []struct {
		alpha []float64
		T     [][]float64
		want  HazardClass
	}{
		{[]float64{1}, [][]float64{{-3}}, HazardConstant},
		{[]float64{0.3, 0.7}, [][]float64{{-1, 0}, {0, -5}}, HazardDecreasing},
		{[]float64{0.3, 0.7}, [][]float64{{-2, 0}, {0, -2}}, HazardConstant},
		{[]float64{1, 0}, [][]float64{{-1, 1}, {0, -5}}, HazardIncreasing}, // hypoexponential
		{[]float64{0.5, 0.5}, [][]float64{{-1, 1}, {0, -5}}, HazardNeither},
		{[]float64{0.5}, [][]float64{{-1}}, HazardNeither}, // atom at 0
	} {
		d := must(PhaseType(c.alpha, c.T))
		if got := d.Hazard(); got != c.want {
			t.Errorf("PhaseType(%v, %v).Hazard() = %v, want %v", c.alpha, c.T, got, c.want)
		}
	}
	if HazardClass(99).String() != "neither" || HazardDecreasing.String() != "decreasing" {
		t.Error("HazardClass.String")
	}
}

// TestPhaseTypeErlang: an Erlang written as phase-type has the Erlang moments.
func TestPhaseTypeErlang(t *testing.T) {
	for _, k := range []int{1, 2, 4, 10} {
		for _, mean := range []float64{0.5, 1, 3} {
			alpha := make([]float64, k)
			alpha[0] = 1
			T := make([][]float64, k)
			rate := float64(k) / mean
			for i := range T {
				T[i] = make([]float64, k)
				T[i][i] = -rate
				if i+1 < k {
					T[i][i+1] = rate
				}
			}
			ph := must(PhaseType(alpha, T))
			e := must(Erlang(k, mean))
			if !close(ph.Mean(), e.Mean(), 1e-12) || !close(ph.SecondMoment(), e.SecondMoment(), 1e-12) {
				t.Errorf("k=%d mean=%v: PH moments (%v, %v), Erlang (%v, %v)", k, mean,
					ph.Mean(), ph.SecondMoment(), e.Mean(), e.SecondMoment())
			}
			if ph.Hazard() != e.Hazard() {
				t.Errorf("k=%d: PH hazard %v, Erlang %v", k, ph.Hazard(), e.Hazard())
			}
			// Rescaled from a unit-rate chain to the mean.
			for i := range T {
				for j := range T[i] {
					T[i][j] /= rate
				}
			}
			ph = must(PhaseTypeWithMean(alpha, T, mean))
			if !close(ph.Mean(), e.Mean(), 1e-12) || !close(ph.SecondMoment(), e.SecondMoment(), 1e-12) {
				t.Errorf("k=%d mean=%v: rescaled PH moments (%v, %v), Erlang (%v, %v)", k, mean,
					ph.Mean(), ph.SecondMoment(), e.Mean(), e.SecondMoment())
			}
		}
	}
}

func TestPhaseTypeErrors(t *testing.T) {
	for _, c := range []struct {
		alpha []float64
		T     [][]float64
		want  string
	}{
		{nil, nil, "len(alpha) = 0"},
		{[]float64{1}, [][]float64{{-1}, {0}}, "len(T) = 2"},
		{[]float64{1, 0}, [][]float64{{-1, 0}, {0}}, "len(T[1]) = 1"},
		{[]float64{0.7, 0.7}, [][]float64{{-1, 0}, {0, -1}}, "sum(alpha) = 1.4"},
		{[]float64{0, 0}, [][]float64{{-1, 0}, {0, -1}}, "sum(alpha) = 0"},
		{[]float64{-0.1, 1}, [][]float64{{-1, 0}, {0, -1}}, "alpha[0] = -0.1"},
		{[]float64{1, 0}, [][]float64{{0, 0}, {0, -1}}, "T[0][0] = 0: must be < 0"},
		{[]float64{1, 0}, [][]float64{{-1, -0.5}, {0, -1}}, "T[0][1] = -0.5: must be >= 0"},
		{[]float64{1, 0}, [][]float64{{-1, 2}, {0, -1}}, "row sum of T[0] = 1: must be <= 0"},
		{[]float64{1, 0}, [][]float64{{-1, 1}, {1, -1}}, "nonsingular"},
		{[]float64{1, 0}, [][]float64{{-1, math.NaN()}, {0, -1}}, "T[0][1] = NaN"},
	} {
		_, err := PhaseType(c.alpha, c.T)
		if err == nil || !contains1(err.Error(), c.want) {
			t.Errorf("PhaseType(%v, %v): err %v, want containing %q", c.alpha, c.T, err, c.want)
		}
	}
	if _, err := PhaseTypeWithMean([]float64{1}, [][]float64{{-1}}, 0); err == nil || !contains1(err.Error(), "mean = 0") {
		t.Errorf("PhaseTypeWithMean mean 0: %v", err)
	}
}

func contains1(s, sub string) bool { return len(sub) == 0 || indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestConstructorErrors(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, c := range []struct {
		name string
		f    func() (Distribution, error)
		want string
	}{
		{"exp", func() (Distribution, error) { return Exponential(0) }, "service: exp: mean = 0: must be a finite number > 0"},
		{"det", func() (Distribution, error) { return Deterministic(inf) }, "service: det: mean = +Inf"},
		{"erlang k", func() (Distribution, error) { return Erlang(0, 1) }, "service: erlang: k = 0: must be an integer >= 1"},
		{"erlang mean", func() (Distribution, error) { return Erlang(2, -1) }, "service: erlang: mean = -1"},
		{"hyper len", func() (Distribution, error) { return Hyperexponential([]float64{1}, []float64{1, 2}) }, "len(means) = 2"},
		{"hyper empty", func() (Distribution, error) { return Hyperexponential(nil, nil) }, "len(probs) = 0"},
		{"hyper sum", func() (Distribution, error) { return Hyperexponential([]float64{0.5, 0.4}, []float64{1, 2}) }, "sum(probs) = 0.9"},
		{"hyper p", func() (Distribution, error) { return Hyperexponential([]float64{1.5, -0.5}, []float64{1, 2}) }, "probs[1] = -0.5"},
		{"hyper m", func() (Distribution, error) { return Hyperexponential([]float64{0.5, 0.5}, []float64{1, 0}) }, "means[1] = 0"},
		{"hyperscv", func() (Distribution, error) { return HyperexpSCV(1, 1) }, "service: hyperexp: scv = 1: must be a finite number > 1"},
		{"hyperscv nan", func() (Distribution, error) { return HyperexpSCV(1, nan) }, "scv = NaN"},
		{"bimodal", func() (Distribution, error) { return Bimodal(1, 0) }, "service: bimodal: scv = 0: must be a finite number > 0"},
		{"pareto", func() (Distribution, error) { return Pareto(1, 1) }, "service: pareto: alpha = 1: must be a finite number > 1"},
		{"weibull", func() (Distribution, error) { return Weibull(-1, 1) }, "service: weibull: shape = -1"},
		{"weibull tiny", func() (Distribution, error) { return Weibull(0.001, 1) }, "shape = 0.001"},
		{"lognormal", func() (Distribution, error) { return Lognormal(0, 1) }, "service: lognormal: sigma = 0"},
		{"lognormal big", func() (Distribution, error) { return Lognormal(40, 1) }, "sigma = 40"},
		{"empirical empty", func() (Distribution, error) { return Empirical(nil) }, "number of samples = 0"},
		{"empirical neg", func() (Distribution, error) { return Empirical([]float64{1, -1}) }, "samples[1] = -1"},
		{"empirical zero", func() (Distribution, error) { return Empirical([]float64{0, 0}) }, "mean of the samples = 0"},
		{"empirical mean", func() (Distribution, error) { return EmpiricalWithMean([]float64{1}, -2) }, "mean = -2"},
	} {
		d, err := c.f()
		if err == nil || !contains1(err.Error(), c.want) {
			t.Errorf("%s: got (%v, %v), want error containing %q", c.name, d, err, c.want)
		}
	}
}

// TestNoAllocs checks Sample does not allocate, for every law.
func TestNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, c := range lawCases(t) {
		d := c.d
		if a := testing.AllocsPerRun(1000, func() { d.Sample(r) }); a != 0 {
			t.Errorf("%s: Sample allocates %v per call", c.name, a)
		}
	}
}

func BenchmarkSample(b *testing.B) {
	for _, c := range lawCases(b) {
		b.Run(c.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			d := c.d
			b.ReportAllocs()
			s := 0.0
			for b.Loop() {
				s += d.Sample(r)
			}
			if s < 0 {
				b.Fatal(s)
			}
		})
	}
}

// TestPHCDF checks the eigendecomposition CDF used by TestKS against the
// matrix exponential, 1 - alpha exp(Tx) 1.
func TestPHCDF(t *testing.T) {
	f := phCDF(coxAlpha, coxT)
	td := mat.NewDense(3, 3, nil)
	for i := range coxT {
		for j := range coxT[i] {
			td.Set(i, j, coxT[i][j])
		}
	}
	for _, x := range []float64{0, 0.1, 0.5, 2, 10, 50} {
		var tx, e mat.Dense
		tx.Scale(x, td)
		e.Exp(&tx)
		v := mat.NewVecDense(3, nil)
		v.MulVec(e.T(), mat.NewVecDense(3, coxAlpha))
		want := 1 - mat.Sum(v)
		if math.Abs(f(x)-want) > 1e-12 {
			t.Errorf("phCDF(%v) = %v, expm gives %v", x, f(x), want)
		}
	}
}
