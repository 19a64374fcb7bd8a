package mc

import (
	"runtime"
	"sync"
)

// Replicate runs run(r, tick) for the replications r = 0..reps-1 on at most
// workers goroutines at once (0: GOMAXPROCS) and returns the error of the
// first failed replication in replication order, or nil. A replication
// reports the fraction of it done through tick; progress, if not nil,
// receives the mean fraction over all replications, from any goroutine.
// Which goroutine runs a replication does not matter to a run that draws
// from Stream(seed, r), so results do not depend on workers.
func Replicate(reps, workers int, progress func(float64), run func(r int, tick func(fraction float64)) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, reps)
	errs := make([]error, reps)
	var mu sync.Mutex
	done := make([]float64, reps)
	report := func(r int, f float64) {
		if progress == nil {
			return
		}
		mu.Lock()
		done[r] = min(f, 1)
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
				errs[r] = run(r, func(f float64) { report(r, f) })
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
