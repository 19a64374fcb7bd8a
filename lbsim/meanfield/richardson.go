package meanfield

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Estimate is a limit value with its error: Numerical estimates the
// deterministic error (discretisation, truncation), SE is the Monte Carlo
// standard error (0 for a deterministic method).
type Estimate struct {
	Value, Numerical, SE float64
}

// Richardson extrapolates values v_k computed at steps h_k to h = 0 under the
// expansion v(h) = v(0) + sum_m c_m h^orders[m], with len(orders) =
// len(h) - 1: the limit is sum_k weights[k] v_k, the weights solving the
// Vandermonde-type system sum_k w_k = 1, sum_k w_k h_k^p = 0 for each order
// p. A Monte Carlo standard error of the extrapolate is
// sqrt(sum_k w_k^2 SE_k^2) when the v_k are independent.
func Richardson(h, v, orders []float64) (limit float64, weights []float64, err error) {
	n := len(h)
	if n < 1 || len(v) != n || len(orders) != n-1 {
		return 0, nil, fmt.Errorf("meanfield: Richardson needs len(v) = len(h) >= 1 and len(orders) = len(h) - 1 (got %d, %d, %d)",
			len(h), len(v), len(orders))
	}
	for k, x := range h {
		if !(x > 0) || math.IsInf(x, 0) {
			return 0, nil, fmt.Errorf("meanfield: Richardson step h[%d] = %v must be finite and > 0", k, x)
		}
		for m := 0; m < k; m++ {
			if h[m] == x {
				return 0, nil, fmt.Errorf("meanfield: Richardson steps h[%d] = h[%d] = %v must be distinct", m, k, x)
			}
		}
	}
	for m, p := range orders {
		if !(p > 0) || math.IsInf(p, 0) {
			return 0, nil, fmt.Errorf("meanfield: Richardson order %d = %v must be finite and > 0", m, p)
		}
	}
	// Rows: the constraints; columns: the weights.
	a := mat.NewDense(n, n, nil)
	b := mat.NewVecDense(n, nil)
	for k := range n {
		a.Set(0, k, 1)
	}
	b.SetVec(0, 1)
	for m, p := range orders {
		for k := range n {
			a.Set(m+1, k, math.Pow(h[k]/h[0], p)) // scaled by h_0^p
		}
	}
	var w mat.VecDense
	if err := w.SolveVec(a, b); err != nil {
		return 0, nil, fmt.Errorf("meanfield: Richardson system: %v", err)
	}
	weights = make([]float64, n)
	for k := range n {
		weights[k] = w.AtVec(k)
		limit += weights[k] * v[k]
	}
	return limit, weights, nil
}
