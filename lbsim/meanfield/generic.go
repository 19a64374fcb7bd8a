package meanfield

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// FixedPointTol is the target of FixedPoint for the largest component of the
// drift, |f(q)|_inf.
const FixedPointTol = 1e-13

// ErrNotConverged is wrapped by the error of FixedPoint when neither Newton's
// method nor integration reached FixedPointTol.
var ErrNotConverged = errors.New("fixed point not converged")

// FixedPoint finds a stationary point of drift, truncated at levels K (the
// state has K entries; for HeterogeneousJSQdDrift, C*K), starting from q0
// (padded with zeros or cut to K entries; nil is the empty system). It
// returns the point, the residual |drift(q)|_inf there, and an error wrapping
// ErrNotConverged if the residual is above 1e-9 (the point and residual are
// still returned), or ctx.Err().
//
// Method: damped Newton on drift(q) = 0, with the Jacobian by central finite
// differences (gonum diff/fd) and the step from an LU solve (gonum mat),
// halving the step until the residual decreases (at most 30 halvings), up to
// 50 iterations, stopping at residual FixedPointTol. Newton's answer is kept
// only if it is an occupancy vector (entries in [0, 1] up to 1e-9;
// heterogeneous layouts are not checked for order): a nonlinear drift can have
// spurious roots far from the start. Otherwise, or if Newton stalls (singular
// Jacobian, no decrease), FixedPoint integrates the ODE from q0 over
// doubling horizons (to t = 10^6 at most) until the residual is below 1e-7,
// then polishes with Newton from there.
func FixedPoint(ctx context.Context, drift System, levels int, q0 []float64) (q []float64, residual float64, err error) {
	if drift == nil {
		return nil, 0, errors.New("meanfield: FixedPoint: drift is nil")
	}
	if levels < 1 {
		return nil, 0, fmt.Errorf("meanfield: FixedPoint: levels = %d must be at least 1", levels)
	}
	for i, v := range q0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("meanfield: FixedPoint: q0[%d] = %v is not finite", i, v)
		}
	}
	start := make([]float64, levels)
	copy(start, q0)

	q, residual = newton(drift, start)
	if residual <= FixedPointTol && occupancyLike(q) {
		return q, residual, nil
	}
	best, bestRes := q, residual
	if !occupancyLike(q) {
		best, bestRes = start, residualOf(drift, start)
	}

	// Fall back: integrate towards stationarity.
	y := append([]float64(nil), start...)
	t := 0.0
	for span := 10.0; t < 1e6; span *= 2 {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		sol, ierr := Integrate(ctx, drift, y, []float64{t, t + span}, Options{RelTol: 1e-10, AbsTol: 1e-14, MaxSteps: 1 << 20})
		if ierr != nil {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			break
		}
		t += span
		copy(y, sol.Y[1])
		if r := residualOf(drift, y); r < 1e-7 {
			break
		}
	}
	if r := residualOf(drift, y); r < bestRes || !occupancyLike(best) {
		best, bestRes = append([]float64(nil), y...), r
	}
	if qn, rn := newton(drift, y); rn < bestRes && occupancyLike(qn) {
		best, bestRes = qn, rn
	}
	if bestRes > 1e-9 || math.IsNaN(bestRes) {
		return best, bestRes, fmt.Errorf("meanfield: FixedPoint: residual %.3g after Newton and integration to t = %g: %w", bestRes, t, ErrNotConverged)
	}
	return best, bestRes, nil
}

// occupancyLike reports whether all entries lie in [0, 1] up to 1e-9.
func occupancyLike(q []float64) bool {
	for _, v := range q {
		if !(v >= -1e-9 && v <= 1+1e-9) {
			return false
		}
	}
	return true
}

// residualOf returns |drift(q)|_inf (NaN if a component is NaN).
func residualOf(drift System, q []float64) float64 {
	f := make([]float64, len(q))
	drift(0, q, f)
	return normInf(f)
}

func normInf(f []float64) float64 {
	r := 0.0
	for _, v := range f {
		if v != v {
			return math.NaN()
		}
		r = math.Max(r, math.Abs(v))
	}
	return r
}

// newton runs damped Newton from x0 and returns its best point and residual.
func newton(drift System, x0 []float64) ([]float64, float64) {
	n := len(x0)
	x := append([]float64(nil), x0...)
	f := make([]float64, n)
	drift(0, x, f)
	res := normInf(f)
	if res != res {
		return x, res
	}
	J := mat.NewDense(n, n, nil)
	fn := func(y, x []float64) { drift(0, x, y) }
	settings := &fd.JacobianSettings{Formula: fd.Central, Step: 1e-6}
	var lu mat.LU
	dx := mat.NewVecDense(n, nil)
	trial := make([]float64, n)
	ft := make([]float64, n)
	for it := 0; it < 50 && res > FixedPointTol; it++ {
		fd.Jacobian(J, fn, x, settings)
		lu.Factorize(J)
		if lu.Cond() > 1e14 {
			return x, res
		}
		if err := lu.SolveVecTo(dx, false, mat.NewVecDense(n, append([]float64(nil), f...))); err != nil {
			return x, res
		}
		step := 1.0
		improved := false
		for h := 0; h < 30; h++ {
			for i := range x {
				trial[i] = x[i] - step*dx.AtVec(i)
			}
			drift(0, trial, ft)
			if r := normInf(ft); r < res {
				copy(x, trial)
				copy(f, ft)
				res = r
				improved = true
				break
			}
			step /= 2
		}
		if !improved {
			break
		}
	}
	return x, res
}
