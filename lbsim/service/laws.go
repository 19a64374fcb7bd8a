package service

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// paramError is the error for a parameter out of range, e.g.
// "service: erlang: k = 0: must be an integer >= 1".
func paramError(law, param string, value any, must string) error {
	return fmt.Errorf("service: %s: %s = %v: must be %s", law, param, value, must)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// checkMean validates a mean: finite and > 0.
func checkMean(law string, mean float64) error {
	if !(mean > 0) || !finite(mean) {
		return paramError(law, "mean", mean, "a finite number > 0")
	}
	return nil
}

// ---------------------------------------------------------------- Erlang

// erlangSumMax is the largest k for which Erlang samples are drawn as a sum of
// k exponentials; above it the Marsaglia-Tsang gamma method is used (O(1)).
const erlangSumMax = 5

// Erlang is the Erlang law with k >= 1 phases and the given mean: the sum of k
// independent exponentials of mean mean/k, i.e. Gamma(shape k, rate k/mean).
// E[S^2] = mean^2 (1 + 1/k), SCV 1/k. Hazard rate increasing for k >= 2
// (constant for k = 1, which is the exponential).
func Erlang(k int, mean float64) (Distribution, error) {
	if k < 1 {
		return nil, paramError("erlang", "k", k, "an integer >= 1")
	}
	if err := checkMean("erlang", mean); err != nil {
		return nil, err
	}
	d := float64(k) - 1.0/3 // shape - 1/3, for Marsaglia-Tsang
	return erlang{k: k, mean: mean, theta: mean / float64(k), d: d, c: 1 / math.Sqrt(9*d)}, nil
}

type erlang struct {
	k           int
	mean, theta float64 // theta = mean/k, the phase mean
	d, c        float64 // Marsaglia-Tsang constants
}

func (e erlang) Sample(r *rand.Rand) float64 {
	if e.k <= erlangSumMax {
		s := 0.0
		for i := 0; i < e.k; i++ {
			s += r.ExpFloat64()
		}
		return e.theta * s
	}
	// Marsaglia and Tsang (2000), shape k >= 1.
	for {
		x := r.NormFloat64()
		v := 1 + e.c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 {
			return e.theta * e.d * v
		}
		if u > 0 && math.Log(u) < 0.5*x2+e.d*(1-v+math.Log(v)) {
			return e.theta * e.d * v
		}
	}
}
func (e erlang) Mean() float64         { return e.mean }
func (e erlang) SecondMoment() float64 { return e.mean * e.mean * (1 + 1/float64(e.k)) }
func (e erlang) Hazard() HazardClass {
	if e.k == 1 {
		return HazardConstant
	}
	return HazardIncreasing
}
func (e erlang) String() string { return fmt.Sprintf("erlang(k=%d,mean=%g)", e.k, e.mean) }

// ------------------------------------------------------- Hyperexponential

// maxPhases bounds the number of phases of a hyperexponential or phase-type
// law (a sanity limit; sampling is linear in it).
const maxPhases = 1 << 12

// Hyperexponential is the mixture that is exponential with mean means[i] with
// probability probs[i]. probs must be >= 0 and sum to 1 (within 1e-9; they
// are renormalised), means finite and > 0. Its mean is sum p_i m_i and
// E[S^2] = 2 sum p_i m_i^2. Hazard rate decreasing (constant when all phase
// means with positive probability are equal).
func Hyperexponential(probs, means []float64) (Distribution, error) {
	const law = "hyperexp"
	if len(probs) == 0 || len(probs) > maxPhases {
		return nil, paramError(law, "len(probs)", len(probs), fmt.Sprintf("between 1 and %d", maxPhases))
	}
	if len(means) != len(probs) {
		return nil, paramError(law, "len(means)", len(means), fmt.Sprintf("len(probs) = %d", len(probs)))
	}
	sum := 0.0
	for i, p := range probs {
		if !(p >= 0) || !finite(p) {
			return nil, paramError(law, fmt.Sprintf("probs[%d]", i), p, "a finite number >= 0")
		}
		sum += p
	}
	if math.Abs(sum-1) > 1e-9 {
		return nil, paramError(law, "sum(probs)", sum, "1")
	}
	for i, m := range means {
		if !(m > 0) || !finite(m) {
			return nil, paramError(law, fmt.Sprintf("means[%d]", i), m, "a finite number > 0")
		}
	}
	h := &hyperexp{probs: make([]float64, len(probs)), means: make([]float64, len(means)), cum: make([]float64, len(probs))}
	c := 0.0
	for i := range probs {
		h.probs[i] = probs[i] / sum
		h.means[i] = means[i]
		c += h.probs[i]
		h.cum[i] = c
		h.mean += h.probs[i] * means[i]
		h.m2 += 2 * h.probs[i] * means[i] * means[i]
	}
	h.cum[len(h.cum)-1] = 1
	return h, nil
}

// HyperexpSCV is the two-phase hyperexponential with the given mean and
// squared coefficient of variation scv > 1, with balanced means (each phase
// contributes mean/2 to the mean): p = (1 + sqrt((scv-1)/(scv+1)))/2, phase
// rates 2p/mean (probability p) and 2(1-p)/mean (probability 1-p).
// E[S^2] = mean^2 (1 + scv).
func HyperexpSCV(mean, scv float64) (Distribution, error) {
	const law = "hyperexp"
	if !(scv > 1) || !finite(scv) {
		return nil, paramError(law, "scv", scv, "a finite number > 1")
	}
	if err := checkMean(law, mean); err != nil {
		return nil, err
	}
	p := (1 + math.Sqrt((scv-1)/(scv+1))) / 2
	d, err := Hyperexponential([]float64{p, 1 - p}, []float64{mean / (2 * p), mean / (2 * (1 - p))})
	if err != nil {
		return nil, err
	}
	h := d.(*hyperexp)
	h.scv = scv
	h.mean, h.m2 = mean, mean*mean*(1+scv) // exact, rather than summed
	return h, nil
}

type hyperexp struct {
	probs, means, cum []float64
	mean, m2          float64
	scv               float64 // > 0 when built by HyperexpSCV
}

func (h *hyperexp) Sample(r *rand.Rand) float64 {
	u := r.Float64()
	i := 0
	for i < len(h.cum)-1 && u >= h.cum[i] {
		i++
	}
	return h.means[i] * r.ExpFloat64()
}
func (h *hyperexp) Mean() float64         { return h.mean }
func (h *hyperexp) SecondMoment() float64 { return h.m2 }
func (h *hyperexp) Hazard() HazardClass {
	first := -1.0
	for i, p := range h.probs {
		if p == 0 {
			continue
		}
		if first < 0 {
			first = h.means[i]
		} else if h.means[i] != first {
			return HazardDecreasing
		}
	}
	return HazardConstant
}
func (h *hyperexp) String() string {
	if h.scv > 0 {
		return fmt.Sprintf("hyperexp(scv=%g,mean=%g)", h.scv, h.mean)
	}
	return fmt.Sprintf("hyperexp(probs=%s,means=%s)", floatList(h.probs), floatList(h.means))
}

func floatList(x []float64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range x {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	b.WriteByte(']')
	return b.String()
}

// ----------------------------------------------------------------- Bimodal

// Bimodal is the two-point law with the given mean and squared coefficient of
// variation scv > 0, with the small point fixed at half the mean:
//
//	S = a = mean/2          with probability 1-q,
//	S = b = mean (1 + 2scv) with probability q = 1/(1 + 4scv).
//
// (Check: (1-q)a + qb = mean and q(1-q)(b-a)^2 = scv mean^2.) Every service
// time is at least mean/2 > 0, so there are no zero-length tasks; large scv
// gives rare huge tasks (scv = 4: 1/17 of the tasks have size 9, the rest
// size 1/2). The hazard rate of a law with atoms is neither increasing nor
// decreasing.
func Bimodal(mean, scv float64) (Distribution, error) {
	const law = "bimodal"
	if !(scv > 0) || !finite(scv) {
		return nil, paramError(law, "scv", scv, "a finite number > 0")
	}
	if err := checkMean(law, mean); err != nil {
		return nil, err
	}
	q := 1 / (1 + 4*scv)
	return bimodal{mean: mean, scv: scv, a: mean / 2, b: mean * (1 + 2*scv), q: q}, nil
}

type bimodal struct{ mean, scv, a, b, q float64 }

func (d bimodal) Sample(r *rand.Rand) float64 {
	if r.Float64() < d.q {
		return d.b
	}
	return d.a
}
func (d bimodal) Mean() float64         { return d.mean }
func (d bimodal) SecondMoment() float64 { return d.mean * d.mean * (1 + d.scv) }
func (d bimodal) Hazard() HazardClass   { return HazardNeither }
func (d bimodal) String() string        { return fmt.Sprintf("bimodal(scv=%g,mean=%g)", d.scv, d.mean) }

// ------------------------------------------------------------------ Pareto

// Pareto is the Lomax (Pareto type II, shifted to start at 0) law with shape
// alpha > 1 and the given mean: P(S > x) = (1 + x/lambda)^-alpha with scale
// lambda = mean (alpha-1). It is chosen over the classic (type I) Pareto
// because its hazard rate alpha/(lambda + x) is decreasing on all of [0, inf)
// (the type I law has hazard 0 below its minimum x_m, so is not DHR).
// E[S^2] = 2 lambda^2 / ((alpha-1)(alpha-2)) for alpha > 2, +Inf for
// alpha <= 2. S + lambda is classic Pareto with x_m = lambda.
func Pareto(alpha, mean float64) (Distribution, error) {
	const law = "pareto"
	if !(alpha > 1) || !finite(alpha) {
		return nil, paramError(law, "alpha", alpha, "a finite number > 1 (for a finite mean)")
	}
	if err := checkMean(law, mean); err != nil {
		return nil, err
	}
	return pareto{alpha: alpha, mean: mean, lambda: mean * (alpha - 1), inv: 1 / alpha}, nil
}

type pareto struct{ alpha, mean, lambda, inv float64 }

// Sample inverts the survival function: (1+S/lambda)^alpha = e^E with E ~ Exp(1).
func (p pareto) Sample(r *rand.Rand) float64 {
	return p.lambda * math.Expm1(r.ExpFloat64()*p.inv)
}
func (p pareto) Mean() float64 { return p.mean }
func (p pareto) SecondMoment() float64 {
	if p.alpha <= 2 {
		return math.Inf(1)
	}
	return 2 * p.lambda * p.lambda / ((p.alpha - 1) * (p.alpha - 2))
}
func (p pareto) Hazard() HazardClass { return HazardDecreasing }
func (p pareto) String() string      { return fmt.Sprintf("pareto(alpha=%g,mean=%g)", p.alpha, p.mean) }

// ----------------------------------------------------------------- Weibull

// Weibull is the Weibull law with the given shape > 0 and mean:
// P(S > x) = exp(-(x/lambda)^shape), scale lambda = mean / Gamma(1 + 1/shape).
// E[S^2] = lambda^2 Gamma(1 + 2/shape). Hazard rate increasing for shape > 1,
// decreasing for shape < 1, constant for shape = 1 (exponential).
func Weibull(shape, mean float64) (Distribution, error) {
	const law = "weibull"
	if !(shape > 0) || !finite(shape) {
		return nil, paramError(law, "shape", shape, "a finite number > 0")
	}
	if err := checkMean(law, mean); err != nil {
		return nil, err
	}
	lambda := mean / math.Gamma(1+1/shape)
	m2 := lambda * lambda * math.Gamma(1+2/shape)
	if !(lambda > 0) || !finite(lambda) || !finite(m2) {
		return nil, paramError(law, "shape", shape, "large enough for finite moments (e.g. >= 0.01)")
	}
	return weibull{shape: shape, mean: mean, lambda: lambda, inv: 1 / shape, m2: m2}, nil
}

type weibull struct{ shape, mean, lambda, inv, m2 float64 }

func (w weibull) Sample(r *rand.Rand) float64 {
	return w.lambda * math.Pow(r.ExpFloat64(), w.inv)
}
func (w weibull) Mean() float64         { return w.mean }
func (w weibull) SecondMoment() float64 { return w.m2 }
func (w weibull) Hazard() HazardClass {
	switch {
	case w.shape > 1:
		return HazardIncreasing
	case w.shape < 1:
		return HazardDecreasing
	}
	return HazardConstant
}
func (w weibull) String() string { return fmt.Sprintf("weibull(shape=%g,mean=%g)", w.shape, w.mean) }

// --------------------------------------------------------------- Lognormal

// Lognormal is the law of exp(mu + sigma N), N standard normal, with sigma > 0
// and the given mean: mu = ln(mean) - sigma^2/2. E[S^2] = mean^2 exp(sigma^2),
// SCV exp(sigma^2) - 1. The hazard rate rises then falls (neither).
func Lognormal(sigma, mean float64) (Distribution, error) {
	const law = "lognormal"
	if !(sigma > 0) || !finite(sigma) {
		return nil, paramError(law, "sigma", sigma, "a finite number > 0")
	}
	if err := checkMean(law, mean); err != nil {
		return nil, err
	}
	m2 := mean * mean * math.Exp(sigma*sigma)
	if !finite(m2) {
		return nil, paramError(law, "sigma", sigma, "small enough for a finite second moment")
	}
	return lognormal{sigma: sigma, mean: mean, mu: math.Log(mean) - sigma*sigma/2, m2: m2}, nil
}

type lognormal struct{ sigma, mean, mu, m2 float64 }

func (l lognormal) Sample(r *rand.Rand) float64 { return math.Exp(l.mu + l.sigma*r.NormFloat64()) }
func (l lognormal) Mean() float64               { return l.mean }
func (l lognormal) SecondMoment() float64       { return l.m2 }
func (l lognormal) Hazard() HazardClass         { return HazardNeither }
func (l lognormal) String() string {
	return fmt.Sprintf("lognormal(sigma=%g,mean=%g)", l.sigma, l.mean)
}
