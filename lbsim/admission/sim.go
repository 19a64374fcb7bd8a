package admission

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// SimOptions configures Simulate.
type SimOptions struct {
	System    System
	Revenue   Revenue
	Threshold int // tau: admit iff fewer than s + tau tasks are present
	// Horizon is the simulated time of a replication, Warmup the time
	// discarded at its start (0 <= Warmup < Horizon).
	Horizon, Warmup float64
	// Replication r draws from mc.Stream(Seed, r).
	Replications int
	Seed         uint64
	// Workers bounds the replications run at once (0: all cores).
	Workers int
	// Progress, if not nil, is called with the fraction of replications
	// done.
	Progress func(fraction float64)
}

// SimResult is the time-average revenue rate over replications.
type SimResult struct {
	Replications int   `json:"replications"`
	Events       int64 `json:"events"`
	// Revenue is the mean over replications of the time-average revenue
	// rate, Revenue95 its 95% half-width (NaN for one replication).
	Revenue        float64   `json:"revenue"`
	RevenueCI95    float64   `json:"-"`
	PerReplication []float64 `json:"per_replication"`
}

// Simulate runs the controlled M/M/s under the threshold policy as a
// discrete-event simulation: from state k the next event comes after an
// exponential time of rate lambda + min(k, s); it is an arrival with
// probability lambda/(lambda + min(k, s)), admitted iff k < s + tau, and
// otherwise a departure. Each replication starts from k = min(s + tau,
// round(lambda)) and averages r((k-s)/sqrt(s)) over [Warmup, Horizon].
func Simulate(ctx context.Context, o SimOptions) (*SimResult, error) {
	if err := o.System.Check(); err != nil {
		return nil, err
	}
	if o.Revenue == nil {
		return nil, errors.New("revenue: nil")
	}
	if o.Threshold < 0 {
		return nil, fmt.Errorf("threshold = %d: must be >= 0", o.Threshold)
	}
	if !(o.Horizon > 0) || math.IsInf(o.Horizon, 0) || !(o.Warmup >= 0) || o.Warmup >= o.Horizon {
		return nil, fmt.Errorf("horizon = %v, warmup = %v: want 0 <= warmup < horizon < ∞", o.Horizon, o.Warmup)
	}
	if o.Replications < 1 {
		return nil, fmt.Errorf("replications = %d: must be at least 1", o.Replications)
	}
	s := o.System.Servers
	top := s + o.Threshold
	rk := make([]float64, top+1)
	for k := range rk {
		rk[k] = o.Revenue.At(float64(k-s) / math.Sqrt(float64(s)))
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := &SimResult{Replications: o.Replications, PerReplication: make([]float64, o.Replications)}
	events := make([]int64, o.Replications)
	errs := make([]error, o.Replications)
	var mu sync.Mutex
	done := 0
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for rep := range o.Replications {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res.PerReplication[rep], events[rep], errs[rep] = replicate(ctx, o, rk, uint64(rep))
			if o.Progress != nil {
				mu.Lock()
				done++
				o.Progress(float64(done) / float64(o.Replications))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for rep, err := range errs {
		if err != nil {
			return nil, err
		}
		res.Events += events[rep]
	}
	res.Revenue, res.RevenueCI95 = mc.MeanCI95(res.PerReplication)
	return res, nil
}

// replicate runs one replication: a plain loop over the state k.
func replicate(ctx context.Context, o SimOptions, rk []float64, rep uint64) (float64, int64, error) {
	rng := mc.Stream(o.Seed, rep)
	s, lambda := o.System.Servers, o.System.Lambda()
	top := len(rk) - 1
	k := min(top, int(math.Round(lambda)))
	t, sum := 0.0, 0.0
	var n int64
	for {
		busy := float64(min(k, s))
		rate := lambda + busy
		next := t + rng.ExpFloat64()/rate
		if a, b := math.Max(t, o.Warmup), math.Min(next, o.Horizon); b > a {
			sum += rk[k] * (b - a)
		}
		if next >= o.Horizon {
			break
		}
		t = next
		n++
		if rng.Float64()*rate < lambda {
			if k < top {
				k++
			}
		} else {
			k--
		}
		if n&0xffff == 0 && ctx.Err() != nil {
			return 0, n, ctx.Err()
		}
	}
	return sum / (o.Horizon - o.Warmup), n, nil
}
