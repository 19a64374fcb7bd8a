package meanfield

import (
	"fmt"
	"math"
)

// HeterogeneousJSQdDrift returns the mean-field drift of JSQ(d) with d servers
// sampled uniformly with replacement from a pool made of C classes of
// servers: class c holds a fraction gamma[c] of the servers, each serving at
// rate mu[c]. A task joins the shortest of its d samples, ties broken
// uniformly (whatever the class).
//
// State layout: the state is flat, class after class, K levels each:
//
//	q[c*K + i - 1] = q_{c,i},   c = 0..C-1, i = 1..K,   K = len(q)/C,
//
// where q_{c,i} is the fraction of ALL servers that are in class c and hold at
// least i tasks (so q_{c,0} = gamma[c] and sum_c q_{c,i} = u_i, the total
// occupancy tail, u_0 = 1). The drift is
//
//	dq_{c,i}/dt = lambda (q_{c,i-1} - q_{c,i}) / (u_{i-1} - u_i) (u_{i-1}^d - u_i^d)
//	              - mu[c] (q_{c,i} - q_{c,i+1}),
//
// with q_{c,K+1} = 0: the shortest of the d samples has length exactly i - 1
// with probability u_{i-1}^d - u_i^d, and given that, it is a uniformly random
// server of length i - 1, of class c with probability (q_{c,i-1} -
// q_{c,i})/(u_{i-1} - u_i). The ratio (u_{i-1}^d - u_i^d)/(u_{i-1} - u_i) is
// evaluated as the polynomial sum_{k<d} u_{i-1}^k u_i^{d-1-k}, which is
// continuous (d u^{d-1}) where u_{i-1} = u_i.
//
// gamma must be positive and sum to 1 (within 1e-9; it is then normalised
// exactly), mu positive and finite, with len(gamma) = len(mu) >= 1. lambda is
// the arrival rate per server; the system is stable for lambda < sum_c
// gamma[c] mu[c], and at the fixed point sum_c mu[c] q_{c,1} = lambda (flow
// balance, up to the loss at the truncation level K). One class with mu = 1
// is JSQdDrift.
func HeterogeneousJSQdDrift(lambda float64, d int, gamma, mu []float64) (System, error) {
	if err := checkDriftLambda(lambda, d); err != nil {
		return nil, err
	}
	C := len(gamma)
	if C == 0 || len(mu) != C {
		return nil, fmt.Errorf("meanfield: len(gamma) = %d and len(mu) = %d must be equal and at least 1", len(gamma), len(mu))
	}
	sum := 0.0
	for c, g := range gamma {
		if !(g > 0) || math.IsInf(g, 0) {
			return nil, fmt.Errorf("meanfield: gamma[%d] = %v must be a fraction in (0, 1]", c, g)
		}
		sum += g
		if m := mu[c]; !(m > 0) || math.IsInf(m, 0) {
			return nil, fmt.Errorf("meanfield: mu[%d] = %v must be a finite rate > 0", c, m)
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		return nil, fmt.Errorf("meanfield: gamma sums to %v; the class fractions must sum to 1", sum)
	}
	g := make([]float64, C)
	for c := range gamma {
		g[c] = gamma[c] / sum
	}
	m := append([]float64(nil), mu...)
	return func(_ float64, q, dq []float64) {
		K := len(q) / C
		uPrev := 1.0
		for i := 0; i < K; i++ {
			u := 0.0
			for c := 0; c < C; c++ {
				u += q[c*K+i]
			}
			// (uPrev^d - u^d)/(uPrev - u) = sum_{k<d} uPrev^k u^(d-1-k).
			ratio, pw := 0.0, 1.0
			for k := 0; k < d; k++ {
				ratio = ratio*u + pw
				pw *= uPrev
			}
			// Horner above builds sum_k uPrev^k u^(d-1-k) term by term:
			// after step k, ratio = sum_{j<=k} uPrev^j u^(k-j).
			for c := 0; c < C; c++ {
				qi := q[c*K+i]
				prev := g[c]
				if i > 0 {
					prev = q[c*K+i-1]
				}
				next := 0.0
				if i+1 < K {
					next = q[c*K+i+1]
				}
				dq[c*K+i] = lambda*(prev-qi)*ratio - m[c]*(qi-next)
			}
			uPrev = u
		}
		for j := C * K; j < len(q); j++ {
			dq[j] = 0 // len(q) not a multiple of C: not part of the state
		}
	}, nil
}
