package meanfield

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// MaxRefinedLevels is the largest truncation level of JSQdRefined: the
// Lyapunov equation has K(K+1)/2 unknowns and is solved densely; at K = 50
// (with the check at K + 4) a call takes about 0.25 s and allocates 63 MB,
// against 1.2 ms at the 11 levels of JSQ(2), lambda = 0.9. JSQ(d) with
// d >= 2 needs fewer than 30 levels for a neglected mass below 1e-12 at any
// load up to 1 - 1e-6.
const MaxRefinedLevels = 50

// refinedLevelCheck is the number of levels added to recompute the
// correction and measure its truncation error.
const refinedLevelCheck = 4

// Refined is the refined mean-field approximation of JSQ(d) (Gast and Van
// Houdt 2017) at load Lambda: the stationary mean occupancy of N servers is
//
//	E[q_i(N)] = FixedPoint[i-1] + C[i-1]/N + O(1/N^2),
//
// and the stationary covariance of the occupancy is Covariance/N + o(1/N).
type Refined struct {
	Lambda float64
	D      int
	// Without says the d servers are sampled without replacement; C then
	// includes the sampling term SamplingC.
	Without bool
	// Levels is the truncation level K (a buffer of K tasks per server).
	Levels int
	// FixedPoint is the fixed point pi of the truncated mean-field ODE,
	// q_1..q_K.
	FixedPoint []float64
	// C is the 1/N coefficient c_i, i = 1..K; C[0] is 0 up to the truncation
	// (E[q_1(N)] = lambda exactly, by rate conservation).
	C []float64
	// SamplingC is the part of C due to sampling without replacement (the
	// 1/N term of the drift itself); zero with replacement.
	SamplingC []float64
	// Covariance is W, the solution of the Lyapunov equation
	// A W + W A^T + Q = 0: N Cov(q_i(N), q_j(N)) -> W[i-1][j-1].
	Covariance [][]float64
	// NeglectedMass is sum_{i>K} of the untruncated fixed point.
	NeglectedMass float64
	// TruncationError is max_i |c_i(K) - c_i(K+4)| over i = 1..K: how much
	// the coefficients move when four more levels are kept.
	TruncationError float64
}

// At returns the refined approximation pi_i + c_i/n, i = 1..K, of the mean
// occupancy of n servers.
func (r *Refined) At(n int) []float64 {
	q := make([]float64, len(r.FixedPoint))
	for i, p := range r.FixedPoint {
		q[i] = p + r.C[i]/float64(n)
	}
	return q
}

// MeanSojourn returns the refined approximation of the mean time in system
// of n servers, sum_i (pi_i + c_i/n) / lambda (Little's law).
func (r *Refined) MeanSojourn(n int) float64 {
	return MeanTasks(r.At(n)) / r.Lambda
}

// JSQdRefined computes the refined mean-field approximation of JSQ(d) at load
// lambda in (0, 1), sampling with replacement (without = false; the drift is
// then the same at every N) or without (the drift has a 1/N term, see
// below). levels is the truncation level K, at most MaxRefinedLevels; 0 picks
// Levels(lambda, d, 1e-12, nil), capped at MaxRefinedLevels (a cap that only
// matters for d = 1, whose C is 0 at every K).
//
// Method (Gast and Van Houdt 2017, Theorem 1). Write the occupancy chain as a
// density-dependent population process: from x = q(N), x -> x + e_i/N at rate
// N lambda (x_{i-1}^d - x_i^d) (an arrival joins a queue of i-1 tasks) and
// x -> x - e_i/N at rate N (x_i - x_{i+1}) (a departure from a queue of i),
// so the drift is the mean-field f. At the fixed point pi (f(pi) = 0) let A
// be the Jacobian of f, B_i the Hessian of f_i and Q = sum over transitions
// of l l^T times their rates, here diagonal with Q_ii = 2 (pi_i - pi_{i+1}).
// The covariance W solves the Lyapunov equation A W + W A^T + Q = 0, and
// taking expectations of f(q(N)) = 0 to second order gives
//
//	c = -A^{-1} (b + g),   b_i = (1/2) sum_{j,k} (B_i)_{jk} W_{jk},
//
// where for JSQ(d), whose f_i depends on x_{i-1} and x_i only through
// h(x) = x^d, with h2 = d(d-1) x^(d-2) its second derivative,
// b_i = (lambda/2) (h2(pi_{i-1}) W_{i-1,i-1} - h2(pi_i) W_{ii}),
// and g is the 1/N term of the drift: zero with replacement, and without
// replacement, where q_i^d becomes prod_{k<d} (N q_i - k)/(N - k) =
// q_i^d - (d(d-1)/2) q_i^{d-1} (1 - q_i)/N + O(1/N^2),
// g_i = -lambda (d(d-1)/2) (u(pi_{i-1}) - u(pi_i)), u(x) = x^{d-1} (1 - x).
//
// The truncation at K is a buffer of K tasks per server: the fixed point is
// that of the truncated ODE (arrivals to full queues lost), found by
// bisection on pi_K; C is recomputed with K + 4 levels and the largest change
// reported as TruncationError.
//
// For d = 1 (random routing, independent M/M/1 queues) the drift is linear,
// so C = 0 and W_ij = lambda^max(i,j) - lambda^(i+j) (up to the truncation),
// which the tests use to check the Lyapunov solver.
//
// JSQ and JIQ need no correction of this kind. Their fixed point (lambda,
// 0, 0, ...) lies on the boundary q_2 = 0 of the state space, where the
// expansion does not apply, and at fixed lambda < 1 a task waits only when
// all N servers are busy, an event of probability exponentially small in N:
// E[q_1(N)] = lambda exactly and q_i(N), i >= 2, is exponentially small, so
// there is no 1/N term and the refined approximation is the mean field.
func JSQdRefined(lambda float64, d int, without bool, levels int) (*Refined, error) {
	if err := checkLambdaD(lambda, d); err != nil {
		return nil, fmt.Errorf("meanfield: JSQdRefined: %w", err)
	}
	if d > 1000 {
		return nil, fmt.Errorf("meanfield: JSQdRefined: d = %d: must be at most 1000", d)
	}
	if levels < 0 || levels > MaxRefinedLevels {
		return nil, fmt.Errorf("meanfield: JSQdRefined: levels = %d: must be between 1 and %d (0: automatic)", levels, MaxRefinedLevels)
	}
	if levels == 0 {
		k, _, err := Levels(lambda, d, 1e-12, nil)
		if err != nil {
			return nil, err
		}
		levels = min(k, MaxRefinedLevels)
	}
	r, err := refinedAt(lambda, d, without, levels)
	if err != nil {
		return nil, err
	}
	check, err := refinedAt(lambda, d, without, levels+refinedLevelCheck)
	if err != nil {
		return nil, err
	}
	for i, c := range r.C {
		r.TruncationError = math.Max(r.TruncationError, math.Abs(c-check.C[i]))
	}
	r.NeglectedMass = tail(lambda, d, levels)
	return r, nil
}

// refinedAt computes the refined approximation truncated at k levels.
func refinedAt(lambda float64, d int, without bool, k int) (*Refined, error) {
	pi := truncatedFixedPoint(lambda, d, k)
	fd := float64(d)
	// h1 and h2 are the first and second derivatives of h(x) = x^d.
	h1 := func(x float64) float64 { return fd * ipow(x, d-1) }
	h2 := func(x float64) float64 {
		if d == 1 {
			return 0
		}
		return fd * (fd - 1) * ipow(x, d-2)
	}
	at := func(i int) float64 { // pi_i with pi_0 = 1, pi_{K+1} = 0, i = 0..K+1
		switch {
		case i == 0:
			return 1
		case i > k:
			return 0
		}
		return pi[i-1]
	}

	// The Jacobian A (tridiagonal) and the noise Q (diagonal), 0-based.
	A := mat.NewDense(k, k, nil)
	q := make([]float64, k)
	for i := 0; i < k; i++ {
		if i > 0 {
			A.Set(i, i-1, lambda*h1(pi[i-1]))
		}
		A.Set(i, i, -lambda*h1(pi[i])-1)
		if i+1 < k {
			A.Set(i, i+1, 1)
		}
		q[i] = lambda*(ipow(at(i), d)-ipow(at(i+1), d)) + at(i+1) - at(i+2)
	}
	W, err := lyapunovDiagonal(A, q)
	if err != nil {
		return nil, err
	}

	// The right-hand side b + g and the solve A c = -(b + g).
	rhs := mat.NewVecDense(k, nil)
	samp := mat.NewVecDense(k, nil)
	u := func(x float64) float64 { return ipow(x, d-1) * (1 - x) }
	for i := 0; i < k; i++ {
		b := -h2(pi[i]) * W.At(i, i)
		if i > 0 {
			b += h2(pi[i-1]) * W.At(i-1, i-1)
		}
		b *= lambda / 2
		g := 0.0
		if without {
			g = -lambda * fd * (fd - 1) / 2 * (u(at(i)) - u(at(i+1)))
		}
		rhs.SetVec(i, -(b + g))
		samp.SetVec(i, -g)
	}
	var lu mat.LU
	lu.Factorize(A)
	var c, cs mat.VecDense
	if err := lu.SolveVecTo(&c, false, rhs); err != nil {
		return nil, fmt.Errorf("meanfield: JSQdRefined: %w", err)
	}
	if err := lu.SolveVecTo(&cs, false, samp); err != nil {
		return nil, fmt.Errorf("meanfield: JSQdRefined: %w", err)
	}
	r := &Refined{Lambda: lambda, D: d, Without: without, Levels: k, FixedPoint: pi,
		C: make([]float64, k), SamplingC: make([]float64, k), Covariance: make([][]float64, k)}
	for i := 0; i < k; i++ {
		r.C[i], r.SamplingC[i] = c.AtVec(i), cs.AtVec(i)
		r.Covariance[i] = make([]float64, k)
		for j := 0; j < k; j++ {
			r.Covariance[i][j] = W.At(i, j)
		}
	}
	return r, nil
}

// truncatedFixedPoint returns the fixed point of the JSQ(d) ODE truncated at
// k levels: pi_i = lambda (pi_{i-1}^d - pi_k^d) (the flow up across level i
// balances the departures from level i, the arrivals to full queues being
// lost), found by bisection on s = pi_k, for which the recursion's pi_k(s)
// - s is decreasing.
func truncatedFixedPoint(lambda float64, d, k int) []float64 {
	pi := make([]float64, k)
	run := func(s float64) float64 {
		prev, sd := 1.0, ipow(s, d)
		for i := range pi {
			pi[i] = math.Max(lambda*(ipow(prev, d)-sd), 0)
			prev = pi[i]
		}
		return pi[k-1] - s
	}
	lo, hi := 0.0, lambda
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if run(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	run(lo)
	return pi
}

// lyapunovDiagonal solves A W + W A^T + diag(q) = 0 for the symmetric W, A
// tridiagonal, by a dense LU solve on its K(K+1)/2 upper-triangular unknowns.
func lyapunovDiagonal(A *mat.Dense, q []float64) (*mat.SymDense, error) {
	k, _ := A.Dims()
	idx := func(i, j int) int { // i <= j
		if i > j {
			i, j = j, i
		}
		return i*k - i*(i-1)/2 + (j - i)
	}
	n := k * (k + 1) / 2
	M := mat.NewDense(n, n, nil)
	rhs := mat.NewVecDense(n, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			row := idx(i, j)
			// (A W)_ij + (W A^T)_ij = sum_m A_im W_mj + sum_m A_jm W_im.
			for m := max(i-1, 0); m <= min(i+1, k-1); m++ {
				M.Set(row, idx(m, j), M.At(row, idx(m, j))+A.At(i, m))
			}
			for m := max(j-1, 0); m <= min(j+1, k-1); m++ {
				M.Set(row, idx(i, m), M.At(row, idx(i, m))+A.At(j, m))
			}
			if i == j {
				rhs.SetVec(row, -q[i])
			}
		}
	}
	var w mat.VecDense
	if err := w.SolveVec(M, rhs); err != nil {
		return nil, fmt.Errorf("meanfield: Lyapunov equation: %w", err)
	}
	W := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			W.SetSym(i, j, w.AtVec(idx(i, j)))
		}
	}
	return W, nil
}
