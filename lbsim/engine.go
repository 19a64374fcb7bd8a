package lbsim

import (
	"fmt"
	"math/rand/v2"
)

// The scaffolding the engines (engine_servers.go, engine_occupancy.go,
// engine_uniformized.go, engine_general.go) share: what a replication
// returns, the progress tick, the initial state and the per-replication
// policy.

// checkEvery is how many events pass between checks for cancellation and
// progress reports (a power of two).
const checkEvery = 1 << 18

// maxRateClasses is the largest number of distinct service rates for which the
// sojourn-time distribution (and so its quantiles) is tracked.
const maxRateClasses = 256

// replication is the outcome of one replication of a scenario.
type replication struct {
	events int64
	obs    *observer
	mus    []float64     // service rate of each class in obs.seen
	gen    *generalStats // the general engine's sojourn measurements (nil elsewhere)
}

// tick is called by engines every checkEvery events with the simulated time.
type tick func(t float64) error

// placeInitial calls place(j, l) for the initial queue length l of each server
// j that starts non-empty: sc.InitLengths as given, or for sc.InitOccupancy
// round(q_i N) servers with at least i tasks, the first ones in a uniformly
// random order of the servers (drawn from r).
func placeInitial(sc *Scenario, r *rand.Rand, place func(j, l int)) {
	for j, l := range sc.InitLengths {
		place(j, l)
	}
	if sc.InitOccupancy == nil {
		return
	}
	n := sc.Servers
	counts := make([]int, len(sc.InitOccupancy))
	for i, q := range sc.InitOccupancy {
		counts[i] = int(q*float64(n) + 0.5)
	}
	order := make([]int32, n)
	for k := range order {
		order[k] = int32(k)
	}
	r.Shuffle(n, func(a, b int) { order[a], order[b] = order[b], order[a] })
	for k, j := range order {
		l := 0
		for l < len(counts) && k < counts[l] {
			l++
		}
		place(int(j), l)
	}
}

// initialCounts returns the occupancy counts (N, C_1, ..., 0) of sc's
// initial occupancy vector: round(q_i N) servers with at least i tasks.
func initialCounts(sc *Scenario) []int64 {
	n := int64(sc.Servers)
	c := make([]int64, 2, 64)
	c[0] = n
	for i, qi := range sc.InitOccupancy {
		ci := int64(qi*float64(n) + 0.5)
		if ci == 0 {
			break
		}
		c = append(c[:i+1], ci, 0)
	}
	return c
}

// preparePolicy returns the policy a replication dispatches with: the
// scenario's own, or the fresh value its Prepare returns.
func preparePolicy(sc *Scenario) (Policy, error) {
	p, ok := sc.Policy.(Preparer)
	if !ok {
		return sc.Policy, nil
	}
	policy, err := p.Prepare(sc.system())
	if err != nil {
		return nil, invalid(fmt.Errorf("policy %s: %w", sc.Policy.Name(), err))
	}
	return policy, nil
}
