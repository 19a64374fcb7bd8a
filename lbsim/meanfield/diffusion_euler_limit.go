package meanfield

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/lbsim/notebooks/lbsim/mc"
	"gonum.org/v1/gonum/stat"
)

// EulerLimitOptions configures JSQDiffusionEulerLimit and
// JSQDiffusionProcess: the Euler scheme with reflection of
// SimulateJSQDiffusion at several steps, extrapolated in the step by
// Richardson.
type EulerLimitOptions struct {
	// Beta > 0 is the Halfin-Whitt spare-capacity parameter.
	Beta float64
	// Scheme is the reflection (SchemeProjection: bias O(sqrt(dt));
	// SchemeBridge: bias O(dt)).
	Scheme DiffusionScheme
	// Dts are the distinct steps (default 0.04, 0.02, 0.01) and Orders the
	// len(Dts)-1 orders of the bias expansion removed (default 1, 2 for
	// SchemeBridge and 0.5, 1 for SchemeProjection).
	Dts, Orders []float64
	// Horizon and Warmup are the simulated time of each replication and
	// the part discarded from the stationary figures (defaults 1e4, 100).
	Horizon, Warmup float64
	// Replications >= 2 independent runs per step (default 8); run r at
	// step index k draws from mc.Stream(Seed, k, r), so the results do not
	// depend on Workers (0: GOMAXPROCS).
	Replications int
	Seed         uint64
	Workers      int
	// Points1 and Points2 are where JSQDiffusionEulerLimit evaluates the
	// distribution functions of Qbar_1 and Qbar_2.
	Points1, Points2 []float64
	// Init, Until, Grid and Lags are for JSQDiffusionProcess: the mean path
	// from Init on the times 0, Grid, ..., Until, and the stationary
	// autocovariance at the lags 0, Grid, ..., Lags Grid from the part
	// after Warmup (Grid a multiple of every step).
	Init        [2]float64
	Until, Grid float64
	Lags        int
}

// EulerStep is the Monte Carlo estimate at one step, before extrapolation.
type EulerStep struct {
	Dt float64
	// Mean1, Mean2, Var1, Var2, Cov12 are the stationary moments, Rate the
	// long-run rate of U (= E[Qbar_2] in stationarity); SE is over the
	// replications.
	Mean1, Mean2, Var1, Var2, Cov12, Rate Estimate
	CDF1, CDF2                            []Estimate
}

// EulerLimit is the outcome of JSQDiffusionEulerLimit.
type EulerLimit struct {
	Beta                 float64
	Scheme               DiffusionScheme
	Dts, Orders, Weights []float64
	Steps                []EulerStep
	// The extrapolated figures: SE = sqrt(sum_k w_k^2 SE_k^2) over the
	// independent steps; Numerical is 0 (the terms of higher order than
	// Orders are not estimated: the comparison with JSQDiffusionLawLimit
	// bounds them).
	Mean1, Mean2, Var1, Var2, Cov12, Rate Estimate
	Points1, Points2                      []float64
	CDF1, CDF2                            []Estimate
}

// eulerDefaults fills the defaults and checks the options common to the
// Euler limits.
func eulerDefaults(opt *EulerLimitOptions) error {
	if opt.Scheme != SchemeProjection && opt.Scheme != SchemeBridge {
		return fmt.Errorf("meanfield: scheme = %d: must be SchemeProjection (0) or SchemeBridge (1)", opt.Scheme)
	}
	if opt.Dts == nil {
		opt.Dts = []float64{0.04, 0.02, 0.01}
	}
	if opt.Orders == nil {
		opt.Orders = []float64{1, 2, 3, 4, 5, 6, 7}
		if opt.Scheme == SchemeProjection {
			opt.Orders = []float64{0.5, 1, 1.5, 2, 2.5, 3, 3.5}
		}
		if len(opt.Dts) > len(opt.Orders)+1 {
			return fmt.Errorf("meanfield: %d steps: at most 8 without explicit orders", len(opt.Dts))
		}
		opt.Orders = opt.Orders[:max(len(opt.Dts)-1, 0)]
	}
	if opt.Horizon == 0 {
		opt.Horizon = 1e4
	}
	if opt.Warmup == 0 {
		opt.Warmup = math.Min(100, opt.Horizon/10)
	}
	if opt.Replications == 0 {
		opt.Replications = 8
	}
	if opt.Replications < 2 || opt.Replications > 1<<20 {
		return fmt.Errorf("meanfield: replications = %d must be in [2, 2^20]", opt.Replications)
	}
	if len(opt.Dts) < 1 || len(opt.Orders) != len(opt.Dts)-1 {
		return fmt.Errorf("meanfield: %d steps and %d orders: need at least one step and one order fewer than steps",
			len(opt.Dts), len(opt.Orders))
	}
	// Richardson checks the steps and orders; run it once on dummy values.
	_, _, err := Richardson(opt.Dts, make([]float64, len(opt.Dts)), opt.Orders)
	return err
}

// cdfEdges returns the strictly increasing histogram edges for the points
// and, for each point, its edge index.
func cdfEdges(points []float64) (edges []float64, at []int) {
	edges = slices.Clone(points)
	slices.Sort(edges)
	edges = slices.Compact(edges)
	at = make([]int, len(points))
	for k, x := range points {
		at[k], _ = slices.BinarySearch(edges, x)
	}
	if len(edges) == 1 {
		edges = append(edges, edges[0]+1)
	}
	return edges, at
}

// cdfAt reads P(X < Edges[k]) off a histogram.
func cdfAt(h *Histogram, at []int) []float64 {
	out := make([]float64, len(at))
	for k, e := range at {
		s := h.Below
		for _, f := range h.Fraction[:e] {
			s += f
		}
		out[k] = s
	}
	return out
}

// runEuler runs every (step, replication) pair and returns the figures
// fig(k, r, result) as perStep[k][r].
func runEuler(ctx context.Context, opt EulerLimitOptions, base DiffusionOptions,
	fig func(res *DiffusionResult) []float64) ([][][]float64, error) {
	R, K := opt.Replications, len(opt.Dts)
	perStep := make([][][]float64, K)
	for k := range perStep {
		perStep[k] = make([][]float64, R)
	}
	err := mc.Replicate(K*R, opt.Workers, 1, nil, func(job int, _ func(float64)) error {
		k, r := job/R, job%R
		o := base
		o.Dt, o.Scheme = opt.Dts[k], opt.Scheme
		rng := mc.Stream(opt.Seed, uint64(k), uint64(r))
		res, err := simulateDiffusionU(ctx, o, rng.NormFloat64, rng.Float64)
		if err != nil {
			return err
		}
		perStep[k][r] = fig(res)
		return nil
	})
	return perStep, err
}

// extrapolate turns perStep[k][r][c] into the estimates at each step (mean
// and standard error over r) and their Richardson extrapolate.
func extrapolate(opt EulerLimitOptions, perStep [][][]float64) (steps [][]Estimate, limit []Estimate, weights []float64, err error) {
	K, R := len(perStep), len(perStep[0])
	C := len(perStep[0][0])
	steps = make([][]Estimate, K)
	xs := make([]float64, R)
	for k := range K {
		steps[k] = make([]Estimate, C)
		for c := range C {
			for r := range R {
				xs[r] = perStep[k][r][c]
			}
			m, sd := stat.MeanStdDev(xs, nil)
			steps[k][c] = Estimate{Value: m, SE: sd / math.Sqrt(float64(R))}
		}
	}
	limit = make([]Estimate, C)
	v := make([]float64, K)
	for c := range C {
		for k := range K {
			v[k] = steps[k][c].Value
		}
		var val float64
		val, weights, err = Richardson(opt.Dts, v, opt.Orders)
		if err != nil {
			return nil, nil, nil, err
		}
		se2 := 0.0
		for k, w := range weights {
			se2 += w * w * steps[k][c].SE * steps[k][c].SE
		}
		limit[c] = Estimate{Value: val, SE: math.Sqrt(se2)}
	}
	return steps, limit, weights, nil
}

// JSQDiffusionEulerLimit estimates the stationary law of the JSQ diffusion
// by the Euler scheme with reflection at the steps opt.Dts, extrapolated to
// dt = 0 (Richardson in dt with opt.Orders) with a Monte Carlo standard
// error from opt.Replications independent runs per step, each started at
// (-beta, 0) and averaged over (Warmup, Horizon). Cancelled through ctx.
//
// Measured at beta = 1 (defaults: SchemeBridge, dt = 0.04, 0.02, 0.01,
// 8 runs of 10^4): see TestEulerAgreesWithLattice.
func JSQDiffusionEulerLimit(ctx context.Context, opt EulerLimitOptions) (*EulerLimit, error) {
	if err := eulerDefaults(&opt); err != nil {
		return nil, err
	}
	for k, x := range opt.Points1 {
		if math.IsNaN(x) || math.IsInf(x, 0) || x > 0 {
			return nil, fmt.Errorf("meanfield: points1[%d] = %v must be finite and <= 0", k, x)
		}
	}
	for k, x := range opt.Points2 {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, fmt.Errorf("meanfield: points2[%d] = %v must be finite and >= 0", k, x)
		}
	}
	base := DiffusionOptions{Beta: opt.Beta, Horizon: opt.Horizon, Warmup: opt.Warmup, Init: [2]float64{-opt.Beta, 0}}
	var at1, at2 []int
	if len(opt.Points1) > 0 {
		base.Edges1, at1 = cdfEdges(opt.Points1)
	}
	if len(opt.Points2) > 0 {
		base.Edges2, at2 = cdfEdges(opt.Points2)
	}
	perStep, err := runEuler(ctx, opt, base, func(res *DiffusionResult) []float64 {
		f := []float64{res.Mean1, res.Mean2, res.Second1 - res.Mean1*res.Mean1, res.Second2 - res.Mean2*res.Mean2,
			res.Cross - res.Mean1*res.Mean2, res.ReflectionRate}
		if res.Hist1 != nil {
			f = append(f, cdfAt(res.Hist1, at1)...)
		}
		if res.Hist2 != nil {
			f = append(f, cdfAt(res.Hist2, at2)...)
		}
		return f
	})
	if err != nil {
		return nil, err
	}
	steps, limit, weights, err := extrapolate(opt, perStep)
	if err != nil {
		return nil, err
	}
	n1 := len(opt.Points1)
	unpack := func(e []Estimate) (m1, m2, v1, v2, c12, rate Estimate, cdf1, cdf2 []Estimate) {
		return e[0], e[1], e[2], e[3], e[4], e[5], e[6 : 6+n1], e[6+n1:]
	}
	out := &EulerLimit{Beta: opt.Beta, Scheme: opt.Scheme, Dts: opt.Dts, Orders: opt.Orders, Weights: weights,
		Points1: slices.Clone(opt.Points1), Points2: slices.Clone(opt.Points2)}
	out.Mean1, out.Mean2, out.Var1, out.Var2, out.Cov12, out.Rate, out.CDF1, out.CDF2 = unpack(limit)
	for k, e := range steps {
		s := EulerStep{Dt: opt.Dts[k]}
		s.Mean1, s.Mean2, s.Var1, s.Var2, s.Cov12, s.Rate, s.CDF1, s.CDF2 = unpack(e)
		out.Steps = append(out.Steps, s)
	}
	return out, nil
}

// DiffusionProcess is the outcome of JSQDiffusionProcess: the mean path
// from the initial condition and the stationary autocovariances, each
// extrapolated in dt with its Monte Carlo standard error (Numerical 0, as
// in EulerLimit).
type DiffusionProcess struct {
	Beta                 float64
	Init                 [2]float64
	Dts, Orders, Weights []float64
	// Times are 0, Grid, ..., Until; Mean1[j], Mean2[j] estimate
	// E[Qbar_i(Times[j])] from Init.
	Times        []float64
	Mean1, Mean2 []Estimate
	// Lags are 0, Grid, ..., Lags Grid; Autocov1[k] and Autocov2[k]
	// estimate Cov(Qbar_i(0), Qbar_i(Lags[k])) in stationarity, from the
	// part of each run after Warmup.
	Lags               []float64
	Autocov1, Autocov2 []Estimate
}

// JSQDiffusionProcess estimates the mean path of the JSQ diffusion from
// opt.Init (for example the finite-N system started at Q_1 = N + x_1
// sqrt(N), Q_2 = x_2 sqrt(N)) and its stationary autocovariance, by the
// Euler scheme with reflection at the steps opt.Dts extrapolated to dt = 0.
// Each run lasts opt.Horizon from Init.
func JSQDiffusionProcess(ctx context.Context, opt EulerLimitOptions) (*DiffusionProcess, error) {
	if err := eulerDefaults(&opt); err != nil {
		return nil, err
	}
	switch {
	case !(opt.Grid > 0) || math.IsInf(opt.Grid, 0):
		return nil, fmt.Errorf("meanfield: grid = %v must be finite and > 0", opt.Grid)
	case !(opt.Until >= 0) || opt.Until > opt.Horizon:
		return nil, fmt.Errorf("meanfield: until = %v must be in [0, horizon = %v]", opt.Until, opt.Horizon)
	case opt.Lags < 0 || float64(opt.Lags)*opt.Grid > (opt.Horizon-opt.Warmup)/10:
		return nil, fmt.Errorf("meanfield: lags = %d must be in [0, (horizon - warmup)/(10 grid)]", opt.Lags)
	}
	for k, dt := range opt.Dts {
		if q := opt.Grid / dt; math.Abs(q-math.Round(q)) > 1e-9*q {
			return nil, fmt.Errorf("meanfield: grid = %v must be a multiple of every step (dts[%d] = %v)", opt.Grid, k, dt)
		}
	}
	nPath := int(math.Floor(opt.Until/opt.Grid+1e-9)) + 1
	base := DiffusionOptions{Beta: opt.Beta, Horizon: opt.Horizon, Warmup: opt.Warmup, Init: opt.Init, Grid: opt.Grid}
	perStep, err := runEuler(ctx, opt, base, func(res *DiffusionResult) []float64 {
		f := append(slices.Clone(res.Path1[:nPath]), res.Path2[:nPath]...)
		first, _ := slices.BinarySearch(res.Times, opt.Warmup-1e-9*opt.Grid)
		f = append(f, autocov(res.Path1[first:], opt.Lags)...)
		return append(f, autocov(res.Path2[first:], opt.Lags)...)
	})
	if err != nil {
		return nil, err
	}
	_, limit, weights, err := extrapolate(opt, perStep)
	if err != nil {
		return nil, err
	}
	out := &DiffusionProcess{Beta: opt.Beta, Init: opt.Init, Dts: opt.Dts, Orders: opt.Orders, Weights: weights}
	for j := range nPath {
		out.Times = append(out.Times, float64(j)*opt.Grid)
	}
	for k := 0; k <= opt.Lags; k++ {
		out.Lags = append(out.Lags, float64(k)*opt.Grid)
	}
	L := opt.Lags + 1
	out.Mean1, out.Mean2 = limit[:nPath], limit[nPath:2*nPath]
	out.Autocov1, out.Autocov2 = limit[2*nPath:2*nPath+L], limit[2*nPath+L:]
	return out, nil
}

// autocov returns the sample autocovariances of x at lags 0..lags, each
// the mean of (x_t - m)(x_{t+k} - m) over the available pairs.
func autocov(x []float64, lags int) []float64 {
	m := stat.Mean(x, nil)
	out := make([]float64, lags+1)
	for k := range out {
		s := 0.0
		for t := 0; t+k < len(x); t++ {
			s += (x[t] - m) * (x[t+k] - m)
		}
		out[k] = s / float64(len(x)-k)
	}
	return out
}
