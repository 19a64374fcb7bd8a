package service

import (
	"math"
	"sort"
)

// The functions below give the numerical form of a law, for code that
// integrates against it (the exact cavity solver in lbsim/cavity) rather than
// sampling it. Each reports ok = false for the laws it does not describe.

// Atoms returns the support of a law made of finitely many atoms
// (deterministic, bimodal, empirical): S = points[i] with probability
// probs[i], points increasing, duplicates merged.
func Atoms(d Distribution) (points, probs []float64, ok bool) {
	switch l := d.(type) {
	case deterministic:
		return []float64{l.mean}, []float64{1}, true
	case bimodal:
		return []float64{l.a, l.b}, []float64{1 - l.q, l.q}, true
	case *empirical:
		x := append([]float64(nil), l.data...)
		sort.Float64s(x)
		w := 1 / float64(len(x))
		for i, v := range x {
			if i > 0 && v == x[i-1] {
				probs[len(probs)-1] += w
				continue
			}
			points, probs = append(points, v), append(probs, w)
		}
		return points, probs, true
	}
	return nil, nil, false
}

// ExpMixture returns the phases of a law that is a finite mixture of
// exponentials (exponential, hyperexponential): S is exponential with rate
// rates[i] with probability probs[i].
func ExpMixture(d Distribution) (rates, probs []float64, ok bool) {
	switch l := d.(type) {
	case exponential:
		return []float64{1 / l.mean}, []float64{1}, true
	case *hyperexp:
		for i, m := range l.means {
			rates, probs = append(rates, 1/m), append(probs, l.probs[i])
		}
		return rates, probs, true
	}
	return nil, nil, false
}

// GammaMixture returns the mixing law of the Lomax (Pareto) law as an
// exponential mixture: S is exponential with rate T, T ~ Gamma(shape, rate),
// since P(S > x) = E[exp(-T x)] = (1 + x/rate)^-shape. shape is alpha and
// rate the Lomax scale mean(alpha-1).
func GammaMixture(d Distribution) (shape, rate float64, ok bool) {
	if l, isPareto := d.(pareto); isPareto {
		return l.alpha, l.lambda, true
	}
	return 0, 0, false
}

// PH returns a phase-type representation (alpha, T) of the exponential,
// Erlang, hyperexponential and phase-type laws: S is the absorption time of
// the chain with sub-generator T started from alpha (an atom at 0 of mass
// 1 - sum(alpha)).
func PH(d Distribution) (alpha []float64, T [][]float64, ok bool) {
	switch l := d.(type) {
	case exponential, *hyperexp:
		rates, probs, _ := ExpMixture(l)
		T = make([][]float64, len(rates))
		for i, r := range rates {
			T[i] = make([]float64, len(rates))
			T[i][i] = -r
		}
		return probs, T, true
	case erlang:
		T = make([][]float64, l.k)
		for i := range T {
			T[i] = make([]float64, l.k)
			T[i][i] = -1 / l.theta
			if i+1 < l.k {
				T[i][i+1] = 1 / l.theta
			}
		}
		alpha = make([]float64, l.k)
		alpha[0] = 1
		return alpha, T, true
	case *phaseType:
		T = make([][]float64, l.n)
		for i := range T {
			T[i] = make([]float64, l.n)
			for j := range T[i] {
				T[i][j] = l.t.At(i, j)
			}
		}
		return append([]float64(nil), l.alpha...), T, true
	}
	return nil, nil, false
}

// Density returns the density and the survival function P(S > x) of the
// laws that have a density: exponential, Erlang, hyperexponential, Pareto
// (Lomax), Weibull and lognormal.
func Density(d Distribution) (pdf, survival func(x float64) float64, ok bool) {
	switch l := d.(type) {
	case exponential:
		return func(x float64) float64 { return math.Exp(-x/l.mean) / l.mean },
			func(x float64) float64 { return math.Exp(-x / l.mean) }, true
	case erlang:
		k := float64(l.k)
		lg, _ := math.Lgamma(k)
		return func(x float64) float64 {
				if x <= 0 {
					if l.k == 1 {
						return 1 / l.theta
					}
					return 0
				}
				return math.Exp((k-1)*math.Log(x/l.theta)-x/l.theta-lg) / l.theta
			}, func(x float64) float64 {
				// P(Poisson(x/theta) < k).
				s, term := 0.0, math.Exp(-x/l.theta)
				for i := 0; i < l.k; i++ {
					s += term
					term *= x / l.theta / float64(i+1)
				}
				return s
			}, true
	case *hyperexp:
		return func(x float64) float64 {
				s := 0.0
				for i, m := range l.means {
					s += l.probs[i] * math.Exp(-x/m) / m
				}
				return s
			}, func(x float64) float64 {
				s := 0.0
				for i, m := range l.means {
					s += l.probs[i] * math.Exp(-x/m)
				}
				return s
			}, true
	case pareto:
		return func(x float64) float64 { return l.alpha / l.lambda * math.Pow(1+x/l.lambda, -l.alpha-1) },
			func(x float64) float64 { return math.Pow(1+x/l.lambda, -l.alpha) }, true
	case weibull:
		return func(x float64) float64 {
			if x <= 0 {
				if l.shape == 1 {
					return 1 / l.lambda
				}
				if l.shape < 1 {
					return math.Inf(1)
				}
				return 0
			}
			z := x / l.lambda
			return l.shape / l.lambda * math.Pow(z, l.shape-1) * math.Exp(-math.Pow(z, l.shape))
		}, func(x float64) float64 { return math.Exp(-math.Pow(math.Max(x, 0)/l.lambda, l.shape)) }, true
	case lognormal:
		return func(x float64) float64 {
				if x <= 0 {
					return 0
				}
				z := (math.Log(x) - l.mu) / l.sigma
				return math.Exp(-z*z/2) / (x * l.sigma * math.Sqrt(2*math.Pi))
			}, func(x float64) float64 {
				if x <= 0 {
					return 1
				}
				return math.Erfc((math.Log(x)-l.mu)/(l.sigma*math.Sqrt2)) / 2
			}, true
	}
	return nil, nil, false
}
