package meanfield

import (
	"context"
	"fmt"
	"math"
)

// The drifts below act on the occupancy vector truncated at level K: the
// System state q has K = len(q) entries q_1..q_K, q_0 = 1 and q_{K+1} = 0.
// Truncation is exactly a buffer of K tasks per server (an arrival that would
// make a queue longer than K is lost), so the truncated system is itself a
// well-defined fluid model; its fixed point differs from the untruncated one
// by O(lambda q_K^d). Levels picks K so that this is negligible.

// checkDriftLambda validates the arrival rate of a drift. Unlike the fixed
// points, the ODE is well defined for lambda >= 1 (it then describes the
// overloaded transient, with the buffer K absorbing the excess).
func checkDriftLambda(lambda float64, d int) error {
	if math.IsNaN(lambda) || math.IsInf(lambda, 0) || lambda < 0 {
		return fmt.Errorf("meanfield: lambda = %v must be finite and non-negative", lambda)
	}
	if d < 1 {
		return fmt.Errorf("meanfield: d = %d must be at least 1", d)
	}
	return nil
}

// ipow returns x^d for d >= 1 by repeated squaring.
func ipow(x float64, d int) float64 {
	r := 1.0
	for d > 0 {
		if d&1 == 1 {
			r *= x
		}
		x *= x
		d >>= 1
	}
	return r
}

// JSQdDrift returns the mean-field drift of JSQ(d), the power-of-d policy
// with d servers sampled with replacement:
//
//	dq_i/dt = lambda (q_{i-1}^d - q_i^d) - (q_i - q_{i+1}),   i = 1..K,
//
// with q_0 = 1 and q_{K+1} = 0. The large-N limit of sampling without
// replacement is the same ODE. d = 1 is RandomDrift.
func JSQdDrift(lambda float64, d int) (System, error) {
	if err := checkDriftLambda(lambda, d); err != nil {
		return nil, err
	}
	return func(_ float64, q, dq []float64) {
		K := len(q)
		pPrev := 1.0 // q_{i-1}^d
		for i := 0; i < K; i++ {
			p := ipow(q[i], d)
			next := 0.0
			if i+1 < K {
				next = q[i+1]
			}
			dq[i] = lambda*(pPrev-p) - (q[i] - next)
			pPrev = p
		}
	}, nil
}

// RandomDrift returns the drift of random routing (JSQ(1)): dq_i/dt =
// lambda (q_{i-1} - q_i) - (q_i - q_{i+1}), the tail probabilities of an
// M/M/1 queue (buffer K). Its fixed point is lambda^i (for K -> infinity);
// the transient has no elementary closed form.
func RandomDrift(lambda float64) (System, error) {
	return JSQdDrift(lambda, 1)
}

// JSQdWithoutReplacementDrift returns the exact occupancy drift of JSQ(d)
// with d distinct servers sampled among n: for a state with C_i = n q_i
// servers of at least i tasks, the expected rate of change of q_i is
//
//	lambda (P_{i-1} - P_i) - (q_i - q_{i+1}),   P_i = prod_{k<d} (C_i - k)/(n - k),
//
// P_i being the probability that all d samples have at least i tasks (so the
// task joins a queue of length >= i), P_0 = 1. Off the lattice C_i in
// {0..n} the factors are clamped at zero, max(C_i - k, 0), which keeps P_i
// non-decreasing in q_i, hence the ODE order preserving, and equals the exact
// value at every lattice point. As n -> infinity, P_i -> q_i^d with
// difference O(1/n) (for d = 2, q_i^2 - P_i = q_i (1 - q_i)/(n - 1)).
//
// The ODE with this drift is a comparison device for a simulation at finite
// n (say n = 100): it uses the exact conditional drift but, the drift being
// nonlinear, its solution is not the exact mean of the n-server chain.
func JSQdWithoutReplacementDrift(lambda float64, d, n int) (System, error) {
	if err := checkDriftLambda(lambda, d); err != nil {
		return nil, err
	}
	if n < d {
		return nil, fmt.Errorf("meanfield: n = %d must be at least d = %d for sampling without replacement", n, d)
	}
	N := float64(n)
	return func(_ float64, q, dq []float64) {
		K := len(q)
		pPrev := 1.0
		for i := 0; i < K; i++ {
			c := N * q[i]
			p := 1.0
			for k := 0; k < d; k++ {
				p *= math.Max(c-float64(k), 0) / (N - float64(k))
			}
			next := 0.0
			if i+1 < K {
				next = q[i+1]
			}
			dq[i] = lambda*(pPrev-p) - (q[i] - next)
			pPrev = p
		}
	}, nil
}

// levelMargin is the number of levels Levels adds beyond those it needs.
const levelMargin = 3

// Levels returns a truncation level K for the JSQ(d) occupancy ODE at load
// lambda in (0, 1): the smallest k whose fixed-point tail sum_{i>k} q_i is
// below tol (tol in (0, 1); 1e-12 if 0), plus a margin of 3, and at least
// the index of the last non-zero entry of the start q0 plus the margin. It
// returns the neglected fixed-point mass sum_{i>K} q_i, which bounds the
// truncation error of the stationary mean number of tasks per server.
func Levels(lambda float64, d int, tol float64, q0 []float64) (k int, neglected float64, err error) {
	if err := checkLambdaD(lambda, d); err != nil {
		return 0, 0, fmt.Errorf("meanfield: %w", err)
	}
	if tol == 0 {
		tol = 1e-12
	}
	if math.IsNaN(tol) || tol <= 0 || tol >= 1 {
		return 0, 0, fmt.Errorf("meanfield: tol = %v must be in (0, 1)", tol)
	}
	for k = 0; tail(lambda, d, k) >= tol; k++ {
	}
	k += levelMargin
	for i := len(q0) - 1; i >= 0; i-- {
		if q0[i] != 0 {
			k = max(k, i+1+levelMargin)
			break
		}
	}
	return k, tail(lambda, d, k), nil
}

// tail returns sum_{i>k} of the JSQ(d) fixed point lambda^((d^i-1)/(d-1)).
func tail(lambda float64, d, k int) float64 {
	if d == 1 {
		return math.Pow(lambda, float64(k+1)) / (1 - lambda)
	}
	s := 0.0
	for i := k + 1; ; i++ {
		term := math.Pow(lambda, jsqdExponent(d, i))
		s += term
		if term <= s*1e-17 || term == 0 {
			return s
		}
	}
}

// Path is an occupancy trajectory: Y[j][i-1] = q_i(Times[j]), i = 1..Levels.
type Path struct {
	Solution
	Levels int
	// TruncatedMass is the sum of the entries of the start beyond Levels,
	// which the truncated system cannot represent and drops.
	TruncatedMass float64
	// OrderViolation is the largest violation of 1 >= q_1 >= ... >= q_K >= 0
	// over the grid (see OrderViolation); the exact solution has none, the
	// numerical one at most about the integration tolerance.
	OrderViolation float64
}

// Trajectory integrates an occupancy drift (JSQdDrift and the like) from
// q(times[0]) = q0 on the grid times, with the occupancy truncated at levels
// K: q0 is padded with zeros or cut to K entries. q0 must be a valid
// occupancy vector: 1 >= q0[0] >= q0[1] >= ... >= 0. Zero tolerances in opt
// default to RelTol = 1e-8, AbsTol = 1e-12.
func Trajectory(ctx context.Context, drift System, q0 []float64, times []float64, levels int, opt Options) (*Path, error) {
	if levels < 1 {
		return nil, fmt.Errorf("meanfield: Trajectory: levels = %d must be at least 1", levels)
	}
	prev := 1.0
	for i, v := range q0 {
		if math.IsNaN(v) || v < 0 || v > prev {
			return nil, fmt.Errorf("meanfield: Trajectory: q0[%d] = %v: the occupancy must satisfy 1 >= q0[0] >= q0[1] >= ... >= 0", i, v)
		}
		prev = v
	}
	start := make([]float64, levels)
	copy(start, q0)
	p := &Path{Levels: levels}
	for _, v := range q0[min(levels, len(q0)):] {
		p.TruncatedMass += v
	}
	if opt.RelTol == 0 {
		opt.RelTol = 1e-8
	}
	if opt.AbsTol == 0 {
		opt.AbsTol = 1e-12
	}
	sol, err := Integrate(ctx, drift, start, times, opt)
	if err != nil {
		return nil, err
	}
	p.Solution = *sol
	for _, q := range sol.Y {
		if v := OrderViolation(q); v > p.OrderViolation || v != v {
			p.OrderViolation = v
		}
	}
	return p, nil
}

// OrderViolation returns by how much q fails to be an occupancy vector: the
// largest of q_1 - 1, q_{i+1} - q_i and -q_K, or 0 if 1 >= q_1 >= ... >= q_K
// >= 0; NaN if q holds a NaN.
func OrderViolation(q []float64) float64 {
	v, prev := 0.0, 1.0
	for _, x := range q {
		if x != x {
			return math.NaN()
		}
		if x-prev > v {
			v = x - prev
		}
		prev = x
	}
	if len(q) > 0 && -q[len(q)-1] > v {
		v = -q[len(q)-1]
	}
	return v
}
