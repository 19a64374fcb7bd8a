package lbsim

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
)

// runOccupancy simulates one replication on the occupancy counts
// (C_1, C_2, ...) directly. For exchangeable policies with homogeneous rates
// this chain has the same law as the per-server one, and its cost per event
// does not depend on N: only the number of occupied levels.
func runOccupancy(ctx context.Context, sc *Scenario, r *rand.Rand, src *rand.PCG, check tick) (*replication, error) {
	policy, err := preparePolicy(sc)
	if err != nil {
		return nil, err
	}
	router := policy.(OccupancyRouter)
	n := int64(sc.Servers)
	mu := 1.0
	if sc.Rates != nil {
		mu = sc.Rates[0]
	}
	obs := newObserver(sc, 1)
	occ := &Occupancy{N: n, C: initialCounts(sc)}
	for i := 1; i+1 < len(occ.C); i++ {
		obs.change(i, 0, 0)
	}
	obs.maxLen = len(occ.C) - 2

	arr := sc.Lambda * float64(n)
	t := 0.0
	mark := obs.mark()
	counts := func(i int) int64 { return occ.Count(i) }
	var events int64
	// As in runServers: the inverse rate and the arrival cut change only
	// with C_1, and the engine's own draws come from src directly.
	rate, invRate, rateBusy := 0.0, 0.0, int64(-1)
	var cut fastrand.ArrivalCut
	for {
		if events&(checkEvery-1) == 0 {
			if err := check(t); err != nil {
				return nil, err
			}
		}
		busy := occ.C[1]
		if busy != rateBusy {
			rateBusy = busy
			rate = arr + mu*float64(busy)
			invRate = 1 / rate
			cut = fastrand.NewArrivalCut(arr / rate)
		}
		x := src.Uint64() // ziggurat from the low 40 bits, event kind from the top 24
		e, ok := fastrand.ExpFast(x)
		if !ok {
			e = fastrand.ExpSlow(src, x)
		}
		next := t + e*invRate
		if next >= mark {
			if obs.crossing(next, counts, len(occ.C)-2) {
				break
			}
			mark = obs.mark()
		}
		t = next
		events++
		if cut.Arrival(uint32(x>>40), src) {
			l := router.JoinLevel(occ, r)
			if l < 0 || l+1 >= len(occ.C) || occ.C[l] == occ.C[l+1] {
				return nil, fmt.Errorf("policy %s: JoinLevel returned %d, but no server has that length", policy.Name(), l)
			}
			obs.change(l+1, occ.C[l+1], t)
			occ.C[l+1]++
			if l+2 == len(occ.C) {
				occ.C = append(occ.C, 0)
			}
			obs.arrive(l, 0, mu)
			continue
		}
		// The departing server is uniform among the busy ones: rank k in the
		// order by decreasing length.
		l := levelOfRank(occ, int64(fastrand.Bounded64(src, uint64(busy))))
		obs.change(l, occ.C[l], t)
		occ.C[l]--
	}
	if err := check(sc.Horizon); err != nil {
		return nil, err
	}
	obs.tally([]float64{mu})
	return &replication{events: events, obs: obs, mus: []float64{mu}}, nil
}
