package cavity

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/service"
)

// Options tune Predict. The zero value gives the defaults: the exact solver.
type Options struct {
	// Simulate selects the simulation-based solver (the independent
	// cross-check) in place of the exact one. Horizon, Replications, Damping,
	// Tol, Z, Average, Seed and Workers tune it; Kernel, Residual, Depth and
	// MaxLevels tune the exact solver; MaxIter bounds both.
	Simulate bool
	// Kernel is how the exact solver integrates against the service law
	// (default KernelAuto).
	Kernel Kernel
	// Residual is the exact solver's stopping rule: sup_n |T(u)_n - u_n| below
	// it (default 1e-12).
	Residual float64
	// Depth is the exact solver's truncation: the number of levels K grows
	// until u_K < Depth (default 1e-15) or K = MaxLevels.
	Depth float64
	// MaxLevels caps K (default 4096).
	MaxLevels int
	// Horizon is the simulated time of the single queue per iteration, summed
	// over the replications (default 4e6, about 7e6 events at lambda = 0.9).
	// Early iterations, far from the fixed point, use a shorter horizon (see
	// Predict).
	Horizon float64
	// Replications is the number of independent runs of the single queue per
	// iteration (default 8); their spread gives the standard errors.
	Replications int
	// Damping is a in u <- (1-a) u + a T(u) (default 0.8), in (0, 1].
	Damping float64
	// MaxIter bounds the iterations (simulation: before averaging, default
	// 100; exact: per truncation level, default 100000).
	MaxIter int
	// Tol truncates the tail: levels n with u_n < Tol are dropped (default 1e-6).
	Tol float64
	// Z is the stopping rule: iterate until |T(u)_n - u_n| <= Z SE_n + Tol at
	// every level (default 3).
	Z float64
	// Average is the number of iterations, after the stopping rule holds,
	// whose outputs T(u) are averaged into the prediction (default 8).
	Average int
	// Seed is the root seed: iteration k, replication r draws from
	// mc.Stream(Seed, k, r).
	Seed uint64
	// Workers is the number of replications simulated at once (default
	// GOMAXPROCS). The result does not depend on it.
	Workers int
}

// Prediction is the cavity fixed point.
type Prediction struct {
	// Method is "exact" or "simulation".
	Method string
	// U[n-1] = u_n = P(queue length >= n), n = 1..len(U): exact, down to the
	// truncation level K (or the last positive value); simulation, down to the
	// last level with u_n >= Tol. SE[n-1] is its standard error (0 for exact).
	U, SE []float64
	// Rates[n] = lambda_n, the arrival rate the tagged queue sees with n tasks
	// (n = 0..len(U)), computed from U.
	Rates []float64
	// Iterations counts all iterations (averaging ones included); Converged
	// says whether the stopping rule held before MaxIter.
	Iterations int
	Converged  bool
	// Change is the sup-norm residual |T(u) - u| of the last iteration.
	Change float64
	// Bias is the sup-norm of the mean residual over the averaged iterations:
	// how far, on average, the averaged input was from being a fixed point.
	Bias float64
	// Accuracy is the stated sup-norm accuracy of U: 3 max_n SE_n + Bias.
	// It covers the Monte Carlo error and the residual distance to the
	// fixed point, not the (unquantified) error of the ansatz itself at
	// finite N.
	Accuracy float64
	// MeanLength is sum_n u_n, the mean number of tasks at a queue.
	MeanLength float64
	// Events counts the simulated arrivals and departures.
	Events int64

	// The exact solver's error budget: Levels is the truncation K; Residual
	// the last sup|T(u) - u|; Contraction q the estimated rate of the
	// iteration; IterationError = Residual q/(1-q) bounds the distance of U
	// to the fixed point of the truncated, discretised map; Truncation is the
	// sup-norm change of U from the previous, smaller truncation level (an a
	// posteriori estimate of the truncation error); Quadrature the change of
	// T(U) under a finer discretisation of the kernel plus the probability
	// mass it leaves out, over 1-q. Accuracy is their sum.
	Levels                                                        int
	Residual, Contraction, IterationError, Truncation, Quadrature float64
}

func (o Options) withDefaults() (Options, error) {
	if !o.Simulate {
		if o.Residual == 0 {
			o.Residual = 1e-12
		}
		if o.Depth == 0 {
			o.Depth = 1e-15
		}
		if o.MaxLevels == 0 {
			o.MaxLevels = 4096
		}
		if o.MaxIter == 0 {
			o.MaxIter = 100000
		}
		return o, o.checkExact()
	}
	if o.Horizon == 0 {
		o.Horizon = 4e6
	}
	if o.Replications == 0 {
		o.Replications = 8
	}
	if o.Damping == 0 {
		o.Damping = 0.8
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	if o.Tol == 0 {
		o.Tol = 1e-6
	}
	if o.Z == 0 {
		o.Z = 3
	}
	if o.Average == 0 {
		o.Average = 8
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case !(o.Horizon > 0) || math.IsInf(o.Horizon, 0):
		return o, fmt.Errorf("cavity: horizon = %v: must be a finite time > 0", o.Horizon)
	case o.Replications < 2:
		return o, fmt.Errorf("cavity: replications = %d: must be at least 2 (for standard errors)", o.Replications)
	case !(o.Damping > 0 && o.Damping <= 1):
		return o, fmt.Errorf("cavity: damping = %v: must be in (0, 1]", o.Damping)
	case o.MaxIter < 1:
		return o, fmt.Errorf("cavity: max_iter = %d: must be at least 1", o.MaxIter)
	case !(o.Tol > 0 && o.Tol < 1):
		return o, fmt.Errorf("cavity: tol = %v: must be in (0, 1)", o.Tol)
	case !(o.Z > 0) || math.IsInf(o.Z, 0):
		return o, fmt.Errorf("cavity: z = %v: must be a finite number > 0", o.Z)
	case o.Average < 1:
		return o, fmt.Errorf("cavity: average = %d: must be at least 1", o.Average)
	}
	return o, nil
}

// InsensitivePrediction returns u_n = rho^((d^n-1)/(d-1)) (rho^n for d = 1),
// n = 1, 2, ... down to the last value >= tol, with rho = lambda*mean the
// load: the cavity fixed point for exponential service of that mean under any
// discipline, and for every service law under PS and LIFO-PR, whose
// stationary queue length with state-dependent Poisson arrivals depends on the
// service law only through its mean.
func InsensitivePrediction(rho float64, d int, tol float64) []float64 {
	if !(rho > 0 && rho < 1) || d < 1 || !(tol > 0) {
		return nil
	}
	var u []float64
	e := 1.0 // (d^n - 1)/(d - 1), i.e. 1 + d + ... + d^(n-1)
	p := 1.0 // d^(n-1)
	for n := 1; ; n++ {
		v := math.Pow(rho, e)
		if v < tol || len(u) > 1<<16 {
			return u
		}
		u = append(u, v)
		p *= float64(d)
		e += p
	}
}

// ArrivalRates returns lambda_n for n = 0..len(u), the arrival rate the
// ansatz gives a queue holding n tasks when the other queues have tail u
// (u[n-1] = u_n, u_0 = 1):
//
//	lambda_n = lambda (u_n^d - u_{n+1}^d) / (u_n - u_{n+1})
//	         = lambda sum_{k=0}^{d-1} u_n^k u_{n+1}^(d-1-k),
//
// the second form being the continuous extension where u_n = u_{n+1}. Beyond
// the last level, u is taken as 0.
func ArrivalRates(lambda float64, d int, u []float64) []float64 {
	at := func(n int) float64 {
		switch {
		case n == 0:
			return 1
		case n <= len(u):
			return u[n-1]
		}
		return 0
	}
	rates := make([]float64, len(u)+1)
	for n := range rates {
		a, b := at(n), at(n+1)
		s, pa := 0.0, 1.0
		for k := 0; k < d; k++ {
			s += pa * math.Pow(b, float64(d-1-k))
			pa *= a
		}
		rates[n] = lambda * s
	}
	return rates
}

// Predict computes the cavity (asymptotic-independence) prediction of the
// stationary queue-length tail u_n = P(L >= n) of the supermarket model with
// arrival rate lambda per server, JSQ(d) (d samples with replacement, ties
// uniform), FIFO servers of rate 1 and service requirements from dist: the
// fixed point of u -> tail of the single FIFO queue with arrival rate
// ArrivalRates(lambda, d, u)[n] in state n and service dist. By default it is
// computed exactly (no simulation); Options.Simulate selects the
// simulation-based solver. See the package documentation for the methods and
// their accuracy.
func Predict(ctx context.Context, lambda float64, d int, dist service.Distribution, opts Options) (*Prediction, error) {
	if dist == nil {
		return nil, fmt.Errorf("cavity: service distribution is nil")
	}
	if d < 1 || d > 1<<10 {
		return nil, fmt.Errorf("cavity: d = %d: must be between 1 and 1024", d)
	}
	mean := dist.Mean()
	rho := lambda * mean
	if !(lambda > 0) || !(rho < 1) || math.IsNaN(rho) {
		return nil, fmt.Errorf("cavity: lambda = %v: load lambda*E[S] = %v must be in (0, 1)", lambda, rho)
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if !o.Simulate {
		return exact(ctx, lambda, d, dist, o)
	}
	u := InsensitivePrediction(rho, d, o.Tol)
	pred := &Prediction{Method: "simulation"}
	// Horizon schedule: start at Horizon/64 and double each iteration. Far
	// from the fixed point the step is large next to the noise, so short runs
	// suffice; the stopping rule is only tested at the full horizon.
	h := o.Horizon / 64
	var sumOut, sumSE2, sumRes []float64
	averaged := 0
	for k := 0; ; k++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		full := h >= o.Horizon
		if full {
			h = o.Horizon
		}
		out, se, events, err := iterate(ctx, lambda, d, dist, u, h, o, uint64(k))
		if err != nil {
			return nil, err
		}
		pred.Events += events
		pred.Iterations = k + 1
		n := max(len(out), len(u))
		change, ok := 0.0, true
		for i := 0; i < n; i++ {
			diff := math.Abs(at(out, i) - at(u, i))
			change = math.Max(change, diff)
			if diff > o.Z*at(se, i)+o.Tol {
				ok = false
			}
		}
		pred.Change = change
		if averaged > 0 || (full && ok) || (full && k+1 >= o.MaxIter) {
			if averaged == 0 {
				pred.Converged = ok
			}
			sumOut, sumSE2, sumRes = grow(sumOut, n), grow(sumSE2, n), grow(sumRes, n)
			for i := 0; i < n; i++ {
				sumOut[i] += at(out, i)
				sumSE2[i] += at(se, i) * at(se, i)
				sumRes[i] += at(out, i) - at(u, i)
			}
			averaged++
		}
		// Damped update.
		next := make([]float64, n)
		for i := range next {
			next[i] = (1-o.Damping)*at(u, i) + o.Damping*at(out, i)
		}
		u = trim(next, o.Tol)
		if averaged == o.Average {
			break
		}
		if !full {
			h *= 2
		}
	}
	m := float64(averaged)
	maxSE := 0.0
	for i := range sumOut {
		sumOut[i] /= m
		sumSE2[i] = math.Sqrt(sumSE2[i]/m) / math.Sqrt(m)
		maxSE = math.Max(maxSE, sumSE2[i])
		pred.Bias = math.Max(pred.Bias, math.Abs(sumRes[i]/m))
	}
	pred.U = trim(sumOut, o.Tol)
	pred.SE = sumSE2[:len(pred.U)]
	pred.Rates = ArrivalRates(lambda, d, pred.U)
	pred.Accuracy = 3*maxSE + pred.Bias
	for _, v := range pred.U {
		pred.MeanLength += v
	}
	return pred, nil
}

func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return 0
}

func grow(x []float64, n int) []float64 {
	for len(x) < n {
		x = append(x, 0)
	}
	return x
}

// trim drops the levels below tol (u is non-increasing).
func trim(u []float64, tol float64) []float64 {
	n := len(u)
	for n > 0 && !(u[n-1] >= tol) {
		n--
	}
	return u[:n]
}

// iterate applies the map once: it simulates o.Replications independent
// copies of the single queue with the rates of u, each for horizon/R time
// units after a warmup of a tenth of that, and returns the mean of their
// time-average tails and its standard error.
func iterate(ctx context.Context, lambda float64, d int, dist service.Distribution, u []float64,
	horizon float64, o Options, k uint64) (tail, se []float64, events int64, err error) {
	rates := ArrivalRates(lambda, d, u)
	// Beyond the last level the rate stays at lambda_K (u_K^(d-1) lambda),
	// an over-estimate that keeps the queue from being capped.
	R := o.Replications
	tails := make([][]float64, R)
	evs := make([]int64, R)
	errs := make([]error, R)
	per := horizon / float64(R)
	var wg sync.WaitGroup
	sem := make(chan struct{}, o.Workers)
	for r := 0; r < R; r++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(r int) {
			defer wg.Done()
			defer func() { <-sem }()
			rng := mc.Stream(o.Seed, k, uint64(r))
			tails[r], evs[r], errs[r] = simulateQueue(ctx, rates, dist, u, per/10, per, rng)
		}(r)
	}
	wg.Wait()
	for r := 0; r < R; r++ {
		if errs[r] != nil {
			return nil, nil, 0, errs[r]
		}
		events += evs[r]
	}
	n := 0
	for _, t := range tails {
		n = max(n, len(t))
	}
	tail, se = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		s, s2 := 0.0, 0.0
		for _, t := range tails {
			v := at(t, i)
			s += v
			s2 += v * v
		}
		m := s / float64(R)
		tail[i] = m
		v := (s2 - float64(R)*m*m) / float64(R-1)
		se[i] = math.Sqrt(math.Max(v, 0) / float64(R))
	}
	return tail, se, events, nil
}

// simulateQueue runs the single FIFO queue with arrival rate rates[min(n,
// len(rates)-1)] in state n and service times from dist, from a length drawn
// from the tail u (the current guess, so the warmup is short), for warmup +
// length time units, and returns the time-average tail P(L >= n), n >= 1,
// over [warmup, warmup+length].
//
// Arrivals are exact: the rate changes only at events, so the time to the next
// arrival is exponential with the current rate, redrawn after every event
// (memorylessness). Under FIFO the requirement of the task entering service
// is independent of everything before, so it is drawn when service starts;
// the state is the length n and the residual service time of the head.
func simulateQueue(ctx context.Context, rates []float64, dist service.Distribution, u []float64,
	warmup, length float64, r *rand.Rand) ([]float64, int64, error) {
	last := len(rates) - 1
	n := 0
	x := r.Float64()
	for n < len(u) && x < u[n] {
		n++
	}
	res := 0.0 // residual service of the head
	if n > 0 {
		res = dist.Sample(r)
	}
	occ := make([]float64, 16)
	t, end := 0.0, warmup+length
	var events int64
	for t < end {
		if events&(1<<20-1) == 0 && events > 0 {
			if err := ctx.Err(); err != nil {
				return nil, events, err
			}
		}
		events++
		rate := rates[min(n, last)]
		ta := math.Inf(1)
		if rate > 0 {
			ta = r.ExpFloat64() / rate
		}
		dt := ta
		dep := n > 0 && res <= ta
		if dep {
			dt = res
		}
		// Accumulate the time in state n inside [warmup, end].
		if t+dt > warmup {
			a, b := math.Max(t, warmup), math.Min(t+dt, end)
			if b > a {
				if n >= len(occ) {
					occ = append(occ, make([]float64, n+1-len(occ))...)
				}
				occ[n] += b - a
			}
		}
		t += dt
		if dep {
			n--
			if n > 0 {
				res = dist.Sample(r)
			} else {
				res = 0
			}
		} else {
			if n > 0 {
				res -= ta
			} else {
				res = dist.Sample(r)
			}
			n++
		}
	}
	// Tail from the occupation times.
	top := len(occ) - 1
	for top > 0 && occ[top] == 0 {
		top--
	}
	tail := make([]float64, top)
	acc := 0.0
	for i := top; i >= 1; i-- {
		acc += occ[i]
		tail[i-1] = acc / length
	}
	return tail, events, nil
}
