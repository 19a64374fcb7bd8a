package meanfield

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// The diffusion limit of JSQ in the Halfin-Whitt regime (Eschenfeldt and
// Gamarnik 2018): with N servers and total arrival rate lambda(N) = N -
// beta sqrt(N), the centred and scaled counts
//
//	Qbar_1 = (Q_1 - N)/sqrt(N) <= 0   (minus the idle servers / sqrt(N)),
//	Qbar_2 = Q_2/sqrt(N) >= 0         (servers with a waiting task / sqrt(N)),
//
// Q_i the number of servers with at least i tasks, converge to
//
//	dQbar_1 = sqrt(2) dW - beta dt - Qbar_1 dt + Qbar_2 dt - dU,
//	dQbar_2 = dU - Qbar_2 dt,
//
// with U non-decreasing and increasing only when Qbar_1 = 0 (the arrivals that
// find all servers busy). Summing the two equations, U cancels:
// d(Qbar_1 + Qbar_2) = sqrt(2) dW - beta dt - Qbar_1 dt, so in stationarity
// E[Qbar_1] = -beta exactly: the mean number of idle servers is beta sqrt(N).
// Stationarity of Qbar_2 gives E[Qbar_2] = the long-run rate of U.

// DiffusionOptions configures SimulateJSQDiffusion.
type DiffusionOptions struct {
	// Beta > 0 is the Halfin-Whitt spare-capacity parameter.
	Beta float64
	// Dt > 0 is the Euler-Maruyama step; Horizon > Warmup >= 0 the simulated
	// time, of which [0, Warmup) is discarded from the averages and
	// histograms. Horizon/Dt must be at most 1e10.
	Dt, Horizon, Warmup float64
	// Seed selects the random stream (PCG seeded with (Seed, 0x6d66646966)).
	Seed uint64
	// Init is (Qbar_1, Qbar_2) at time 0, with Qbar_1 <= 0 <= Qbar_2.
	Init [2]float64
	// Edges1 and Edges2 are the increasing bin edges of the histograms of
	// Qbar_1 and Qbar_2 (nil or fewer than 2: no histogram).
	Edges1, Edges2 []float64
	// Grid > 0 records the path at times 0, Grid, 2 Grid, ... <= Horizon
	// (0: no path). Grid must be at least Dt; a grid time is recorded with
	// the state at the first step at or after it.
	Grid float64
	// Scheme selects the reflection (default SchemeProjection, the plain
	// Euler-Maruyama projection; SchemeBridge removes most of its bias).
	Scheme DiffusionScheme
}

// DiffusionScheme selects how SimulateJSQDiffusion reflects Qbar_1 at 0.
type DiffusionScheme int

const (
	// SchemeProjection is Euler-Maruyama followed by projection onto
	// Qbar_1 <= 0: strong and weak order 1/2 (see SimulateJSQDiffusion).
	SchemeProjection DiffusionScheme = iota
	// SchemeBridge reflects each step exactly for the Brownian motion with
	// the drift frozen at the step start (Lepingle 1995): the pushing dU of
	// the step is the positive part of the maximum of the Brownian bridge
	// between the start and the unreflected end point, sampled exactly from
	// its law. Its bias is O(Dt) (see diffusion_bridge.go).
	SchemeBridge
)

// Histogram is the fraction of the sampled steps in each bin [Edges[k],
// Edges[k+1]); Below and Above are the fractions outside the edges (the last
// bin includes its upper edge).
type Histogram struct {
	Edges        []float64
	Fraction     []float64
	Below, Above float64
}

// DiffusionResult is the outcome of SimulateJSQDiffusion.
type DiffusionResult struct {
	// Mean1 and Mean2 are the time averages of Qbar_1 and Qbar_2 over
	// [Warmup, Horizon), taken at the step starts (after reflection).
	Mean1, Mean2 float64
	// Second1, Second2 and Cross are the time averages of Qbar_1^2,
	// Qbar_2^2 and Qbar_1 Qbar_2 over the same steps.
	Second1, Second2, Cross float64
	// ReflectionRate is the increase of U over [Warmup, Horizon) divided by
	// its length; in stationarity it estimates E[Qbar_2].
	ReflectionRate float64
	// Hist1 and Hist2 are the histograms (nil if no edges were given).
	Hist1, Hist2 *Histogram
	// Times, Path1 and Path2 sample the path on the grid.
	Times, Path1, Path2 []float64
	// Steps is the number of Euler steps.
	Steps int
}

// SimulateJSQDiffusion simulates the Eschenfeldt-Gamarnik diffusion by the
// Euler-Maruyama scheme with reflection by projection: each step
//
//	Qbar_1 += sqrt(2 Dt) Z - (beta + Qbar_1 - Qbar_2) Dt,   Z ~ N(0, 1),
//	Qbar_2 -= Qbar_2 Dt,
//
// then, if Qbar_1 > 0, dU = Qbar_1, Qbar_1 = 0, Qbar_2 += dU. The projection
// keeps Qbar_1 + Qbar_2 unchanged, so the scheme has the identity E[Qbar_1] =
// -beta of the limit exactly (for the average at the step starts). The
// reflection makes the scheme converge only at order 1/2: the error of paths
// and of the stationary means is O(sqrt(Dt)), and it is not small. At beta = 1
// the mean of Qbar_2 on one Brownian path is 0.585, 0.634, 0.674, 0.707 for
// Dt = 0.04, 0.02, 0.01, 0.005 (the changes shrink by 0.81 per halving,
// approaching 1/sqrt(2)); Richardson extrapolation in sqrt(Dt) from the last
// two gives about 0.785, which is itself still low: the limit is 0.813 (from
// SchemeBridge, whose bias is O(Dt), about 0.002 at Dt = 0.01; see
// JSQDiffusionStationary for its convergence table). The projection
// underestimates Qbar_2 because it misses the excursions above 0 within a
// step; SchemeBridge samples them exactly (given the frozen drift). E[Qbar_1] = -beta holds at every Dt. Normal variates come from math/rand/v2's PCG source and NormFloat64,
// so a seed gives the same result on every platform.
func SimulateJSQDiffusion(ctx context.Context, opt DiffusionOptions) (*DiffusionResult, error) {
	r := rand.New(rand.NewPCG(opt.Seed, 0x6d66646966))
	return simulateDiffusionU(ctx, opt, r.NormFloat64, r.Float64)
}

// simulateDiffusion runs the scheme with the standard normal variates gauss
// (one per step), which lets the tests couple two step sizes. It supports
// SchemeProjection only (the bridge scheme also needs uniforms).
func simulateDiffusion(ctx context.Context, opt DiffusionOptions, gauss func() float64) (*DiffusionResult, error) {
	return simulateDiffusionU(ctx, opt, gauss, nil)
}

// simulateDiffusionU runs the scheme with normal variates gauss and, for
// SchemeBridge, uniform variates unif on [0, 1) (one of each per step).
func simulateDiffusionU(ctx context.Context, opt DiffusionOptions, gauss, unif func() float64) (*DiffusionResult, error) {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case bad(opt.Beta) || opt.Beta <= 0:
		return nil, fmt.Errorf("meanfield: beta = %v must be finite and > 0", opt.Beta)
	case bad(opt.Dt) || opt.Dt <= 0:
		return nil, fmt.Errorf("meanfield: dt = %v must be finite and > 0", opt.Dt)
	case bad(opt.Horizon) || opt.Horizon <= 0:
		return nil, fmt.Errorf("meanfield: horizon = %v must be finite and > 0", opt.Horizon)
	case bad(opt.Warmup) || opt.Warmup < 0 || opt.Warmup >= opt.Horizon:
		return nil, fmt.Errorf("meanfield: warmup = %v must be in [0, horizon = %v)", opt.Warmup, opt.Horizon)
	case opt.Horizon/opt.Dt > 1e10:
		return nil, fmt.Errorf("meanfield: horizon/dt = %g steps: must be at most 1e10", opt.Horizon/opt.Dt)
	case bad(opt.Init[0]) || opt.Init[0] > 0:
		return nil, fmt.Errorf("meanfield: init[0] = %v (Qbar_1) must be finite and <= 0", opt.Init[0])
	case bad(opt.Init[1]) || opt.Init[1] < 0:
		return nil, fmt.Errorf("meanfield: init[1] = %v (Qbar_2) must be finite and >= 0", opt.Init[1])
	case bad(opt.Grid) || opt.Grid < 0 || (opt.Grid > 0 && opt.Grid < opt.Dt):
		return nil, fmt.Errorf("meanfield: grid = %v must be 0 or at least dt = %v", opt.Grid, opt.Dt)
	case opt.Grid > 0 && opt.Horizon/opt.Grid > 1e7:
		return nil, fmt.Errorf("meanfield: horizon/grid = %g points: must be at most 1e7", opt.Horizon/opt.Grid)
	case opt.Scheme != SchemeProjection && opt.Scheme != SchemeBridge:
		return nil, fmt.Errorf("meanfield: scheme = %d: must be SchemeProjection (0) or SchemeBridge (1)", opt.Scheme)
	case opt.Scheme == SchemeBridge && unif == nil:
		return nil, fmt.Errorf("meanfield: the bridge scheme needs uniform variates")
	}
	h1, err := newHistogram("edges1", opt.Edges1)
	if err != nil {
		return nil, err
	}
	h2, err := newHistogram("edges2", opt.Edges2)
	if err != nil {
		return nil, err
	}

	dt, beta := opt.Dt, opt.Beta
	bridge := opt.Scheme == SchemeBridge
	sd := math.Sqrt(2 * dt)
	n := int(math.Round(opt.Horizon / dt))
	n0 := int(math.Round(opt.Warmup / dt))
	res := &DiffusionResult{Hist1: h1, Hist2: h2, Steps: n}
	x1, x2 := opt.Init[0], opt.Init[1]
	var s1, s2, q11, q22, q12, u float64
	nextGrid := 0.0
	for k := 0; k < n; k++ {
		t := float64(k) * dt
		if opt.Grid > 0 && t >= nextGrid-1e-9*dt {
			res.Times = append(res.Times, t)
			res.Path1 = append(res.Path1, x1)
			res.Path2 = append(res.Path2, x2)
			nextGrid = float64(len(res.Times)) * opt.Grid
		}
		if k >= n0 {
			s1 += x1
			s2 += x2
			q11 += x1 * x1
			q22 += x2 * x2
			q12 += x1 * x2
			h1.add(x1)
			h2.add(x2)
		}
		if k&0xffff == 0xffff {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		z := gauss()
		y1 := x1 + sd*z - (beta+x1-x2)*dt
		x2 -= x2 * dt
		push := y1 // the increase of U in this step, if positive
		if bridge {
			push = bridgeMax(x1, y1, dt, unif())
		}
		if push > 0 {
			if k >= n0 {
				u += push
			}
			x2 += push
			y1 -= push
		}
		x1 = y1
	}
	if opt.Grid > 0 && float64(n)*dt >= nextGrid-1e-9*dt {
		res.Times = append(res.Times, float64(n)*dt)
		res.Path1 = append(res.Path1, x1)
		res.Path2 = append(res.Path2, x2)
	}
	m := float64(n - n0)
	if m > 0 {
		res.Mean1, res.Mean2 = s1/m, s2/m
		res.Second1, res.Second2, res.Cross = q11/m, q22/m, q12/m
		res.ReflectionRate = u / (m * dt)
	}
	h1.finish(m)
	h2.finish(m)
	return res, nil
}

func newHistogram(name string, edges []float64) (*Histogram, error) {
	if len(edges) < 2 {
		return nil, nil
	}
	for i, e := range edges {
		if math.IsNaN(e) || math.IsInf(e, 0) || (i > 0 && e <= edges[i-1]) {
			return nil, fmt.Errorf("meanfield: %s[%d] = %v: the edges must be finite and strictly increasing", name, i, e)
		}
	}
	return &Histogram{Edges: slices.Clone(edges), Fraction: make([]float64, len(edges)-1)}, nil
}

func (h *Histogram) add(x float64) {
	if h == nil {
		return
	}
	e := h.Edges
	switch {
	case x < e[0]:
		h.Below++
	case x > e[len(e)-1]:
		h.Above++
	case x == e[len(e)-1]:
		h.Fraction[len(h.Fraction)-1]++
	default:
		k, found := slices.BinarySearch(e, x)
		if !found {
			k--
		}
		h.Fraction[k]++
	}
}

func (h *Histogram) finish(m float64) {
	if h == nil || m == 0 {
		return
	}
	for k := range h.Fraction {
		h.Fraction[k] /= m
	}
	h.Below /= m
	h.Above /= m
}
