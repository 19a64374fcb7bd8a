package lbsim

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// Run simulates sc: Replications independent replications, run in parallel,
// each from its own random stream Stream(Seed, r). The result depends only on
// the scenario (never on the number of cores or on scheduling), except for the
// wall-clock fields. Run stops early with ctx's error when ctx is cancelled.
func Run(ctx context.Context, sc Scenario) (*Result, error) {
	sc, err := sc.resolve()
	if err != nil {
		return nil, invalid(err)
	}
	p := choosePlan(&sc)
	engine, simulate := p.engine, p.run

	workers := sc.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, sc.Replications)
	if err := checkResources(&sc, p, workers); err != nil {
		return nil, err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prog := newProgressTracker(&sc)
	reps := make([]*replication, sc.Replications)
	errs := make([]error, sc.Replications)
	jobs := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				check := func(t float64) error {
					if err := ctx.Err(); err != nil {
						return err
					}
					prog.report(k, t)
					return nil
				}
				src := mc.Source(sc.Seed, uint64(k))
				reps[k], errs[k] = simulate(ctx, &sc, rand.New(src), src, check)
				if errs[k] != nil {
					cancel()
				} else {
					prog.finish(k)
				}
			}
		}()
	}
feed:
	for k := range sc.Replications {
		select {
		case jobs <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	wall := time.Since(start).Seconds()

	// Report the error of the first replication that failed for its own reason,
	// else the cancellation.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
	}
	for _, rep := range reps {
		if rep == nil {
			return nil, ctx.Err()
		}
	}
	res := summarize(&sc, engine, reps)
	if engine == EngineGeneral {
		summarizeGeneral(res, reps)
	}
	if res.Scenario.Warmup == 0 {
		res.Scenario.Warmup = NoWarmup // the Go form of "warmup": 0
	}
	res.Scenario.Progress = nil
	res.WallSeconds = wall
	if wall > 0 {
		res.EventsPerSecond = float64(res.Events) / wall
	}
	return res, nil
}

// progressTracker serialises progress reports from the replications.
type progressTracker struct {
	sc    *Scenario
	mu    sync.Mutex
	times []float64
	done  atomic.Int64
}

func newProgressTracker(sc *Scenario) *progressTracker {
	return &progressTracker{sc: sc, times: make([]float64, sc.Replications)}
}

func (p *progressTracker) report(k int, t float64) {
	if p.sc.Progress == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.times[k] = math.Min(t, p.sc.Horizon)
	total := 0.0
	for _, x := range p.times {
		total += x
	}
	p.sc.Progress(Progress{
		Replication:  k,
		Done:         int(p.done.Load()),
		Replications: p.sc.Replications,
		Time:         p.times[k],
		Horizon:      p.sc.Horizon,
		Fraction:     total / (p.sc.Horizon * float64(p.sc.Replications)),
	})
}

func (p *progressTracker) finish(k int) {
	p.done.Add(1)
	p.report(k, p.sc.Horizon)
}
