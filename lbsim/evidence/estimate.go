package evidence

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Estimate is a value with its uncertainty: a standard error SE with DF
// degrees of freedom (+Inf: the error is normal, or SE is 0), and Bound, a
// bound on the absolute value of a deterministic error (truncation, solver
// tolerance, a known bias bound). Method says how it was obtained ("16
// replications", "exact, truncation mass 1e-11"); the checks print it.
type Estimate struct {
	Value  float64
	SE     float64
	DF     float64
	Bound  float64
	Method string
}

// Exact is a reference computed without sampling, correct to within bound
// (its truncation mass, solver tolerance or a proven bias bound; 0 for a
// closed form evaluated in floating point).
func Exact(value, bound float64) Estimate {
	m := "exact"
	if bound > 0 {
		m = fmt.Sprintf("exact to %.2g", bound)
	}
	return Estimate{Value: value, DF: math.Inf(1), Bound: bound, Method: m}
}

// Normal is a large-sample estimate whose error is normal with standard
// error se (for example a mean over 10^5 independent paths).
func Normal(value, se float64, method string) Estimate {
	return Estimate{Value: value, SE: se, DF: math.Inf(1), Method: method}
}

// Replications is the mean of independent replications xs: SE s/sqrt(n)
// with n - 1 degrees of freedom. It needs two values or more; NaN values
// make the estimate NaN (and every check on it fail).
func Replications(xs []float64) Estimate {
	n := len(xs)
	e := Estimate{Value: math.NaN(), SE: math.NaN(), DF: float64(n - 1), Method: fmt.Sprintf("%d replications", n)}
	if n == 0 {
		return e
	}
	e.Value = stat.Mean(xs, nil)
	if n >= 2 {
		e.SE = stat.StdDev(xs, nil) / math.Sqrt(float64(n))
	}
	return e
}

// FromCI95 is the estimate behind a mean and its 95% Student-t half-width
// over reps independent replications (as lbsim's results and the models'
// figures report them): SE = half / t_{0.975, reps-1}.
func FromCI95(mean, half float64, reps int) Estimate {
	e := Estimate{Value: mean, SE: math.NaN(), DF: float64(reps - 1), Method: fmt.Sprintf("%d replications", reps)}
	if reps >= 2 {
		e.SE = half / tQuantile(0.975, e.DF)
	}
	return e
}

// Scale is c·e (value, standard error and bound scaled by |c|), for a
// quantity on another scale, such as sqrt(N) q_2.
func (e Estimate) Scale(c float64) Estimate {
	e.Value *= c
	e.SE *= math.Abs(c)
	e.Bound *= math.Abs(c)
	return e
}

// Minus is e - o for independent e and o: the standard errors add in
// quadrature (Welch-Satterthwaite degrees of freedom), the bounds add.
func (e Estimate) Minus(o Estimate) Estimate {
	se, df := combine(e, o)
	return Estimate{Value: e.Value - o.Value, SE: se, DF: df, Bound: e.Bound + o.Bound,
		Method: e.Method + " minus " + o.Method}
}

// ErrCorrelatedBatches is returned by BatchMeans when the batch means are
// not independent at the stated level: the batches are too short.
var ErrCorrelatedBatches = errors.New("batch means are correlated: lengthen the batches")

// BatchMeans estimates the mean of a stationary series xs (one long run,
// equally spaced samples after the warm-up) from the means of batches
// consecutive batches of equal length (a remainder at the end is dropped):
// SE is the standard deviation of the batch means over sqrt(batches), with
// batches - 1 degrees of freedom. It returns the lag-1 autocorrelation r of
// the batch means too, and ErrCorrelatedBatches when |r + 1/b| exceeds
// z_{0.995}/sqrt(b) (the batch means are then not independent at level 1%:
// lengthen the batches). It needs at least 8 batches of at least one sample.
func BatchMeans(xs []float64, batches int) (Estimate, float64, error) {
	if batches < 8 {
		return Estimate{}, math.NaN(), fmt.Errorf("evidence.BatchMeans: batches = %d must be at least 8", batches)
	}
	length := len(xs) / batches
	if length < 1 {
		return Estimate{}, math.NaN(), fmt.Errorf("evidence.BatchMeans: %d samples cannot make %d batches", len(xs), batches)
	}
	means := make([]float64, batches)
	for b := range means {
		means[b] = stat.Mean(xs[b*length:(b+1)*length], nil)
	}
	r := lag1(means)
	e := Replications(means)
	e.Method = fmt.Sprintf("batch means, %d batches of %d samples, lag-1 r = %.2f", batches, length, r)
	// Under independence r is about normal with mean -1/b and variance 1/b.
	bf := float64(batches)
	if math.Abs(r+1/bf) > zQuantile(0.995)/math.Sqrt(bf) {
		return e, r, fmt.Errorf("evidence.BatchMeans: %w (lag-1 r = %.2f over %d batches of %d)", ErrCorrelatedBatches, r, batches, length)
	}
	return e, r, nil
}

// lag1 is the lag-1 sample autocorrelation of xs.
func lag1(xs []float64) float64 {
	m := stat.Mean(xs, nil)
	num, den := 0.0, 0.0
	for i, x := range xs {
		den += (x - m) * (x - m)
		if i > 0 {
			num += (x - m) * (xs[i-1] - m)
		}
	}
	return num / den
}

// combine is the standard error of the difference of two independent
// estimates and its Welch-Satterthwaite degrees of freedom.
func combine(a, b Estimate) (se, df float64) {
	va, vb := a.SE*a.SE, b.SE*b.SE
	se = math.Sqrt(va + vb)
	den := 0.0
	if va > 0 && !math.IsInf(a.DF, 1) {
		den += va * va / a.DF
	}
	if vb > 0 && !math.IsInf(b.DF, 1) {
		den += vb * vb / b.DF
	}
	if den == 0 {
		return se, math.Inf(1)
	}
	return se, (va + vb) * (va + vb) / den
}

// tQuantile is the p-quantile of Student's t with df degrees of freedom
// (the normal's for df = +Inf).
func tQuantile(p, df float64) float64 {
	if math.IsInf(df, 1) {
		return zQuantile(p)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

func zQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// estimateJSON is an Estimate as JSON, which has no NaN or infinity: a
// standard error that is NaN and degrees of freedom that are +Inf are
// written as null.
type estimateJSON struct {
	Value  float64  `json:"value"`
	SE     *float64 `json:"se"`
	DF     *float64 `json:"df"`
	Bound  float64  `json:"bound,omitempty"`
	Method string   `json:"method,omitempty"`
}

// MarshalJSON writes e with a NaN standard error and +Inf degrees of freedom
// as null, so that estimates can be kept from cell to cell (kh.Keep).
func (e Estimate) MarshalJSON() ([]byte, error) {
	j := estimateJSON{Value: e.Value, Bound: e.Bound, Method: e.Method}
	if !math.IsNaN(e.SE) {
		j.SE = &e.SE
	}
	if !math.IsInf(e.DF, 1) {
		j.DF = &e.DF
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Estimate) UnmarshalJSON(b []byte) error {
	var j estimateJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = Estimate{Value: j.Value, SE: math.NaN(), DF: math.Inf(1), Bound: j.Bound, Method: j.Method}
	if j.SE != nil {
		e.SE = *j.SE
	}
	if j.DF != nil {
		e.DF = *j.DF
	}
	return nil
}
