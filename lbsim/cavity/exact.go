package cavity

import (
	"context"
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim/service"
)

// step applies the truncated map once: the tail T_K(u)_n = sum_{k>=n} p_k,
// n = 1..K, of the single queue with the arrival rates of u (arrivals blocked
// at K = len(u)).
func step(ctx context.Context, k kernel, lambda float64, d int, u []float64) ([]float64, error) {
	lam := ArrivalRates(lambda, d, u)[:len(u)]
	p, err := k.timeAverage(ctx, lam)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(u))
	acc := 0.0
	for n := len(p) - 1; n >= 1; n-- {
		acc += p[n]
		out[n-1] = acc
	}
	return out, nil
}

func supDiff(a, b []float64) float64 {
	m := 0.0
	for i := 0; i < max(len(a), len(b)); i++ {
		m = math.Max(m, math.Abs(at(a, i)-at(b, i)))
	}
	return m
}

// solveAt iterates u <- T_K(u) from u0 (extended or cut to K levels) until
// the residual sup|T(u) - u| is below tol or maxIter iterations. It returns
// the last output T(u), the last residual, the estimated contraction rate
// (the geometric mean ratio of the last residuals) and the iterations.
func solveAt(ctx context.Context, k kernel, lambda float64, d, K int, u0 []float64, tol float64, maxIter int) (
	u []float64, res, q float64, iters int, err error) {
	u = make([]float64, K)
	copy(u, u0)
	// Levels beyond u0: continue its last ratio, so the guess stays decreasing.
	for i := len(u0); i < K; i++ {
		if i >= 2 && u[i-2] > 0 {
			u[i] = u[i-1] * math.Min(0.99, u[i-1]/u[i-2])
		} else if i >= 1 {
			u[i] = u[i-1] / 2
		}
	}
	var hist []float64
	for iters = 1; iters <= maxIter; iters++ {
		next, err := step(ctx, k, lambda, d, u)
		if err != nil {
			return nil, 0, 0, iters, err
		}
		res = supDiff(next, u)
		hist = append(hist, res)
		u = next
		if res < tol || res == 0 {
			break
		}
	}
	q = contraction(hist)
	return u, res, q, iters, nil
}

// contraction estimates the rate of linear convergence from the residual
// history: the geometric mean ratio over the last (up to) 10 iterations,
// capped to [0, 0.9999]; NaN with fewer than 3 iterations.
func contraction(hist []float64) float64 {
	n := len(hist)
	if n < 3 {
		return math.NaN()
	}
	m := min(10, n-1)
	a, b := hist[n-1-m], hist[n-1]
	if !(a > 0) || !(b > 0) {
		return math.NaN()
	}
	return math.Min(0.9999, math.Max(0, math.Pow(b/a, 1/float64(m))))
}

// exact is the deterministic solver; see the package documentation.
func exact(ctx context.Context, lambda float64, d int, dist service.Distribution, o Options) (*Prediction, error) {
	rho := lambda * dist.Mean()
	k, err := newKernel(o.Kernel, dist, float64(d)*lambda, 0, math.Max(o.Depth, 1e-15))
	if err != nil {
		return nil, err
	}
	// Truncation: start where the exponential solution is below sqrt(Depth)
	// and grow K by a quarter until the last level is below Depth.
	u := InsensitivePrediction(rho, d, math.Sqrt(o.Depth))
	K := min(o.MaxLevels, max(6, len(u)+2))
	pred := &Prediction{Method: "exact"}
	var prev []float64
	q := math.NaN()
	// keep is the rate of the longest run (the later ones start close to the
	// fixed point and may stop too soon to show it).
	keep := func(r float64, it int, best *int) {
		if !math.IsNaN(r) && it > *best {
			q, *best = r, it
		}
	}
	best := 0
	for {
		var res, r float64
		var it int
		u, res, r, it, err = solveAt(ctx, k, lambda, d, K, u, o.Residual, o.MaxIter)
		if err != nil {
			return nil, err
		}
		keep(r, it, &best)
		pred.Iterations += it
		pred.Residual = res
		if res < o.Residual {
			pred.Converged = true
		}
		last := u[K-1]
		if last < o.Depth || K >= o.MaxLevels {
			break
		}
		prev = u
		K = min(o.MaxLevels, K+max(2, K/4))
	}
	if prev == nil {
		// Solve once more at fewer levels, for the truncation estimate.
		Kp := max(2, K-max(2, K/5))
		p, _, r, it, err := solveAt(ctx, k, lambda, d, Kp, u[:Kp], o.Residual, o.MaxIter)
		if err != nil {
			return nil, err
		}
		keep(r, it, &best)
		pred.Iterations += it
		prev = p
	}
	if math.IsNaN(q) {
		// Too few iterations anywhere to measure a rate (the start was the
		// fixed point): take a conservative 0.9.
		q = 0.9
	}
	pred.Levels = K
	pred.Contraction = q
	pred.Truncation = supDiff(u, prev)
	pred.IterationError = pred.Residual * q / (1 - q)
	if f := k.refined(); f != nil {
		a, err := step(ctx, k, lambda, d, u)
		if err != nil {
			return nil, err
		}
		b, err := step(ctx, f, lambda, d, u)
		if err != nil {
			return nil, err
		}
		pred.Quadrature = supDiff(a, b) / (1 - q)
	}
	pred.Quadrature += k.missing() / (1 - q)
	pred.Accuracy = pred.IterationError + pred.Truncation + pred.Quadrature
	pred.Change = pred.Residual
	pred.Bias = 0
	pred.U = u
	for len(pred.U) > 0 && !(pred.U[len(pred.U)-1] > 0) {
		pred.U = pred.U[:len(pred.U)-1]
	}
	pred.SE = make([]float64, len(pred.U))
	pred.Rates = ArrivalRates(lambda, d, pred.U)
	for _, v := range pred.U {
		pred.MeanLength += v
	}
	return pred, nil
}

// errExactOptions checks the exact solver's options.
func (o Options) checkExact() error {
	switch {
	case !(o.Residual > 0 && o.Residual < 1):
		return fmt.Errorf("cavity: residual = %v: must be in (0, 1)", o.Residual)
	case !(o.Depth > 0 && o.Depth < 1):
		return fmt.Errorf("cavity: depth = %v: must be in (0, 1)", o.Depth)
	case o.MaxLevels < 4 || o.MaxLevels > 1<<16:
		return fmt.Errorf("cavity: max_levels = %d: must be between 4 and 65536", o.MaxLevels)
	case o.MaxIter < 1:
		return fmt.Errorf("cavity: max_iter = %d: must be at least 1", o.MaxIter)
	}
	return nil
}
