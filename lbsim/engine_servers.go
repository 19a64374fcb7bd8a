package lbsim

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/internal/alias"
	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
	"github.com/lbsim/notebooks/lbsim/internal/fenwick"
)

// runServers simulates one replication with every server's queue length: the
// Markov chain of the lengths, one event (arrival or departure) at a time.
// (JSQ(2) with equal service rates on at most 2^20 servers runs instead the
// uniformized chain on the lengths, runServersUniform: see choosePlan.)
//
// r is the replication's stream and src the PCG it is built on: policies draw
// from r, and the engine draws its own numbers (event times and types, the
// departing server, JSQ(2)'s pair) from src directly, which inlines and saves
// an interface call per draw. Both advance the same generator, so a run is
// still a deterministic function of the seed.
func runServers(ctx context.Context, sc *Scenario, r *rand.Rand, src *rand.PCG, check tick) (*replication, error) {
	sys := sc.system()
	policy, err := preparePolicy(sc)
	if err != nil {
		return nil, err
	}
	s := newPolicyState(sys, policy)
	uses := NeedsOf(policy)
	n := sc.Servers

	// Service rates: one rate for all (O(1) departures) or a Fenwick tree.
	mu, homogeneous := commonRate(sc.Rates)
	var busy *fenwick.BusyRates
	var class []int32
	mus := []float64{mu}
	if !homogeneous {
		busy = fenwick.New(sc.Rates)
		class, mus = rateClasses(sc.Rates)
	}
	obs := newObserver(sc, len(mus))

	// Initial state, before the clock starts. The two-bucket list is rebuilt
	// afterwards if needed, in one sequential pass, rather than kept up to date
	// by scattered swaps (unless the order is full).
	if !s.full {
		s.listed = false
	}
	place := func(j, l int) {
		for range l {
			obs.change(s.add(j)+1, 0, 0)
		}
		if l > 0 && busy != nil {
			busy.SetBusy(j)
		}
		obs.maxLen = max(obs.maxLen, l)
	}
	placeInitial(sc, r, place)
	// Homogeneous departures need the busy list only when few servers are
	// busy (see the departure below); heterogeneous ones use the Fenwick tree.
	if !s.listed && busy == nil && 2*int(s.cnt[1]) <= n {
		s.relist()
	}

	var origins *alias.Table
	needOrigin := uses.Origin
	if needOrigin && sc.OriginWeights != nil {
		origins = alias.New(sc.OriginWeights)
	}
	// Origins are drawn one arrival ahead: they are independent of everything
	// else, so this does not change the law of the chain, and a policy that
	// reads a long list per origin (neighbour-jsq) gets the next one's start
	// prefetched while the current arrival is dispatched.
	drawOrigin := func() int {
		if origins != nil {
			return origins.Sample(r)
		}
		return int(r.Int32N(int32(n)))
	}
	pf, _ := policy.(originPrefetcher)
	nextOrigin := -1
	if needOrigin {
		nextOrigin = drawOrigin()
	}
	// JSQ(2) and JSQ(3) with replacement, JSQ(2) without, and two local
	// choices with uniform origins have their own loop with homogeneous
	// rates (loopArrivals), and JSQ is dispatched inline: the same law as
	// their Dispatch, without the interface calls, and with the engine's own
	// draws.
	kind, fast := arrivalLoop(uses.inline, n)
	fast = fast && busy == nil && origins == nil
	jsqAll := uses.inline.kind == joinShortest
	length := s.length
	var arrivals *aheadArrivals
	if fast {
		arrivals = newAheadArrivals(src, length, kind, uses.inline.graph)
	}
	ahead := newAheadDraws(src, length, false)

	arr := sc.Lambda * float64(n)
	t := 0.0
	mark := obs.mark()
	counts := func(i int) int64 { return int64(s.Count(i)) }
	var events int64
	if fast {
		var err error
		if events, err = loopArrivals(s, obs, src, arrivals, ahead, arr, mu, check); err != nil {
			return nil, err
		}
		if err := check(sc.Horizon); err != nil {
			return nil, err
		}
		obs.tally(mus)
		return &replication{events: events, obs: obs, mus: mus}, nil
	}
	rate, invRate, rateBusy := 0.0, 0.0, int32(-1)
	var cut fastrand.ArrivalCut
	checkMask := uses.checkMask()
	for {
		if events&checkMask == 0 {
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
				rate = arr + busy.Rate()
			}
			invRate = 1 / rate
			cut = fastrand.NewArrivalCut(arr / rate)
		}
		// Exponential holding time by the ziggurat (fastrand.ExpFast, which
		// inlines, and ExpSlow). It uses the low 40 bits of x; the top 24
		// decide the kind of event (fastrand.ArrivalCut).
		x := src.Uint64()
		e, ok := fastrand.ExpFast(x)
		if !ok {
			e = fastrand.ExpSlow(src, x)
		}
		next := t + e*invRate
		if next >= mark {
			if obs.crossing(next, counts, s.levels()) {
				break
			}
			mark = obs.mark()
		}
		t = next
		events++
		if cut.Arrival(uint32(x>>40), src) {
			var j int
			if jsqAll {
				// joinShortest (RandomShortest in full order) from src.
				m := length[s.perm[0]]
				j = int(s.perm[fastrand.Bounded32(src, uint32(src.Uint64()), uint32(s.start[m+1]))])
			} else {
				origin := nextOrigin
				if needOrigin {
					nextOrigin = drawOrigin()
					if pf != nil {
						pf.prefetchOrigin(nextOrigin)
					}
				}
				j = policy.Dispatch(s, origin, r)
				if uint(j) >= uint(n) {
					return nil, fmt.Errorf("policy %s: Dispatch returned server %d, want 0 <= server < %d", policy.Name(), j, n)
				}
			}
			l := length[j]
			obs.change(int(l)+1, int64(s.cnt[l+1]), t)
			if l == 0 && s.tracksIdle() || s.full || int(l)+2 == len(s.cnt) {
				s.add(j)
				if l == 0 && busy == nil && 2*int(s.cnt[1]) > n {
					s.unlist() // rejection now finds a busy server in < 2 tries
				}
			} else { // the common case of s.add(j)
				s.cnt[l+1]++
				length[j] = l + 1
			}
			c := 0
			rj := mu
			if busy != nil {
				if l == 0 {
					busy.SetBusy(j)
				}
				c = int(class[j])
				rj = sc.Rates[j]
			}
			obs.arrive(int(l), c, rj)
			continue
		}

		// A departure from a uniformly random busy server (homogeneous rates).
		// When at least half of the servers are busy, draw uniform servers
		// until one is busy: each candidate costs one read of length (which
		// was prefetched, see aheadDraws) where the busy list costs two
		// scattered reads, and the first busy candidate is exactly uniform
		// among busy servers. Otherwise the list is up to date (the list is
		// dropped only above half busy and rebuilt below a quarter, so
		// rejection never needs more than 4 tries on average) and gives one
		// in a single draw.
		var j int
		switch {
		case busy != nil:
			j = busy.Sample(r)
		case s.listed && 2*int(s.cnt[1]) < n:
			x := src.Uint64()
			j = int(s.perm[int(s.start[1])+int(fastrand.Bounded32(src, uint32(x), uint32(s.cnt[1])))])
		default:
			for {
				// ahead.one(), written out so that it inlines.
				if ahead.si%lookahead == 0 {
					ahead.refillSingle()
				}
				j = int(ahead.single[ahead.si%(2*lookahead)])
				ahead.si++
				if length[j] > 0 {
					break
				}
			}
		}
		l := length[j]
		obs.change(int(l), int64(s.cnt[l]), t)
		if l == 1 && s.tracksIdle() || s.full {
			s.remove(j)
		} else { // the common case of s.remove(j)
			s.cnt[l]--
			length[j] = l - 1
		}
		if l == 1 {
			if busy != nil {
				busy.SetIdle(j)
			} else if !s.listed && 4*int(s.cnt[1]) < n {
				// Rejection would take more than 4 tries: rebuild the list.
				// Since it was dropped at least n/4 departures ago, this costs
				// O(1) per event amortised.
				s.relist()
			}
		}
	}
	if err := check(sc.Horizon); err != nil {
		return nil, err
	}
	obs.tally(mus)
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

// arrivalLoop reports whether the inline rule of a prepared policy on n
// servers has a fast loop and how it samples: the shortest of two uniform
// servers without replacement, of two or three with replacement, two local
// choices (localPair).
func arrivalLoop(rule inlineRule, n int) (arrivalKind, bool) {
	switch rule.kind {
	case sampleShortest:
		switch {
		case rule.d == 2 && !rule.with && n >= 2:
			return twoWithout, true
		case rule.d == 2 && rule.with:
			return twoWith, true
		case rule.d == 3 && rule.with:
			return threeWith, true
		}
	case localPair:
		return localTwo, true
	}
	return 0, false
}

// rateCache is the number of entries of loopArrivals's cache of rates: the
// number of busy servers stays within a few standard deviations (O(sqrt N))
// of its mean, so at N = 10^6 the entries are reused.
const rateCache = 1024

// loopArrivals is the event loop of runServers specialised to homogeneous
// rates mu and the policies of arrivalLoop: the same steps, minus the
// branches for other policies and rates, with the candidates of each arrival
// drawn ahead (aheadArrivals) and compared inline. Without the other cases
// the loop's variables fit in registers, which is worth about 10% at every N.
func loopArrivals(s *State, obs *observer, src *rand.PCG, arrivals *aheadArrivals, ahead *aheadDraws, arr, mu float64, check tick) (int64, error) {
	length := s.length
	n := len(length)
	t := 0.0
	mark := obs.mark()
	counts := func(i int) int64 { return int64(s.Count(i)) }
	var events int64
	// The inverse total rate and the arrival cut depend on the number of busy
	// servers only, which changes on about a fifth of the events at random:
	// they are kept in a direct-mapped cache indexed by that number (the same
	// numbers as computed at each change), so that an event reads them
	// without a mispredicted branch and a change costs no division.
	var rates [rateCache]struct {
		busy int32
		inv  float64
		cut  fastrand.ArrivalCut
	}
	for i := range rates {
		rates[i].busy = -1
	}
	for {
		if events&(checkEvery-1) == 0 {
			if err := check(t); err != nil {
				return 0, err
			}
		}
		b := s.cnt[1]
		r := &rates[uint32(b)%rateCache]
		if r.busy != b {
			rate := arr + mu*float64(b)
			r.busy, r.inv, r.cut = b, 1/rate, fastrand.NewArrivalCut(arr/rate)
		}
		invRate, cut := r.inv, r.cut
		x := src.Uint64() // ziggurat and arrival cut, as in runServers
		e, ok := fastrand.ExpFast(x)
		if !ok {
			e = fastrand.ExpSlow(src, x)
		}
		next := t + e*invRate
		if next >= mark {
			if obs.crossing(next, counts, s.levels()) {
				break
			}
			mark = obs.mark()
		}
		t = next
		events++
		if cut.Arrival(uint32(x>>40), src) {
			// arrivals.next(), written out so that it inlines.
			if arrivals.used%lookahead == 0 {
				arrivals.advance()
			}
			c := arrivals.ring[arrivals.used%arrivalRing]
			arrivals.used++
			// b if it is shorter than a, or as short with the tie bit set
			// (l - lb + tie > 0), then c if shorter still: comparisons
			// the compiler turns into conditional moves, since the
			// outcomes are random and branches would be mispredicted.
			j, l := c.a, length[c.a]
			if lb := length[c.b]; l-lb+int32(c.tie) > 0 {
				j, l = c.b, lb
			}
			if lc := length[c.c]; lc < l {
				j, l = c.c, lc
			}
			obs.change(int(l)+1, int64(s.cnt[l+1]), t)
			if l == 0 && s.listed || int(l)+2 == len(s.cnt) {
				s.add(int(j))
				if l == 0 && 2*int(s.cnt[1]) > n {
					s.unlist()
				}
			} else { // the common case of s.add(j)
				s.cnt[l+1]++
				length[j] = l + 1
			}
			obs.arrive(int(l), 0, mu)
			continue
		}
		var j int // the departing server, as in runServers
		if s.listed && 2*int(s.cnt[1]) < n {
			x := src.Uint64()
			j = int(s.perm[int(s.start[1])+int(fastrand.Bounded32(src, uint32(x), uint32(s.cnt[1])))])
		} else {
			for {
				if ahead.si%lookahead == 0 {
					ahead.refillSingle()
				}
				j = int(ahead.single[ahead.si%(2*lookahead)])
				ahead.si++
				if length[j] > 0 {
					break
				}
			}
		}
		l := length[j]
		obs.change(int(l), int64(s.cnt[l]), t)
		if l == 1 && s.listed {
			s.remove(j)
		} else { // the common case of s.remove(j)
			s.cnt[l]--
			length[j] = l - 1
		}
		if l == 1 && !s.listed && 4*int(s.cnt[1]) < n {
			s.relist()
		}
	}
	return events, nil
}
