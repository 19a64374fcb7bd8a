package csma

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// A Family is a product-form family on a finite state space:
// pi_theta(x) ∝ base(x) exp(theta · phi(x)), theta in R^Dim. Its log
// partition function log Z(theta) is convex, with gradient the mean of phi
// and Hessian the covariance of phi under pi_theta; Moments computes all
// three exactly (by enumeration).
type Family interface {
	// Dim is the number of parameters (the length of phi).
	Dim() int
	// Moments computes log Z, the mean and the covariance of phi under
	// pi_theta into m (allocating its slices on first use).
	Moments(theta []float64, m *Moments) error
}

// Moments are the exact moments of phi under pi_theta.
type Moments struct {
	LogZ float64
	Mean []float64
	// Cov is the covariance matrix of phi, Dim x Dim.
	Cov *mat.SymDense
}

func (m *Moments) reset(d int) {
	if len(m.Mean) != d || m.Cov == nil {
		m.Mean = make([]float64, d)
		m.Cov = mat.NewSymDense(d, nil)
	}
	clear(m.Mean)
	m.Cov.Zero()
}

// Dense is a Family given by the list of its states: state k has the
// statistics Phi[k] (Dim numbers) and the log base weight LogBase[k].
type Dense struct {
	Phi     [][]float64
	LogBase []float64 // nil: all zero
}

// NewDense returns the family of the given states; logBase may be nil.
func NewDense(phi [][]float64, logBase []float64) (*Dense, error) {
	if len(phi) == 0 {
		return nil, errors.New("csma: NewDense: no states")
	}
	d := len(phi[0])
	for k, p := range phi {
		if len(p) != d {
			return nil, fmt.Errorf("csma: NewDense: state %d has %d statistics, want %d", k, len(p), d)
		}
	}
	if logBase != nil && len(logBase) != len(phi) {
		return nil, fmt.Errorf("csma: NewDense: %d base weights for %d states", len(logBase), len(phi))
	}
	return &Dense{Phi: phi, LogBase: logBase}, nil
}

// Dim is the number of parameters.
func (f *Dense) Dim() int { return len(f.Phi[0]) }

// Moments computes the exact moments by summing over the states in log
// space.
func (f *Dense) Moments(theta []float64, m *Moments) error {
	d := f.Dim()
	if len(theta) != d {
		return fmt.Errorf("csma: %d parameters, want %d", len(theta), d)
	}
	logw := make([]float64, len(f.Phi))
	top := math.Inf(-1)
	for k, p := range f.Phi {
		w := dot(theta, p)
		if f.LogBase != nil {
			w += f.LogBase[k]
		}
		logw[k] = w
		top = math.Max(top, w)
	}
	m.reset(d)
	z := 0.0
	for k, p := range f.Phi {
		w := math.Exp(logw[k] - top)
		z += w
		for i, x := range p {
			m.Mean[i] += w * x
			for j := i; j < d; j++ {
				m.Cov.SetSym(i, j, m.Cov.At(i, j)+w*x*p[j])
			}
		}
	}
	finishMoments(m, z, top)
	return nil
}

// finishMoments turns weighted sums (total weight z, log shift top) into
// log Z, the mean and the covariance.
func finishMoments(m *Moments, z, top float64) {
	d := len(m.Mean)
	m.LogZ = top + math.Log(z)
	for i := range m.Mean {
		m.Mean[i] /= z
	}
	for i := range d {
		for j := i; j < d; j++ {
			m.Cov.SetSym(i, j, m.Cov.At(i, j)/z-m.Mean[i]*m.Mean[j])
		}
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// ErrNoOptimum says that Newton's method found no finite optimum: the
// targets are not in the interior of the capacity region (the convex hull
// of the statistics), so the optimum lies at infinite theta.
var ErrNoOptimum = errors.New("no finite optimum: the targets are not in the interior of the capacity region")

// MaxTheta bounds |theta_i| of the exact solutions and of the online
// algorithm: beyond it (activation rates e^30 ≈ 1e13 against deactivation
// rate 1) theta is taken to diverge.
const MaxTheta = 30.0

// ErrBeyondMaxTheta says that Newton's method passed |theta_i| = MaxTheta
// before converging: the optimum, if finite, has an activation rate
// e^theta_i outside [e^-30, e^30], which the exact solutions do not report
// (a clipped or unconverged theta would be a wrong "exact" value) and the
// online algorithm treats as diverged. Targets near 0 or near the boundary
// of the capacity region, or a large utility weight, put it there.
var ErrBeyondMaxTheta = fmt.Errorf("the optimum lies beyond |theta_i| = %v (activation rates outside [e^-%v, e^%v])", MaxTheta, MaxTheta, MaxTheta)

// ThetaTol is the resolution in theta of the exact solutions: Newton's
// method stops when, besides the residual being below its tolerance, the
// next Newton step moves no theta_i by more than ThetaTol. The residual
// alone does not locate theta* where the activities barely depend on it: a
// target of 1e-20 is met to 1e-12 by any theta_i below -28, and targets
// 1e-15 inside an edge of the capacity region by any theta near 27.
const ThetaTol = 1e-9

// SolveTargets returns the parameters theta* whose mean statistics are the
// targets gamma: the maximiser of the concave L(theta) = gamma·theta - log
// Z(theta), whose gradient is gamma - mean(theta) and Hessian -Cov(theta).
// It runs Newton's method with backtracking on L from theta = 0 until
// max_i |gamma_i - mean_i| <= tol and theta is resolved to ThetaTol, and
// returns theta* and the number of Newton steps; an optimum beyond
// MaxTheta is an error wrapping ErrBeyondMaxTheta.
func SolveTargets(f Family, gamma []float64, tol float64) ([]float64, int, error) {
	d := f.Dim()
	if len(gamma) != d {
		return nil, 0, fmt.Errorf("csma: %d targets for %d parameters", len(gamma), d)
	}
	obj := func(theta []float64, m *Moments) float64 { return dot(gamma, theta) - m.LogZ }
	grad := func(theta []float64, m *Moments, g []float64) {
		for i := range g {
			g[i] = gamma[i] - m.Mean[i]
		}
	}
	// The Newton step solves Cov · step = gamma - mean.
	hess := func(theta []float64, m *Moments) mat.Matrix { return m.Cov }
	return newton(f, obj, grad, hess, tol)
}

// SolveUtility returns the maximiser theta* of the regularised utility
// F(theta) = V Σ_i log s_i(theta) + H(pi_theta), H the entropy relative to
// the base weights (for CSMA: Σ log s_i plus the entropy of the schedule,
// weight 1/V). Its gradient is Cov(theta) (V/s(theta) - theta), so theta*
// solves theta = V/s(theta); Newton's method on that equation with
// backtracking on its residual, from theta = 0, until max_i |theta_i -
// V/s_i| <= tol and theta is resolved to ThetaTol (an optimum beyond
// MaxTheta, as for V > MaxTheta, is an error wrapping ErrBeyondMaxTheta).
func SolveUtility(f Family, v, tol float64) ([]float64, int, error) {
	// The residual G(theta) = theta - V/s(theta) has Jacobian
	// I + V diag(1/s^2) Cov, nonsingular (diag(1/s^2) Cov has a positive
	// spectrum).
	obj := func(theta []float64, m *Moments) float64 {
		r := 0.0
		for i, t := range theta {
			g := t - v/m.Mean[i]
			r += g * g
		}
		return -r
	}
	grad := func(theta []float64, m *Moments, g []float64) {
		for i, t := range theta {
			g[i] = v/m.Mean[i] - t
		}
	}
	hess := func(theta []float64, m *Moments) mat.Matrix {
		d := len(theta)
		j := mat.NewDense(d, d, nil)
		for a := range d {
			for b := range d {
				x := v / (m.Mean[a] * m.Mean[a]) * m.Cov.At(a, b)
				if a == b {
					x++
				}
				j.Set(a, b, x)
			}
		}
		return j
	}
	return newton(f, obj, grad, hess, tol)
}

// newton maximises obj (or zeroes grad) by the steps hess^-1 grad with
// backtracking on obj, from theta = 0, until the residual grad is at most
// tol and the step at most ThetaTol in every coordinate.
func newton(f Family, obj func([]float64, *Moments) float64, grad func([]float64, *Moments, []float64),
	hess func([]float64, *Moments) mat.Matrix, tol float64) ([]float64, int, error) {
	d := f.Dim()
	theta := make([]float64, d)
	trial := make([]float64, d)
	g := make([]float64, d)
	var m, mt Moments
	if err := f.Moments(theta, &m); err != nil {
		return nil, 0, err
	}
	cur := obj(theta, &m)
	for it := 1; it <= 200; it++ {
		grad(theta, &m, g)
		worst := 0.0
		for _, x := range g {
			worst = math.Max(worst, math.Abs(x))
		}
		var step mat.VecDense
		if err := step.SolveVec(hess(theta, &m), mat.NewVecDense(d, g)); err != nil {
			return nil, it, fmt.Errorf("%w (singular Newton system: %v)", ErrNoOptimum, err)
		}
		if worst <= tol && mat.Norm(&step, math.Inf(1)) <= ThetaTol {
			return theta, it - 1, nil
		}
		a := 1.0
		for ; a > 1e-12; a /= 2 {
			for i := range trial {
				trial[i] = theta[i] + a*step.AtVec(i)
			}
			if err := f.Moments(trial, &mt); err != nil {
				return nil, it, err
			}
			if next := obj(trial, &mt); next >= cur || math.Abs(next-cur) <= 1e-15*math.Abs(cur) {
				cur = next
				break
			}
		}
		if a <= 1e-12 {
			return nil, it, fmt.Errorf("%w (the line search stalled at residual %.3g)", ErrNoOptimum, worst)
		}
		copy(theta, trial)
		m, mt = mt, m
		for i, t := range theta {
			if !(math.Abs(t) <= MaxTheta) {
				return nil, it, fmt.Errorf("%w: theta[%d] = %.4g after %d Newton steps", ErrBeyondMaxTheta, i, t, it)
			}
		}
	}
	return nil, 200, fmt.Errorf("%w (no convergence in 200 Newton steps)", ErrNoOptimum)
}
