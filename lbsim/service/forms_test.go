package service

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// Each numerical form describes the law it comes from: densities integrate
// to 1 with the law's mean and match their survival function; atoms, mixture
// phases and phase-type representations reproduce the mean and second
// moment.
func TestForms(t *testing.T) {
	for _, spec := range []string{"exp", "erlang:k=3", "hyperexp:scv=4", "pareto:alpha=3", "weibull:shape=2", "lognormal:sigma=0.5"} {
		d, _ := Parse(spec)
		pdf, surv, ok := Density(d)
		if !ok {
			t.Fatalf("%s: no density", spec)
		}
		// On x = t/(1-t), t in [0, 1).
		f := func(g func(float64) float64) float64 {
			return quad.Fixed(func(u float64) float64 {
				x := u / (1 - u)
				return g(x) / ((1 - u) * (1 - u))
			}, 0, 1, 2000, nil, 0)
		}
		mass := f(pdf)
		mean := f(func(x float64) float64 { return x * pdf(x) })
		if math.Abs(mass-1) > 1e-6 || math.Abs(mean-d.Mean()) > 1e-4 {
			t.Errorf("%s: mass %v, mean %v (want 1, %v)", spec, mass, mean, d.Mean())
		}
		mid := quad.Fixed(pdf, 0, 1, 200, nil, 0)
		if math.Abs(1-mid-surv(1)) > 1e-6 {
			t.Errorf("%s: P(S > 1) %v, 1 - int_0^1 pdf %v", spec, surv(1), 1-mid)
		}
	}
	for _, spec := range []string{"det", "bimodal:scv=4"} {
		d, _ := Parse(spec)
		pts, probs, ok := Atoms(d)
		m, m2 := 0.0, 0.0
		for i, p := range probs {
			m, m2 = m+p*pts[i], m2+p*pts[i]*pts[i]
		}
		if !ok || math.Abs(m-d.Mean()) > 1e-12 || math.Abs(m2-d.SecondMoment()) > 1e-12 {
			t.Errorf("%s: atoms %v %v", spec, pts, probs)
		}
	}
	e, _ := Empirical([]float64{1, 2, 2, 3})
	if pts, probs, _ := Atoms(e); len(pts) != 3 || probs[1] != 0.5 {
		t.Errorf("empirical atoms %v %v", pts, probs)
	}
	h, _ := Parse("hyperexp:scv=4")
	rates, probs, ok := ExpMixture(h)
	m2 := 0.0
	for i, r := range rates {
		m2 += probs[i] * 2 / (r * r)
	}
	if !ok || math.Abs(m2-h.SecondMoment()) > 1e-12 {
		t.Errorf("hyperexp mixture: E[S^2] %v, want %v", m2, h.SecondMoment())
	}
	p, _ := Parse("pareto:alpha=3")
	shape, rate, ok := GammaMixture(p)
	// E[S] = E[1/T] = rate/(shape-1) for T ~ Gamma(shape, rate).
	if !ok || math.Abs(rate/(shape-1)-p.Mean()) > 1e-12 {
		t.Errorf("Lomax mixture: shape %v, rate %v", shape, rate)
	}
	for _, spec := range []string{"exp", "erlang:k=3", "hyperexp:scv=4"} {
		d, _ := Parse(spec)
		alpha, T, ok := PH(d)
		ph, err := PhaseType(alpha, T)
		if !ok || err != nil || math.Abs(ph.Mean()-d.Mean()) > 1e-12 || math.Abs(ph.SecondMoment()-d.SecondMoment()) > 1e-9 {
			t.Errorf("%s: PH form %v", spec, err)
		}
	}
	if _, _, ok := Atoms(p); ok {
		t.Errorf("Lomax has no atoms")
	}
}
