package admission

import (
	"math"
	"testing"
)

// The Lambert W form of eta* for linear revenue agrees with the root of the
// fundamental equation (OptimalEta, tolerance 1e-10) to 1e-9 over a grid of
// a, b and beta on both sides of 0 and next to it, where the two branches
// meet.
func TestLinearEtaMatchesRoot(t *testing.T) {
	betas := []float64{-3, -2, -1, -0.5, -1e-3, -1e-7, 0, 1e-7, 1e-3, 0.5, 1, 2, 3, 12, 30} // 30: the top of the range, eta* near 30
	for _, beta := range betas {
		for _, a := range []float64{0, 0.1, 1, 5} {
			for _, b := range []float64{0.2, 1, 4} {
				got, err := LinearEta(a, b, beta)
				if err != nil {
					t.Fatal(err)
				}
				want, err := Limit{Beta: beta}.OptimalEta(Linear{A: a, B: b})
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want.Eta) > 1e-9 {
					t.Errorf("a=%v b=%v beta=%v: Lambert form %.12f, root %.12f", a, b, beta, got, want.Eta)
				}
				if a == 0 && got != 0 && math.Abs(got) > 1e-12 {
					t.Errorf("a=0 b=%v beta=%v: eta* = %v, want 0", b, beta, got)
				}
			}
		}
	}
}

// Far from 0 in beta the formula keeps its precision: LinearEquation
// (the explicit fundamental equation) vanishes at the result to within
// its slope times 1e-9 (the equation itself, evaluated directly, loses
// digits to the cancellation in beta Phi + phi below beta = -5).
func TestLinearEtaSolvesEquationForLargeBeta(t *testing.T) {
	for _, beta := range []float64{-30, -12, -8.5, -7.5, 6, 12, 30} {
		for _, a := range []float64{0.5, 2} {
			eta, err := LinearEta(a, 1, beta)
			if err != nil {
				t.Fatal(err)
			}
			h := 1e-6 * math.Max(1, eta)
			slope := (LinearEquation(a, 1, beta, eta+h) - LinearEquation(a, 1, beta, eta-h)) / (2 * h)
			if res := LinearEquation(a, 1, beta, eta); !(math.Abs(res) <= 1e-9*math.Abs(slope)*math.Max(1, eta)) || eta < 0 {
				t.Errorf("beta=%v a=%v: eta = %v, equation residual %v (slope %v)", beta, a, eta, res, slope)
			}
		}
	}
}

// LambertW inverts w e^w on both branches, to 1e-12 relative, including
// next to the branch point -1/e.
func TestLambertW(t *testing.T) {
	for _, z := range []float64{-1 / math.E, -0.3678, -0.3, -0.1, -1e-3, -1e-10, -1e-300} {
		for _, k := range []int{0, -1} {
			w, err := LambertW(k, z)
			if err != nil {
				t.Fatal(err)
			}
			if (k == 0 && w < -1) || (k == -1 && w > -1) {
				t.Errorf("W_%d(%v) = %v on the wrong branch", k, z, w)
			}
			if got := w * math.Exp(w); math.Abs(got-z) > 1e-12*math.Abs(z)*math.Max(1, math.Abs(w)) && z > -1e-300 {
				t.Errorf("W_%d(%v) = %v: w e^w = %v", k, z, w, got)
			}
		}
	}
	if w, _ := LambertW(0, -0.1); math.Abs(w-(-0.11183255915896296)) > 1e-14 {
		t.Errorf("W_0(-0.1) = %v, want -0.11183255915896296 (tabulated)", w)
	}
	if w, _ := LambertW(-1, -0.1); math.Abs(w-(-3.577152063957297)) > 1e-13 {
		t.Errorf("W_-1(-0.1) = %v, want -3.577152063957297 (tabulated)", w)
	}
	for _, bad := range []float64{0, 0.1, -0.4, math.NaN()} {
		if _, err := LambertW(0, bad); err == nil {
			t.Errorf("LambertW(0, %v): no error", bad)
		}
	}
	if _, err := LinearEta(1, 0, 0.5); err == nil {
		t.Error("LinearEta with b = 0: no error")
	}
}

// The Lambert form written out with LambertW (z as in the doc, where it
// does not underflow) gives the same eta* as LinearEta.
func TestLinearEtaIsTheLambertFormula(t *testing.T) {
	for _, beta := range []float64{-2, -0.7, 0.4, 1.5} {
		for _, a := range []float64{0.3, 1} {
			b := 1.0
			p, c := normPDF(beta), normCDF(beta)
			g := beta*c + p
			z := -(p / g) * math.Exp(-p/g) * math.Exp(-a*beta*beta/b)
			k := 0
			if beta < 0 {
				k = -1
			}
			w, err := LambertW(k, z)
			if err != nil {
				t.Fatal(err)
			}
			formula := a*beta/b + p/(beta*g) + w/beta
			got, _ := LinearEta(a, b, beta)
			if math.Abs(formula-got) > 1e-9 {
				t.Errorf("beta=%v a=%v: formula %v, LinearEta %v", beta, a, formula, got)
			}
		}
	}
}

// As beta -> -∞, |beta| eta* -> log(1 + a/b) (doc.go), with an error
// found to be 1.1/beta^2 to 1.6/beta^2 for these (a, b); the test allows 2/beta^2.
func TestLinearEtaNegativeBetaAsymptotics(t *testing.T) {
	for _, beta := range []float64{-8, -16, -30} {
		for _, ab := range [][2]float64{{1, 1}, {2, 1}, {1, 2}} {
			a, b := ab[0], ab[1]
			eta, err := LinearEta(a, b, beta)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(-beta*eta - math.Log1p(a/b)); d > 2/(beta*beta) {
				t.Errorf("beta=%v a=%v b=%v: |beta| eta* = %v, log(1+a/b) = %v", beta, a, b, -beta*eta, math.Log1p(a/b))
			}
		}
	}
}
