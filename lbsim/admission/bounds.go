package admission

import (
	"math"
)

// Bounds on eta* for any unimodal revenue, from the fundamental equation.
//
// With the limit density f of Limit, Z(eta) = ∫ f and N(eta) = ∫ r f over
// (-∞, eta], write N_- = N(0), Z_- = Z(0) = Phi(beta), R(0) = N_-/Z_- (the
// revenue of the threshold 0, Erlang's loss system) and F(eta) = ∫_0^eta f
// = phi(beta) (1 - e^{-beta eta})/beta. The sign of r(eta) - R(eta) is
// that of the nonincreasing G(eta) = r(eta) Z(eta) - N(eta), whose root is
// eta*, and
//
//	G(eta) = r(eta) Z_- - N_- + ∫_0^eta (r(eta) - r(x)) f(x) dx.
//
// Upper bound: r(eta) <= r(x) on [0, eta] makes the integral <= 0, so G(eta)
// <= Z_- (r(eta) - R(0)) < 0 once r(eta) < R(0):
//
//	eta* <= eta_U = sup{eta >= 0 : r(eta) >= R(0)},
//
// the optimal threshold stops before the revenue rate of the last admitted
// level falls below what pure loss earns. Lower bound: r(x) <= r(0) makes
// the integral >= (r(eta) - r(0)) F(eta), so G >= G_L with
//
//	G_L(eta) = r(eta) Z(eta) - N_- - r(0) F(eta),
//
// nonincreasing (G_L' = r' Z + (r(eta) - r(0)) f(eta) <= 0) with G_L(0) =
// G(0) >= 0; its root eta_L has G(eta_L) >= 0, so eta_L <= eta*: it solves the
// fundamental equation as if every queue level below eta earned r(0). For linear revenue at beta = 0, where eta* solves b
// eta/2 + b phi(0) eta^2/2 = a phi(0) (LinearEtaBetaZero), the upper bound
// drops the quadratic term (eta_U = 2 a phi(0)/b) and the lower bound
// doubles it (b eta/2 + b phi(0) eta^2 = a phi(0)). The paper states
// bounds of this kind ("broadly applicable upper/lower bounds"); these are
// derived here from the fundamental equation, not taken from it, and the
// tests check eta_L <= eta* <= eta_U over the built-in families and a grid
// of beta.

// EtaBounds returns eta_L <= eta* <= eta_U for the revenue r at l.Beta
// (eta_U = +Inf when r never falls below R(0)), each to EtaTolerance,
// found by bisection on the monotone functions above.
func (l Limit) EtaBounds(r Revenue) (lower, upper float64, err error) {
	if err := CheckRevenue(r); err != nil {
		return math.NaN(), math.NaN(), err
	}
	ev, err := l.evaluator(r)
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	zMinus := normCDF(l.Beta)
	r0, loss := r.At(0), ev.below/zMinus
	upper = l.rootNonincreasing(func(eta float64) float64 { return r.At(eta) - loss })
	lower = l.rootNonincreasing(func(eta float64) float64 {
		return r.At(eta)*l.normalizer(eta) - ev.below - r0*normPDF(l.Beta)*e1(l.Beta, eta)
	})
	return lower, upper, nil
}

// rootNonincreasing returns the point where the nonincreasing h changes
// sign from >= 0 to < 0 on [0, maxEta] (0 if h(0) < 0, +Inf if h stays >= 0),
// by doubling then bisection to EtaTolerance (a root below it to
// EtaTolerance relative to itself, see bisect).
func (l Limit) rootNonincreasing(h func(float64) float64) float64 {
	if h(0) < 0 {
		return 0
	}
	lo, hi := 0.0, 1.0
	for h(hi) >= 0 {
		lo, hi = hi, 2*hi
		if hi > l.maxEta() {
			return math.Inf(1)
		}
	}
	return bisect(lo, hi, func(eta float64) bool { return h(eta) >= 0 })
}

// MinEta is the smallest root bisect resolves: a root below it is 0.
const MinEta = 1e-300

// bisect narrows [lo, hi], where before(lo) holds and before(hi) does not,
// to EtaTolerance, and returns its midpoint. A root below EtaTolerance (lo
// still 0 once the bracket is that narrow) is resolved further, to
// EtaTolerance relative to itself, down to MinEta (then 0): with the
// absolute tolerance alone every such root came out as 2^-34 = 5.8e-11,
// for a linear revenue with b = 10^12 or 10^30 alike, and the revenue
// there was negative. Roots above 2^-33 are found as before, to the bit.
func bisect(lo, hi float64, before func(float64) bool) float64 {
	for hi-lo > 2*EtaTolerance {
		mid := lo + (hi-lo)/2
		if before(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo > 0 {
		return lo + (hi-lo)/2
	}
	for lo == 0 {
		if hi < MinEta {
			return 0
		}
		if mid := hi / 2; before(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	for hi-lo > 2*EtaTolerance*lo {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if before(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}
