package trickle

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// The closed forms of the single cell (see the package documentation for
// their derivations). Times are in units of the interval length tau.

// SyncMessages is the number of transmissions per interval of a
// synchronized single cell: exactly min(n, k) in every interval.
func SyncMessages(n, k int) float64 { return float64(min(n, k)) }

// legendre integrates f over [a, b] by Gauss-Legendre with m nodes: exact
// for polynomials of degree below 2m.
func legendre(f func(float64) float64, a, b float64, m int) float64 {
	if !(b > a) {
		return 0
	}
	return quad.Fixed(f, a, b, m, quad.Legendre{}, 0)
}

// SyncGapCDF is P(G <= g) for the time G between consecutive transmissions
// of a synchronized single cell with n nodes, redundancy constant k and
// listen-only fraction eta (tau = 1), over all gaps (a gap drawn uniformly
// from a long run). With m = min(n, k) transmissions per interval at the m
// first of the n times eta + (1-eta) U_i:
//
//   - with probability (m-1)/m the gap is a spacing of consecutive uniform
//     order statistics within an interval, (1-eta) D with D ~ Beta(1, n):
//     P = 1 - (1 - g/(1-eta))^n;
//   - with probability 1/m it spans the interval boundary,
//     G = 1 - (1-eta) (U_(m) - U'_(1)), with U_(m) ~ Beta(m, n-m+1) and
//     U'_(1) ~ Beta(1, n) independent (two different intervals).
//
// The second term is a one-dimensional integral of a piecewise polynomial,
// computed by Gauss-Legendre quadrature exactly up to rounding.
func SyncGapCDF(n, k int, eta, g float64) float64 {
	m := min(n, k)
	w := 1 - eta
	within := 0.0
	if m > 1 {
		switch {
		case g <= 0:
		case g >= w:
			within = 1
		default:
			within = 1 - math.Pow(1-g/w, float64(n))
		}
	}
	// P(G <= g) = P(U_(m) - U'_(1) >= x), x = (1-g)/(1-eta).
	x := (1 - g) / w
	across := 0.0
	switch {
	case x >= 1:
	case x <= -1:
		across = 1
	default:
		last := distuv.Beta{Alpha: float64(m), Beta: float64(n - m + 1)}
		dens := func(y float64) float64 { return float64(n) * math.Pow(1-y, float64(n-1)) }
		nodes := min(n+8, 400)
		// y is U'_(1); the event is U_(m) >= y + x, certain when y + x <= 0.
		kink := math.Max(0, -x)
		across = legendre(func(y float64) float64 { return dens(y) }, 0, math.Min(kink, 1), nodes) +
			legendre(func(y float64) float64 {
				return dens(y) * last.Survival(y+x)
			}, kink, math.Min(1, 1-x), nodes)
	}
	return (float64(m-1)*within + across) / float64(m)
}

// SingleNodeGapCDF is P(G <= g) for one node alone (n = 1): it transmits
// in every interval, at eta + (1-eta) U, so consecutive transmissions are
// G = 1 + (1-eta)(U' - U) apart: triangular on [eta, 2-eta] with its mode
// at 1, whether synchronized or not.
func SingleNodeGapCDF(eta, g float64) float64 {
	w := 1 - eta
	z := (g - 1) / w // U' - U, triangular on [-1, 1]
	switch {
	case z <= -1:
		return 0
	case z >= 1:
		return 1
	case z <= 0:
		return (1 + z) * (1 + z) / 2
	}
	return 1 - (1-z)*(1-z)/2
}

// UnsyncK1GapSurvival is the independent-phase approximation of P(G > g)
// for the unsynchronized single cell with k = 1: after a transmission at
// time 0 every node that started its interval before 0 is silenced, so the
// next transmission is the first time s + eta + (1-eta) V of a node whose
// interval starts at s in (0, g) (its phase, taken uniform and independent
// of the past), V uniform. For g = eta + x, 0 <= x <= 1-eta, a node fires
// by g with probability x^2/(2(1-eta)), hence
//
//	P(G > eta + x) ~ (1 - x^2/(2(1-eta)))^(n-1).
//
// The approximation treats the n-1 other phases as independent uniforms
// seen from the last transmission; it becomes exact as n grows (the
// simulation measures how close it is at each n).
func UnsyncK1GapSurvival(n int, eta, g float64) float64 {
	x := g - eta
	w := 1 - eta
	switch {
	case x <= 0:
		return 1
	case x >= w:
		return 0
	}
	return math.Pow(1-x*x/(2*w), float64(n-1))
}

// UnsyncK1Messages is the transmissions per interval that
// UnsyncK1GapSurvival implies: 1 / E[G], E[G] = eta + the integral of the
// survival over (0, 1-eta).
func UnsyncK1Messages(n int, eta float64) float64 {
	w := 1 - eta
	mean := eta + legendre(func(x float64) float64 {
		return math.Pow(1-x*x/(2*w), float64(n-1))
	}, 0, w, 200)
	return 1 / mean
}

// UnsyncK1Asymptote is the large-n form of UnsyncK1Messages:
// 1 / (eta + sqrt(pi (1-eta) / (2n))). With eta = 0 it grows like
// sqrt(2n/pi); with eta > 0 it is bounded by 1/eta.
func UnsyncK1Asymptote(n int, eta float64) float64 {
	return 1 / (eta + math.Sqrt(math.Pi*(1-eta)/(2*float64(n))))
}

// RSAJammingCoverage is the jamming coverage of random sequential
// adsorption of equal disks in the plane, 0.547069 (Hinrichsen, Feder and
// Jossang 1986; Torquato, Uche and Stillinger 2006).
const RSAJammingCoverage = 0.547069

// SyncK1GeometricDensity is the continuum approximation of the
// transmissions per interval of a synchronized network with k = 1 on nodes
// dense in an area A with hearing radius r: in an interval a node transmits
// iff no neighbour transmitted before it, so the transmitters are the
// random sequential packing of the nodes in their random order, with
// exclusion distance r; as the node density grows this is RSA of disks of
// diameter r, whose jamming density is RSAJammingCoverage/(pi r^2/4).
func SyncK1GeometricDensity(area, r float64) float64 {
	return area * RSAJammingCoverage / (math.Pi * r * r / 4)
}
