package admission

import (
	"fmt"
	"math"
)

// The explicit optimal threshold of linear revenue, by the Lambert W
// function.
//
// The fundamental equation of Linear{a, b} (LinearEquation) is
//
//	b eta Phi + b phi (e^{-beta eta} - 1 + beta eta)/beta^2 = a g,   g = beta Phi + phi,
//
// (phi, Phi at beta), that is c1 e^{-beta eta} + c2 eta = c3 with c1 = b
// phi/beta^2, c2 = b g/beta and c3 = a g + b phi/beta^2. Put u = eta -
// c3/c2: then (beta u) e^{beta u} = -(beta c1/c2) e^{-beta c3/c2}, so
//
//	eta* = a beta/b + phi/(beta g) + W_k(z)/beta,   z = -(phi/g) e^{-phi/g} e^{-a beta^2/b},
//
// with the principal branch W_0 for beta > 0 and the lower branch W_{-1}
// for beta < 0 (at a = 0 both give W = -phi/g and eta* = 0, and the root
// must move up as a grows; z lies in [-1/e, 0) since u e^{-u} <= 1/e).
// At beta = 0, phi/g = 1 and z = -1/e is the branch point where W_0 and
// W_{-1} meet; LinearEta is continuous there (LinearEtaBetaZero).
//
// Evaluated as written, phi/(beta g) and W/beta cancel for small |beta|
// and z underflows for large a beta^2/b. LinearEta evaluates the same
// formula through v = W_k(z) + 1, which solves
//
//	p(v) = -(v + log(1 - v)) = D,   D = x - log(1 + x) + a beta^2/b,   x = phi/g - 1 = -beta Phi/g,
//
// (take logarithms of -W e^W = -z), with v >= 0 on W_0 and v <= 0 on
// W_{-1}; then eta* = a beta/b - Phi/g + v/beta. Both D and p are summed
// by their series near 0, so eta* keeps full relative precision as beta
// -> 0 (where v ~ ±sqrt(2D) and D ~ beta^2).

// LinearEta returns eta* for Linear{a, b} (a >= 0, b > 0) at any beta in
// [-30, 30], by the Lambert W form above (no root search on the
// fundamental equation); at beta = 0 it is LinearEtaBetaZero. Tests:
// OptimalEta to 1e-9 over a grid of (a, b, beta), and W_k(z) e^{W_k(z)} =
// z where z does not underflow.
func LinearEta(a, b, beta float64) (float64, error) {
	if err := (Limit{Beta: beta}).Check(); err != nil {
		return math.NaN(), err
	}
	if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 || math.IsNaN(b) || math.IsInf(b, 0) || b <= 0 {
		return math.NaN(), fmt.Errorf("linear revenue a = %v, b = %v: need finite a >= 0 and b > 0", a, b)
	}
	if beta == 0 {
		return LinearEtaBetaZero(a, b), nil
	}
	q := phiOverG(beta) // Phi/g
	x := -beta * q
	d := xMinusLog1p(x) + a*beta*beta/b
	v := invertP(d, beta > 0)
	return a*beta/b - q + v/beta, nil
}

// LambertW returns the branch W_0 (k = 0, values >= -1) or W_{-1} (k = -1,
// values <= -1) of the Lambert W function at z in [-1/e, 0), the real
// solutions w of w e^w = z there; it is what the explicit form of
// LinearEta is written with (the tests use it to check that form). It
// solves p(v) = -log(-e z) for v = w + 1, as LinearEta does.
func LambertW(k int, z float64) (float64, error) {
	if !(z >= -1/math.E && z < 0) || (k != 0 && k != -1) {
		return math.NaN(), fmt.Errorf("LambertW(%d, %v): need k = 0 or -1 and z in [-1/e, 0)", k, z)
	}
	// -w e^w = -z with w = v - 1: (1 - v) e^{v} = -e z, so p(v) = -log(-e z).
	d := math.Max(0, -1-math.Log(-z))
	return invertP(d, k == 0) - 1, nil
}

// phiOverG is Phi(beta)/g(beta) with g = beta Phi(beta) + phi(beta) =
// ∫_{-∞}^beta Phi; below -8, where g cancels, by the Mills-ratio series
// g/phi = Σ_{n>=1} (-1)^(n+1) (2n-1)!!/beta^(2n) and Phi/phi from the same
// series as logNormCDF (twelve terms: relative error below 1e-11).
func phiOverG(beta float64) float64 {
	if beta > -8 {
		c := normCDF(beta)
		return c / (beta*c + normPDF(beta))
	}
	// Phi/phi ~ (1/|beta|) Σ (-1)^n (2n-1)!!/beta^(2n), and
	// g/phi = 1 + beta Phi/phi = Σ_{n>=1} (-1)^(n+1) (2n-1)!!/beta^(2n).
	b2 := beta * beta
	mills, gRatio, term := 1.0, 0.0, 1.0
	for n := 1; n <= 12; n++ {
		term *= -float64(2*n-1) / b2
		mills += term
		gRatio -= term
	}
	return (mills / -beta) / gRatio
}

// xMinusLog1p is x - log(1 + x) for x > -1, by its series Σ_{n>=2}
// (-1)^n x^n/n when |x| < 0.01 (the difference cancels there).
func xMinusLog1p(x float64) float64 {
	if math.Abs(x) >= 0.01 {
		return x - math.Log1p(x)
	}
	sum, pow := 0.0, x
	for n := 2; n <= 12; n++ {
		pow *= -x // (-1)^(n+1) x^n
		sum -= pow / float64(n)
	}
	return sum
}

// pOf is p(v) = -(v + log(1 - v)) = Σ_{n>=2} v^n/n for v < 1, by the
// series when |v| < 0.01.
func pOf(v float64) float64 {
	if math.Abs(v) >= 0.01 {
		return -(v + math.Log1p(-v))
	}
	sum, pow := 0.0, v
	for n := 2; n <= 12; n++ {
		pow *= v
		sum += pow / float64(n)
	}
	return sum
}

// invertP returns the root v of p(v) = d (d >= 0) with v in [0, 1) (upper)
// or v <= 0 (lower): p is convex with p(0) = 0 and p'(v) = v/(1 - v), so
// it is increasing on [0, 1) and decreasing on (-∞, 0]. Newton from the
// side where the convex p lies above its tangents converges monotonically;
// a bisection step guards the bracket.
func invertP(d float64, upper bool) float64 {
	if !(d > 0) {
		return 0
	}
	// Bracket [lo, hi] with p(lo) - d and p(hi) - d of opposite signs.
	var lo, hi float64
	if upper {
		lo, hi = 0, 1
	} else {
		lo, hi = -1, 0
		for pOf(lo) < d {
			lo *= 2
		}
	}
	v := math.Sqrt(2 * d) // p(v) ~ v^2/2 near 0
	if !upper {
		v = -v
	}
	if !(v > lo && v < hi) {
		v = lo + (hi-lo)/2
	}
	for range 200 {
		f := pOf(v) - d
		if f == 0 {
			return v
		}
		if (f > 0) == upper {
			hi = v
		} else {
			lo = v
		}
		next := v - f*(1-v)/v
		if !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
		}
		if math.Abs(next-v) <= 1e-16*math.Abs(v) {
			return next
		}
		v = next
	}
	return v
}
