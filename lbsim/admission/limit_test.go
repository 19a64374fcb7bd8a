package admission

import (
	"fmt"
	"math"
	"testing"
)

var limitLaws = []Revenue{Linear{A: 1, B: 1}, Linear{A: 2, B: 0.5}, Linear{A: 0, B: 3}, Exponential{A: 1, B: 1},
	Exponential{A: 3, B: 0.2}}

var limitBetas = []float64{-2, -0.5, 0, 1e-9, 0.5, 1.5, 4}

// wrap hides the closed forms of a law, so that the limit integrates it by
// quadrature.
func wrap(r Revenue) Revenue { return Func(r.At) }

// The closed forms of the limit integrals (Linear, Exponential) agree with
// Gauss-Legendre quadrature of the same law to 1e-12 (the quadrature
// integrates smooth pieces to near rounding; the kink of r is at 0, a
// panel edge).
func TestClosedFormsAgainstQuadrature(t *testing.T) {
	for _, r := range limitLaws {
		for _, beta := range limitBetas {
			for _, eta := range []float64{0, 0.01, 0.7, 3} {
				l := Limit{Beta: beta}
				got, err := l.RevenueRate(r, eta)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := l.RevenueRate(wrap(r), eta)
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("%v beta=%v eta=%v: closed form %v, quadrature %v", r, beta, eta, got, want)
				}
			}
		}
	}
}

// The limiting density integrates to 1 and is the limit of the scaled
// exact law sqrt(s) pi(s + x sqrt(s)): at s = 1e6 they agree to 2e-3
// everywhere (the error is O(1/sqrt(s)): about 0.4/sqrt(s) observed).
func TestDensityAgainstExactLaw(t *testing.T) {
	for _, beta := range []float64{-1, 0, 0.5, 2} {
		const eta = 1.5
		l := Limit{Beta: beta}
		mass := integrate(func(x float64) float64 { return l.Density(eta, x) }, -20, 0, 0.1) +
			integrate(func(x float64) float64 { return l.Density(eta, x) }, 0, eta, 0.1)
		if math.Abs(mass-1) > 1e-12 {
			t.Errorf("beta=%v: the density integrates to %v", beta, mass)
		}
		const s = 1_000_000
		tau := int(eta * 1000)
		pi, err := System{Servers: s, Beta: beta}.Stationary(tau)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for k := s - 8000; k <= s+tau; k++ {
			x := float64(k-s) / 1000
			worst = math.Max(worst, math.Abs(1000*pi[k]-l.Density(eta, x)))
		}
		if worst > 2e-3 {
			t.Errorf("beta=%v: scaled exact law and limiting density differ by %v", beta, worst)
		}
	}
}

// The exact scaled revenue converges to the limit at rate 1/sqrt(s):
// |R_s(tau) - R(tau/sqrt(s))| <= 1.5/sqrt(s) at s = 1e4, 1e5, 1e6 with tau
// = round(eta sqrt(s)) (observed: at most about 0.94/sqrt(s), for the
// steepest laws, b = 3 and a = 3), and the error shrinks at least 8-fold
// from s = 1e4 to 1e6 (10-fold for an exact 1/sqrt(s) rate).
func TestExactRevenueConvergesToLimit(t *testing.T) {
	worst := 0.0
	for _, r := range limitLaws {
		for _, beta := range []float64{-1, 0, 0.5, 1.5} {
			for _, eta := range []float64{0, 0.5, 1, 2} {
				var diffs []float64
				for _, s := range []int{10_000, 100_000, 1_000_000} {
					sq := math.Sqrt(float64(s))
					tau := int(math.Round(eta * sq))
					got, err := System{Servers: s, Beta: beta}.RevenueRate(r, tau)
					if err != nil {
						t.Fatal(err)
					}
					limit, err := Limit{Beta: beta}.RevenueRate(r, float64(tau)/sq)
					if err != nil {
						t.Fatal(err)
					}
					d := math.Abs(got - limit)
					worst = math.Max(worst, d*sq)
					diffs = append(diffs, d)
					if d > 1.5/sq {
						t.Errorf("%v beta=%v eta=%v s=%d: R_s = %v, R = %v (diff %.3g > 1.5/sqrt(s))", r, beta, eta, s, got, limit, d)
					}
				}
				if diffs[2] > diffs[0]/8+1e-12 {
					t.Errorf("%v beta=%v eta=%v: errors %v do not fall like 1/sqrt(s)", r, beta, eta, diffs)
				}
			}
		}
	}
	t.Logf("worst |R_s - R| sqrt(s) = %.3f", worst)
}

// eta* is the maximiser of R: a golden-section search on R (independent of
// the fundamental equation) finds the same point to within what comparisons
// of R can resolve (below 1e-6 for |beta| <= 1.5; R is very flat at beta =
// 4, where little mass is queued), never a better value, and no point of a
// grid beats R(eta*).
func TestOptimalEtaMaximisesRevenue(t *testing.T) {
	for _, r := range append(limitLaws, wrap(Exponential{A: 2, B: 1}), Func(func(x float64) float64 { return -x * x })) {
		for _, beta := range limitBetas {
			l := Limit{Beta: beta}
			opt, err := l.OptimalEta(r)
			if err != nil {
				t.Fatal(err)
			}
			R := func(eta float64) float64 { v, _ := l.RevenueRate(r, eta); return v }
			if f, _ := l.Fundamental(r, opt.Eta); math.Abs(f) > 1e-9 {
				t.Errorf("%v beta=%v: r - R = %v at eta* = %v", r, beta, f, opt.Eta)
			}
			lo, hi := 0.0, 2*opt.Eta+1
			g := (math.Sqrt(5) - 1) / 2
			for hi-lo > 1e-9 {
				a, b := hi-g*(hi-lo), lo+g*(hi-lo)
				if R(a) < R(b) {
					lo = a
				} else {
					hi = b
				}
			}
			// Near eta* R differs from R(eta*) by R''(eta*) d^2/2 with
			// R''(eta*) = f(eta*) r'(eta*)/Z(eta*): comparisons of R values,
			// rounded to 1e-16, resolve eta to about sqrt(4e-16/|R''|).
			rPrime := (r.At(opt.Eta+1e-6) - r.At(opt.Eta-1e-6)) / 2e-6
			curv := l.Density(opt.Eta, opt.Eta) * rPrime
			resolution := math.Sqrt(4e-16*math.Max(1, math.Abs(opt.Revenue))/math.Abs(curv)) + 1e-8
			if golden := (lo + hi) / 2; math.Abs(golden-opt.Eta) > 10*resolution || R(golden) > opt.Revenue+1e-15 {
				t.Errorf("%v beta=%v: eta* = %v, golden section %v (resolution %.2g)", r, beta, opt.Eta, golden, resolution)
			}
			for eta := 0.0; eta < 3*opt.Eta+2; eta += 0.01 {
				if R(eta) > opt.Revenue+1e-15 {
					t.Errorf("%v beta=%v: R(%v) = %v > R(eta*) = %v", r, beta, eta, R(eta), opt.Revenue)
				}
			}
		}
	}
}

// The explicit equations of the linear law: at beta = 0 eta* solves a
// quadratic (to 1e-9: the 1e-10 tolerance of the bisection); for any beta
// eta* is the root of LinearEquation (|residual| <= 1e-10 times its slope
// scale b).
func TestLinearExplicit(t *testing.T) {
	for _, ab := range [][2]float64{{1, 1}, {2, 0.5}, {0.3, 4}} {
		r := Linear{A: ab[0], B: ab[1]}
		opt, err := Limit{Beta: 0}.OptimalEta(r)
		if err != nil {
			t.Fatal(err)
		}
		if want := LinearEtaBetaZero(r.A, r.B); math.Abs(opt.Eta-want) > 1e-9 {
			t.Errorf("%v: eta* = %v, closed form %v", r, opt.Eta, want)
		}
		// At the optimum R(eta*) = r(eta*) = 1 - b eta*.
		if math.Abs(opt.Revenue-(1-r.B*opt.Eta)) > 1e-9 {
			t.Errorf("%v: R(eta*) = %v, r(eta*) = %v", r, opt.Revenue, 1-r.B*opt.Eta)
		}
		for _, beta := range limitBetas {
			opt, err := Limit{Beta: beta}.OptimalEta(r)
			if err != nil {
				t.Fatal(err)
			}
			if res := LinearEquation(r.A, r.B, beta, opt.Eta); math.Abs(res) > 1e-9*r.B {
				t.Errorf("%v beta=%v: residual %v at eta* = %v", r, beta, res, opt.Eta)
			}
		}
	}
}

// The exact optimum converges to the limit at rate 1/sqrt(s), s = 1e4,
// 1e5, 1e6: |tau*_s/sqrt(s) - eta*| <= (1.5 + 1.5/b)/sqrt(s) (observed: at
// most 1.1/sqrt(s) for b >= 0.5, 5.5/sqrt(s) for b = 0.2, whose flat
// revenue makes R flat near eta*: the integer rounding of tau* plus an
// O(1/sqrt(s)) shift) and |R_s(tau*_s) - R(eta*)| <= 1/sqrt(s) (observed
// at most about 0.55/sqrt(s)).
func TestOptimumConvergesToLimit(t *testing.T) {
	for _, r := range limitLaws {
		for _, beta := range []float64{-0.5, 0, 0.5, 1.5} {
			lim, err := Limit{Beta: beta}.OptimalEta(r)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []int{10_000, 100_000, 1_000_000} {
				opt, err := System{Servers: s, Beta: beta}.OptimalThreshold(r)
				if err != nil {
					t.Fatal(err)
				}
				sq := math.Sqrt(float64(s))
				b := 0.0
				switch r := r.(type) {
				case Linear:
					b = r.B
				case Exponential:
					b = r.B
				}
				if d := math.Abs(float64(opt.Threshold)/sq - lim.Eta); d > (1.5+1.5/b)/sq {
					t.Errorf("%v beta=%v s=%d: tau*/sqrt(s) = %v, eta* = %v", r, beta, s, float64(opt.Threshold)/sq, lim.Eta)
				}
				if d := math.Abs(opt.Revenue - lim.Revenue); d > 1/sq {
					t.Errorf("%v beta=%v s=%d: R_s(tau*) = %v, R(eta*) = %v", r, beta, s, opt.Revenue, lim.Revenue)
				}
			}
		}
	}
}

func TestLimitErrors(t *testing.T) {
	if _, err := (Limit{Beta: 31}).OptimalEta(Linear{A: 1, B: 1}); err == nil {
		t.Error("beta = 31: want an error")
	}
	if _, err := (Limit{Beta: 0.5}).OptimalEta(Linear{A: 1, B: 0}); err == nil {
		t.Error("b = 0: want ErrNoOptimum")
	}
	if _, err := (Limit{Beta: 0.5}).RevenueRate(Linear{A: 1, B: 1}, -1); err == nil {
		t.Error("eta = -1: want an error")
	}
}

func ExampleLimit_OptimalEta() {
	opt, _ := Limit{Beta: 0.5}.OptimalEta(Linear{A: 1, B: 1})
	fmt.Printf("eta* = %.6f, R(eta*) = %.6f\n", opt.Eta, opt.Revenue)
	// Output: eta* = 0.849064, R(eta*) = 0.150936
}

func BenchmarkOptimalEtaLinear(b *testing.B) {
	for b.Loop() {
		if _, err := (Limit{Beta: 0.5}).OptimalEta(Linear{A: 1, B: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOptimalEtaQuadrature(b *testing.B) {
	r := wrap(Exponential{A: 1, B: 1})
	for b.Loop() {
		if _, err := (Limit{Beta: 0.5}).OptimalEta(r); err != nil {
			b.Fatal(err)
		}
	}
}
