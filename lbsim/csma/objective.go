package csma

import (
	"fmt"
)

// An Objective is what the online algorithm maximises over theta: it
// turns the measurements of one window into a gradient estimate, and
// solves for the optimum exactly on an enumerable family.
type Objective interface {
	// SecondMoments reports whether Gradient needs the window's second
	// moments of phi.
	SecondMoments() bool
	// Gradient writes the gradient estimate at theta into grad, from the
	// window's mean of phi and (when SecondMoments) its second moments
	// (row-major, Dim x Dim).
	Gradient(theta, mean, second, grad []float64)
	// Optimum is the exact maximiser on the family f.
	Optimum(f Family) ([]float64, error)
	// String names the objective.
	String() string
}

// Targets is the objective of reaching target activities gamma:
// maximise L(theta) = gamma·theta - log Z(theta), concave, with gradient
// gamma - s(theta) and its maximiser the theta with s(theta) = gamma (when
// gamma is in the interior of the capacity region). The gradient estimate
// is gamma minus the measured activities.
type Targets []float64

// SecondMoments is false: the gradient needs the activities only.
func (Targets) SecondMoments() bool { return false }

// Gradient is gamma - mean.
func (g Targets) Gradient(_, mean, _, grad []float64) {
	for i, x := range g {
		grad[i] = x - mean[i]
	}
}

// Optimum solves s(theta) = gamma by Newton's method on log Z.
func (g Targets) Optimum(f Family) ([]float64, error) {
	theta, _, err := SolveTargets(f, g, 1e-12)
	return theta, err
}

func (g Targets) String() string { return fmt.Sprintf("targets %v", []float64(g)) }

// LogUtility is the objective of proportional fairness with weight V:
// maximise F(theta) = V Σ_i log s_i(theta) + H(pi_theta). Without the
// entropy H the supremum of Σ log s_i lies on the boundary of the capacity
// region, at infinite theta (a single node: log s is largest as theta ->
// ∞); with it the maximiser is finite and unique, theta_i = V/s_i(theta),
// and it tends to the proportionally fair point of the region as V -> ∞
// (the formulation of Jiang and Walrand's adaptive CSMA). The gradient is
// Cov(theta) (V/s - theta), estimated from the window's covariances:
// grad_j = Σ_k Cov_jk (V/s_k - theta_k) with the measured Cov and s.
type LogUtility struct{ V float64 }

// SecondMoments is true: the gradient needs the covariances.
func (LogUtility) SecondMoments() bool { return true }

// Gradient estimates Cov (V/s - theta) from the window's moments. A node
// never active in the window (s_k = 0) contributes its limit: Cov_kk (V/s_k)
// -> V as s_k -> 0, and nothing else.
func (u LogUtility) Gradient(theta, mean, second, grad []float64) {
	n := len(theta)
	clear(grad)
	for k := range n {
		sk := mean[k]
		if sk <= 0 {
			grad[k] += u.V
			continue
		}
		wk := u.V/sk - theta[k]
		row := second[k*n : (k+1)*n]
		for j := range n {
			grad[j] += (row[j] - mean[j]*sk) * wk
		}
	}
}

// Optimum solves theta = V/s(theta) by Newton's method.
func (u LogUtility) Optimum(f Family) ([]float64, error) {
	theta, _, err := SolveUtility(f, u.V, 1e-12)
	return theta, err
}

func (u LogUtility) String() string { return fmt.Sprintf("utility log, V = %v", u.V) }
