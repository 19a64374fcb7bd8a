package mc

import (
	"runtime"
	"sync"
)

// MeanCI95Of is MeanCI95 of x(0), ..., x(n-1): the mean over n
// replications of a figure and its 95% half-width.
func MeanCI95Of(n int, x func(r int) float64) (mean, half float64) {
	xs := make([]float64, n)
	for r := range xs {
		xs[r] = x(r)
	}
	return MeanCI95(xs)
}

// VectorMeanCI95 is MeanCI95Of for each index of n vectors v(0), ...,
// v(n-1) of unequal lengths (missing entries count as 0).
func VectorMeanCI95(n int, v func(r int) []float64) (mean, half []float64) {
	k := 0
	for r := range n {
		k = max(k, len(v(r)))
	}
	mean, half = make([]float64, k), make([]float64, k)
	for i := range k {
		mean[i], half[i] = MeanCI95Of(n, func(r int) float64 {
			if xs := v(r); i < len(xs) {
				return xs[i]
			}
			return 0
		})
	}
	return mean, half
}

// Replicate runs run(r, tick) for the replications r = 0, ..., reps-1 on
// at most workers goroutines (0: GOMAXPROCS) and returns the first error
// by replication order. A replication reports its simulated time t through
// tick; if progress is not nil it is called with the fraction done,
// sum_r min(t_r/horizon, 1) / reps, from any goroutine. What the
// replications compute must depend on r alone (its stream Stream(seed, r)),
// so results do not depend on workers.
func Replicate(reps, workers int, horizon float64, progress func(fraction float64), run func(r int, tick func(t float64)) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, reps)
	errs := make([]error, reps)
	var mu sync.Mutex
	done := make([]float64, reps)
	report := func(r int, t float64) {
		if progress == nil {
			return
		}
		mu.Lock()
		done[r] = min(t/horizon, 1)
		sum := 0.0
		for _, x := range done {
			sum += x
		}
		mu.Unlock()
		progress(sum / float64(reps))
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				errs[r] = run(r, func(t float64) { report(r, t) })
			}
		}()
	}
	for r := range reps {
		next <- r
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
