package admission

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/integrate/quad"
)

// Limit is the QED (Halfin-Whitt) limit s -> ∞ of the threshold policy with
// threshold eta*sqrt(s), at a fixed beta; doc.go derives it. The scaled
// state (k-s)/sqrt(s) has the limiting density f(x)/Z(eta) with
//
//	f(x) = phi(x + beta)            for x <= 0,
//	f(x) = phi(beta) exp(-beta x)    for 0 < x <= eta,
//	Z(eta) = Phi(beta) + phi(beta) (1 - exp(-beta eta))/beta   (phi(0) eta at beta = 0),
//
// phi and Phi the standard normal density and distribution function.
type Limit struct {
	Beta float64
}

// MaxLimitBeta bounds |beta| for the limit: beyond it phi(beta) is below
// 1e-195 and the QED scaling has long stopped describing the system.
const MaxLimitBeta = 30

// EtaTolerance is the absolute tolerance of OptimalEta on eta* (besides
// the rounding of the fundamental equation, about 1e-16/|r'(eta*)|).
const EtaTolerance = 1e-10

// Check reports an error unless beta is finite with |beta| <= 30.
func (l Limit) Check() error {
	if math.IsNaN(l.Beta) || !(math.Abs(l.Beta) <= MaxLimitBeta) {
		return fmt.Errorf("beta = %v: the QED limit needs a finite beta in [-%d, %d]", l.Beta, MaxLimitBeta, MaxLimitBeta)
	}
	return nil
}

func normPDF(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
func normCDF(x float64) float64 { return math.Erfc(-x/math.Sqrt2) / 2 }

// logNormCDF is log Phi(u), with the asymptotic series of the Mills ratio
// Phi(u)/phi(u) ~ (1/|u|) Σ (-1)^n (2n-1)!!/u^(2n) below -30 (ten terms:
// error below 1e-20), where erfc underflows.
func logNormCDF(u float64) float64 {
	if u > -30 {
		return math.Log(normCDF(u))
	}
	sum, term := 1.0, 1.0
	for n := 1; n <= 10; n++ {
		term *= -float64(2*n-1) / (u * u)
		sum += term
	}
	return -u*u/2 - 0.5*math.Log(2*math.Pi) + math.Log(sum/-u)
}

// e1 is ∫_0^eta exp(-c x) dx = (1 - exp(-c eta))/c (eta at c = 0).
func e1(c, eta float64) float64 {
	t := c * eta
	if t == 0 {
		return eta
	}
	return eta * -math.Expm1(-t) / t
}

// e2 is ∫_0^eta x exp(-c x) dx = (1 - exp(-t)(1+t))/c^2 with t = c eta,
// by its series eta^2 Σ_{n>=2} (-1)^n (n-1)/n! t^(n-2) when |t| < 0.1
// (the closed form cancels there).
func e2(c, eta float64) float64 {
	t := c * eta
	if math.Abs(t) < 0.1 {
		sum, fact, pow := 0.0, 2.0, 1.0
		for n := 2; n <= 20; n++ {
			if n > 2 {
				fact *= float64(n)
				pow *= -t
			}
			sum += float64(n-1) / fact * pow
		}
		return eta * eta * sum
	}
	return -(math.Expm1(-t) + t*math.Exp(-t)) / (c * c)
}

// normalizer is Z(eta).
func (l Limit) normalizer(eta float64) float64 {
	return normCDF(l.Beta) + normPDF(l.Beta)*e1(l.Beta, eta)
}

// Density returns the limiting density of (k-s)/sqrt(s) at x under the
// threshold eta*sqrt(s) (0 above eta).
func (l Limit) Density(eta, x float64) float64 {
	switch {
	case x <= 0:
		return normPDF(x+l.Beta) / l.normalizer(eta)
	case x <= eta:
		return normPDF(l.Beta) * math.Exp(-l.Beta*x) / l.normalizer(eta)
	}
	return 0
}

// closedForm is a revenue law whose limit integrals have closed forms:
// below = ∫_{-∞}^0 r(x) phi(x+beta) dx and above = phi(beta) ∫_0^eta r(x)
// exp(-beta x) dx.
type closedForm interface {
	limitBelow(beta float64) float64
	limitAbove(beta, eta float64) float64
}

// ∫_{-∞}^0 (1 + a x) phi(x+beta) dx = (1 - a beta) Phi(beta) - a phi(beta).
func (r Linear) limitBelow(beta float64) float64 {
	return (1-r.A*beta)*normCDF(beta) - r.A*normPDF(beta)
}

func (r Linear) limitAbove(beta, eta float64) float64 {
	return normPDF(beta) * (e1(beta, eta) - r.B*e2(beta, eta))
}

// ∫_{-∞}^0 exp(a x) phi(x+beta) dx = exp(a^2/2 - a beta) Phi(beta - a)
// = phi(beta) Phi(beta-a)/phi(beta-a), computed in logs.
func (r Exponential) limitBelow(beta float64) float64 {
	u := beta - r.A
	return math.Exp((u*u-beta*beta)/2 + logNormCDF(u))
}

func (r Exponential) limitAbove(beta, eta float64) float64 {
	return normPDF(beta) * e1(beta+r.B, eta)
}

// Gauss-Legendre panels for the revenue laws without closed forms.
const gaussPoints = 20

var gaussX, gaussW = func() ([]float64, []float64) {
	x, w := make([]float64, gaussPoints), make([]float64, gaussPoints)
	quad.Legendre{}.FixedLocations(x, w, 0, 1)
	return x, w
}()

// integrate is ∫_a^b f by 20-point Gauss-Legendre on panels of width at
// most h.
func integrate(f func(float64) float64, a, b, h float64) float64 {
	if !(b > a) {
		return 0
	}
	n := int(math.Ceil((b - a) / h))
	width := (b - a) / float64(n)
	sum := 0.0
	for p := range n {
		lo := a + float64(p)*width
		for i, x := range gaussX {
			sum += gaussW[i] * f(lo+x*width)
		}
	}
	return sum * width
}

// evaluator computes N(eta) and Z(eta) for one revenue law, the part below
// 0 once.
type evaluator struct {
	l     Limit
	r     Revenue
	cf    closedForm
	below float64
	h     float64 // panel width for the quadrature
}

func (l Limit) evaluator(r Revenue) (*evaluator, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, errors.New("revenue: nil")
	}
	ev := &evaluator{l: l, r: r, h: 1 / (1 + math.Abs(l.Beta))}
	if cf, ok := r.(closedForm); ok {
		ev.cf = cf
		ev.below = cf.limitBelow(l.Beta)
		return ev, nil
	}
	// phi(x+beta) < 1e-37 of its peak beyond 13 below its mode (or 0).
	lo := -(math.Max(l.Beta, 0) + 13)
	ev.below = integrate(func(x float64) float64 { return r.At(x) * normPDF(x+l.Beta) }, lo, 0, ev.h)
	return ev, nil
}

// nz returns N(eta) = ∫ r f and Z(eta) = ∫ f over (-∞, eta].
func (ev *evaluator) nz(eta float64) (n, z float64) {
	b := ev.l.Beta
	if ev.cf != nil {
		n = ev.below + ev.cf.limitAbove(b, eta)
	} else {
		n = ev.below + normPDF(b)*integrate(func(x float64) float64 { return ev.r.At(x) * math.Exp(-b*x) }, 0, eta, ev.h)
	}
	return n, ev.l.normalizer(eta)
}

// fundamental is r(eta) - R(eta).
func (ev *evaluator) fundamental(eta float64) float64 {
	n, z := ev.nz(eta)
	return ev.r.At(eta) - n/z
}

// RevenueRate returns R(eta) = ∫ r(x) f(x) dx / Z(eta), the limit of
// R_s(eta sqrt(s)) as s -> ∞: in closed form for Linear and Exponential,
// by Gauss-Legendre quadrature (relative error near 1e-14 for smooth r)
// otherwise.
func (l Limit) RevenueRate(r Revenue, eta float64) (float64, error) {
	if math.IsNaN(eta) || eta < 0 {
		return math.NaN(), fmt.Errorf("eta = %v: must be >= 0", eta)
	}
	ev, err := l.evaluator(r)
	if err != nil {
		return math.NaN(), err
	}
	n, z := ev.nz(eta)
	return n / z, nil
}

// Fundamental returns r(eta) - R(eta). R'(eta) = f(eta) (r(eta) -
// R(eta))/Z(eta), so eta* is its root (the fundamental equation r(eta) =
// R(eta)); it has the sign of G(eta) = r(eta) Z(eta) - N(eta), which is
// nonincreasing (G' = r'(eta) Z(eta) <= 0) with G(0) >= 0.
func (l Limit) Fundamental(r Revenue, eta float64) (float64, error) {
	if math.IsNaN(eta) || eta < 0 {
		return math.NaN(), fmt.Errorf("eta = %v: must be >= 0", eta)
	}
	ev, err := l.evaluator(r)
	if err != nil {
		return math.NaN(), err
	}
	return ev.fundamental(eta), nil
}

// LimitOptimum is the optimal scaled threshold eta* of the QED limit and
// its revenue R(eta*).
type LimitOptimum struct {
	Eta     float64
	Revenue float64
}

// maxEta bounds the bracket search of OptimalEta: 1e4, and for beta < 0
// also 700/|beta|, where exp(-beta eta) stays finite (for beta > 0 it only
// underflows towards 0, harmlessly; eta* is about (a/b) beta there).
func (l Limit) maxEta() float64 {
	if l.Beta >= 0 {
		return 1e4
	}
	return math.Min(1e4, 700/-l.Beta)
}

// OptimalEta returns eta*, the maximiser of R(eta) over eta >= 0, as the
// root of the fundamental equation r(eta) = R(eta): it brackets the root
// by doubling from 1 (the sign of r - R is + before it and - after it),
// then bisects to EtaTolerance (a root below it to EtaTolerance relative to
// itself, see bisect). It returns ErrNoOptimum if r - R is still
// positive at min(1e4, 700/|beta|), or an error if CheckRevenue rejects r.
func (l Limit) OptimalEta(r Revenue) (LimitOptimum, error) {
	if err := CheckRevenue(r); err != nil {
		return LimitOptimum{}, err
	}
	ev, err := l.evaluator(r)
	if err != nil {
		return LimitOptimum{}, err
	}
	lo, hi := 0.0, 1.0
	if ev.fundamental(0) <= 0 {
		hi = 0
	}
	for hi > 0 && ev.fundamental(hi) > 0 {
		lo, hi = hi, 2*hi
		if hi > l.maxEta() {
			return LimitOptimum{}, fmt.Errorf("%w (r(eta) > R(eta) up to eta = %v)", ErrNoOptimum, lo)
		}
	}
	eta := 0.0
	if hi > 0 {
		eta = bisect(lo, hi, func(eta float64) bool { return ev.fundamental(eta) > 0 })
	}
	n, z := ev.nz(eta)
	return LimitOptimum{Eta: eta, Revenue: n / z}, nil
}

// LinearEtaBetaZero is eta* for Linear{a, b} (b > 0) at beta = 0 in
// closed form: the fundamental equation is then the quadratic
// b eta/2 + b phi(0) eta^2/2 = a phi(0), so
// eta* = (-1 + sqrt(1 + 8 (a/b) phi(0)^2)) / (2 phi(0)).
func LinearEtaBetaZero(a, b float64) float64 {
	p := normPDF(0)
	return (-1 + math.Sqrt(1+8*(a/b)*p*p)) / (2 * p)
}

// LinearEquation returns the explicit fundamental equation of Linear{a, b},
// left side minus right side:
//
//	b eta Phi(beta) + b phi(beta) (exp(-beta eta) - 1 + beta eta)/beta^2 - a (beta Phi(beta) + phi(beta))
//
// ((exp(-t) - 1 + t)/beta^2 -> eta^2/2 at beta = 0). Its root in eta is
// eta*; it is increasing in eta for b > 0.
func LinearEquation(a, b, beta, eta float64) float64 {
	p, c := normPDF(beta), normCDF(beta)
	// (exp(-t) - 1 + t)/beta^2 = eta e1 - e2.
	return b*eta*c + b*p*(eta*e1(beta, eta)-e2(beta, eta)) - a*(beta*c+p)
}
