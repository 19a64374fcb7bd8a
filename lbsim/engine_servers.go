package lbsim

import (
	"context"
	"fmt"
	"math/rand/v2"
)

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
	mus    []float64 // service rate of each class in obs.seen
}

// tick is called by engines every checkEvery events with the simulated time.
type tick func(t float64) error

// runServers simulates one replication with every server's queue length: the
// Markov chain of the lengths, one event (arrival or departure) at a time.
func runServers(ctx context.Context, sc *Scenario, r *rand.Rand, check tick) (*replication, error) {
	sys := sc.system()
	policy := sc.Policy
	if p, ok := policy.(Preparer); ok {
		var err error
		if policy, err = p.Prepare(sys); err != nil {
			return nil, fmt.Errorf("policy %s: %w", sc.Policy.Name(), err)
		}
	}
	so, ok := policy.(ShortestOrderUser)
	s := newState(sys, ok && so.UsesShortestOrder())
	n := sc.Servers

	// Service rates: one rate for all (O(1) departures) or a Fenwick tree.
	mu, homogeneous := 1.0, true
	if sc.Rates != nil {
		mu = sc.Rates[0]
		for _, m := range sc.Rates {
			homogeneous = homogeneous && m == mu
		}
	}
	var busy *busyRates
	var class []int32
	mus := []float64{mu}
	if !homogeneous {
		busy = newBusyRates(sc.Rates)
		class, mus = rateClasses(sc.Rates)
	}
	obs := newObserver(sc, len(mus))

	// Initial state, before the clock starts.
	place := func(j, l int) {
		for range l {
			obs.change(s.add(j)+1, 0, 0)
		}
		if l > 0 && busy != nil {
			busy.setBusy(j)
		}
		obs.maxLen = max(obs.maxLen, l)
	}
	for j, l := range sc.InitLengths {
		place(j, l)
	}
	if sc.InitOccupancy != nil {
		// round(q_i N) servers get at least i tasks: the first ones in a
		// uniformly random order of the servers.
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

	var origins *aliasTable
	needOrigin := usesOrigin(policy)
	if needOrigin && sc.OriginWeights != nil {
		origins = newAliasTable(sc.OriginWeights)
	}

	arr := sc.Lambda * float64(n)
	t := 0.0
	mark := obs.mark()
	counts := func(i int) int64 { return int64(s.Count(i)) }
	var events int64
	rate, invRate, rateBusy := 0.0, 0.0, int32(-1)
	for {
		if events&(checkEvery-1) == 0 {
			if err := check(t); err != nil {
				return nil, err
			}
		}
		// The total event rate changes only when a server turns idle or busy,
		// so its inverse is recomputed only then.
		if s.cnt[1] != rateBusy || busy != nil {
			rateBusy = s.cnt[1]
			if busy == nil {
				rate = arr + mu*float64(rateBusy)
			} else {
				rate = arr + busy.rate()
			}
			invRate = 1 / rate
		}
		next := t + r.ExpFloat64()*invRate
		if next >= mark {
			if obs.crossing(next, counts, s.levels()) {
				break
			}
			mark = obs.mark()
		}
		t = next
		events++
		u := r.Float64() * rate
		if u < arr {
			origin := -1
			if needOrigin {
				if origins != nil {
					origin = origins.sample(r)
				} else {
					origin = int(r.Int32N(int32(n)))
				}
			}
			j := policy.Dispatch(s, origin, r)
			if uint(j) >= uint(n) {
				return nil, fmt.Errorf("policy %s: Dispatch returned server %d, want 0 <= server < %d", policy.Name(), j, n)
			}
			l := int(s.length[j])
			obs.change(l+1, int64(s.cnt[l+1]), t)
			s.add(j)
			c := 0
			rj := mu
			if busy != nil {
				if l == 0 {
					busy.setBusy(j)
				}
				c = int(class[j])
				rj = sc.Rates[j]
			}
			obs.arrive(l, c, rj)
			continue
		}
		var j int
		if busy == nil {
			k := int32((u - arr) / mu)
			if k >= s.cnt[1] { // rounding at the top of the range
				k = s.cnt[1] - 1
			}
			j = s.busyAt(k)
		} else {
			j = busy.sample(r)
		}
		l := int(s.length[j])
		obs.change(l, int64(s.cnt[l]), t)
		s.remove(j)
		if l == 1 && busy != nil {
			busy.setIdle(j)
		}
	}
	if err := check(sc.Horizon); err != nil {
		return nil, err
	}
	return &replication{events: events, obs: obs, mus: mus}, nil
}

// rateClasses numbers the distinct service rates (in order of first
// appearance). With more than maxRateClasses distinct rates it returns all
// servers in class 0 and no class rates, and sojourn quantiles are not tracked.
func rateClasses(rates []float64) ([]int32, []float64) {
	index := map[float64]int32{}
	class := make([]int32, len(rates))
	var mus []float64
	for j, mu := range rates {
		c, ok := index[mu]
		if !ok {
			if len(mus) == maxRateClasses {
				for k := range class {
					class[k] = 0
				}
				return class, nil
			}
			c = int32(len(mus))
			index[mu] = c
			mus = append(mus, mu)
		}
		class[j] = c
	}
	return class, mus
}
