package lbsim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/internal/alias"
	"github.com/lbsim/notebooks/lbsim/internal/eventheap"
	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
	"github.com/lbsim/notebooks/lbsim/service"
)

// Discipline is the order in which a server serves the tasks present at it.
type Discipline string

const (
	// FIFO serves tasks one at a time in order of arrival (the default).
	FIFO Discipline = "fifo"
	// PS (processor sharing) serves all n tasks present at once, each at rate mu_j/n.
	PS Discipline = "ps"
	// LIFOPR (last in, first out, preemptive resume) serves the task that
	// arrived last; an arrival interrupts the task in service, which later
	// resumes where it stopped.
	LIFOPR Discipline = "lifo-pr"
)

// generalStats holds what the general engine measures beyond the observer:
// the actual sojourn times of the counted tasks.
type generalStats struct {
	hist  sojournHist
	sum   float64 // sum of the sojourn times of the counted tasks that left
	count int64   // how many left (all counted tasks, unless the drain was cut short)
}

func (g *generalStats) record(x float64) {
	g.sum += x
	g.count++
	g.hist.add(x)
}

// gsrv is one server of the general engine, 64 bytes (one cache line: the
// array is large, so page-aligned). It holds the server's tasks:
//   - FIFO: a ring of their departure times (one float64 per task, head at
//     head, length State.length[j]): in a, while the server holds at most 4
//     tasks, else in q (capacity a power of two), until the server empties;
//   - PS: in q, a min-heap of (finishing virtual time, arrival time) pairs;
//     a[0] is the virtual time v (the service each present task has received
//     since the busy period began, in units of work) and a[1] the time v was
//     brought up to date;
//   - LIFOPR: in q, a stack of (remaining work, arrival time) pairs, top last;
//     a[1] is the time the top task (re)started service.
type gsrv struct {
	a    [4]float64
	q    []float64
	head int32
	big  bool // FIFO: the ring is in q
}

// runGeneral simulates one replication with general service requirements and
// a service discipline, event by event.
//
// Arrivals are Poisson of rate lambda*N and dispatched by the policy on the
// same State as the other engines (queue length = tasks present at a server),
// so every policy runs unchanged. Each arriving task draws its requirement S
// from Scenario.Service (one Sample from the replication's stream) and needs
// S/mu_j time units of service at server j. The next completion of every busy
// server sits in an indexed binary min-heap (eventheap.Heap), so an event costs
// O(log N) plus, under PS, O(log n_j) for the server's own task heap; nothing
// allocates once the per-server buffers have grown to the largest queue.
//
//   - FIFO: a task's departure time is fixed when it arrives (the work ahead
//     of it never changes), D = max(t, D_prev) + S/mu_j, and the server keeps
//     a ring of the departure times of its tasks. The head's is the server's
//     next completion.
//   - PS: each of the n_j tasks present receives service at rate mu_j/n_j, so
//     the server's virtual time v (service received by every present task)
//     grows at rate mu_j/n_j, and a task arriving at virtual time v leaves
//     when v reaches v + S. The server keeps a min-heap of these finishing
//     virtual times, so an arrival costs O(log n_j) and does not touch the
//     other tasks; its next completion is at t + (min F - v) n_j / mu_j.
//   - LIFOPR: a stack of (remaining work, arrival time); the top is served,
//     an arrival preempts it.
//
// Measurements are those of the Markov engines (occupancy averages, grid,
// wait probability, largest queue), except the sojourn times, which are the
// actual times in system of the tasks that arrive in (warmup, horizon]. Under
// FIFO a task's sojourn is known when it arrives. Under PS and LIFOPR it is
// known when the task leaves; so that long tasks are not dropped (which would
// bias the mean and the upper quantiles down), the engine keeps simulating
// after the horizon, arrivals included but nothing else measured, until all
// counted tasks have left. That drain is cut at another (horizon - warmup)
// time units, which only an overloaded system (AllowUnstable) reaches; the
// tasks still present then are left out of the sojourn figures.
func runGeneral(ctx context.Context, sc *Scenario, r *rand.Rand, src *rand.PCG, check tick) (*replication, error) {
	sys := sc.system()
	policy, err := preparePolicy(sc)
	if err != nil {
		return nil, err
	}
	s := newPolicyState(sys, policy)
	if !s.full {
		// No engine step needs the idle list; RandomIdle builds it (and keeps
		// it) for policies that use it.
		s.listed = false
	}
	n := sc.Servers
	dist := sc.Service
	if dist == nil {
		dist, _ = service.Exponential(1)
	}
	var rates []float64 // nil: all servers have rate mu
	mu, homogeneous := commonRate(sc.Rates)
	if !homogeneous {
		rates = sc.Rates
	}
	uses := NeedsOf(policy)
	if uses.Workload {
		s.ends = make([]float64, n)
	}
	g := &genEngine{
		s:    s,
		srv:  make([]gsrv, n),
		h:    eventheap.New(n, sc.Discipline != FIFO),
		dist: dist,
		r:    r,
		rate: rates,
		mu:   mu,
		st:   &generalStats{},
	}
	obs := newObserver(sc, 0)
	watch, _ := policy.(departureWatcher) // a Tagger's replication, or nil
	arrive, depart := g.arriveFIFO, g.departFIFO
	switch sc.Discipline {
	case PS:
		arrive, depart = g.arrivePS, g.departPS
	case LIFOPR:
		arrive, depart = g.arriveLIFO, g.departLIFO
	}

	// Initial tasks (not counted in the sojourn figures) arrive at time 0.
	place := func(j, l int) {
		for range l {
			obs.change(s.add(j)+1, 0, 0)
			arrive(j, 0, false)
		}
		obs.maxLen = max(obs.maxLen, l)
	}
	placeInitial(sc, r, place)

	var origins *alias.Table
	needOrigin := uses.Origin
	if needOrigin && sc.OriginWeights != nil {
		origins = alias.New(sc.OriginWeights)
	}
	// JSQ(2) without replacement is dispatched inline from pairs drawn
	// ahead, as in runServers, whose queue lengths and servers are prefetched
	// (the same law as the policy's Dispatch).
	jsq2 := uses.inline.kind == sampleShortest && uses.inline.d == 2 && !uses.inline.with && n >= 2
	var ahead *aheadDraws
	if jsq2 {
		ahead = newAheadDraws(src, s.length, true)
	}
	invArr := 1 / (sc.Lambda * float64(n))
	length := s.length
	t := 0.0
	tA := fastrand.ExpFloat64(src) * invArr // next arrival
	mark := obs.mark()
	counts := func(i int) int64 { return int64(s.Count(i)) }
	var events int64
	draining, drainEnd := false, math.Inf(1)
	checkMask := uses.checkMask()
	for {
		if events&checkMask == 0 {
			if err := check(t); err != nil {
				return nil, err
			}
		}
		next, departure := tA, false
		if g.h.Len() > 0 {
			if _, key := g.h.Top(); key < tA {
				next, departure = key, true
			}
		}
		if next >= mark && !draining {
			if obs.crossing(next, counts, s.levels()) {
				if g.pending == 0 {
					break
				}
				draining, drainEnd = true, sc.Horizon+(sc.Horizon-sc.Warmup)
			} else {
				mark = obs.mark()
			}
		}
		if draining && (g.pending == 0 || next > drainEnd) {
			break
		}
		t = next
		events++
		if !departure {
			tA = t + fastrand.ExpFloat64(src)*invArr
			var j int
			if jsq2 {
				if ahead.pi%lookahead == 0 {
					ahead.refillPairs()
					from := (ahead.pi + lookahead) % (2 * lookahead)
					for _, v := range ahead.pairs[from : from+lookahead] {
						prefetch(&g.srv[uint32(v)].head)
						prefetch(&g.srv[v>>32].head)
					}
				}
				v := ahead.pairs[ahead.pi%(2*lookahead)]
				ahead.pi++
				a, b := int(uint32(v)), int(v>>32)
				j = a
				if length[b] < length[a] {
					j = b
				}
			} else {
				origin := -1
				if needOrigin {
					if origins != nil {
						origin = origins.Sample(r)
					} else {
						origin = int(r.Int32N(int32(n)))
					}
				}
				s.now = t
				j = policy.Dispatch(s, origin, r)
				if uint(j) >= uint(n) {
					return nil, fmt.Errorf("policy %s: Dispatch returned server %d, want 0 <= server < %d", policy.Name(), j, n)
				}
			}
			l := length[j]
			counted := false
			if !draining {
				obs.change(int(l)+1, int64(s.cnt[l+1]), t)
				if int(l) >= obs.maxLen {
					obs.maxLen = int(l) + 1
				}
				if obs.averaging {
					counted = true
					obs.arrivals++
					if l > 0 {
						obs.waited++
					}
				}
			}
			if l == 0 && s.tracksIdle() || s.full || int(l)+2 == len(s.cnt) {
				s.add(j)
			} else { // the common case of s.add(j)
				s.cnt[l+1]++
				length[j] = l + 1
			}
			arrive(j, t, counted)
			continue
		}
		j, _ := g.h.Top()
		l := length[j]
		if !draining {
			obs.change(int(l), int64(s.cnt[l]), t)
		}
		if l == 1 && s.tracksIdle() || s.full {
			s.remove(j)
		} else { // the common case of s.remove(j)
			s.cnt[l]--
			length[j] = l - 1
		}
		depart(j, t)
		if watch != nil {
			watch.departed(s, j, t)
		}
	}
	if err := check(sc.Horizon); err != nil {
		return nil, err
	}
	return &replication{events: events, obs: obs, gen: g.st}, nil
}

// genEngine holds what the discipline steps share. Each step is called after
// the State has been updated: an arrival at server j, which now has
// length[j] tasks, or the departure of the task whose completion is at the
// top of the heap (server j, now with length[j] tasks).
type genEngine struct {
	s    *State
	srv  []gsrv
	h    *eventheap.Heap
	dist service.Distribution
	r    *rand.Rand
	rate []float64 // per-server rates, nil when all are mu
	mu   float64
	st   *generalStats
	// pending counts the counted tasks still present (PS and LIFOPR).
	pending int64
}

func (g *genEngine) speed(j int) float64 {
	if g.rate != nil {
		return g.rate[j]
	}
	return g.mu
}

// work records the arrival of work w (time units) at server j for State.Workload.
func (g *genEngine) work(j int, t, w float64) {
	if e := g.s.ends; e != nil {
		e[j] = max(e[j], t) + w
	}
}

func (g *genEngine) arriveFIFO(j int, t float64, counted bool) {
	sv := &g.srv[j]
	l := int(g.s.length[j]) - 1 // tasks before this one
	w := g.dist.Sample(g.r) / g.speed(j)
	ring := sv.a[:]
	if sv.big || l == len(sv.a) {
		if !sv.big || l == len(sv.q) {
			sv.growRing(l)
		}
		ring = sv.q
	}
	mask := int32(len(ring) - 1)
	d := t + w
	if l > 0 {
		d = ring[(sv.head+int32(l)-1)&mask] + w
	}
	ring[(sv.head+int32(l))&mask] = d
	if l == 0 {
		g.h.Push(j, d)
	}
	if g.s.ends != nil {
		g.s.ends[j] = d
	}
	if counted {
		g.st.record(d - t)
	}
}

// growRing moves the full ring of a server holding l tasks (in a, or in q)
// to q with at least twice the room, in order from slot 0. q is reused when
// it is large enough (a server that had a long queue before).
func (sv *gsrv) growRing(l int) {
	old := sv.a[:]
	if sv.big {
		old = sv.q
	}
	q := sv.q
	if sv.big || len(q) < 2*l {
		q = make([]float64, 2*l)
	}
	mask := len(old) - 1
	for k := range l {
		q[k] = old[(int(sv.head)+k)&mask]
	}
	sv.q, sv.head, sv.big = q, 0, true
}

func (g *genEngine) departFIFO(j int, _ float64) {
	sv := &g.srv[j]
	ring := sv.a[:]
	if sv.big {
		ring = sv.q
	}
	sv.head = (sv.head + 1) & int32(len(ring)-1)
	if g.s.length[j] > 0 {
		g.h.ReplaceTop(ring[sv.head])
	} else {
		g.h.PopTop()
		sv.head, sv.big = 0, false
	}
	if g.h.Len() > 0 {
		// The next departure is likely the new top: fetch its server now.
		top, _ := g.h.Top()
		prefetch(&g.srv[top].head)
	}
}

// pending bookkeeping: a counted task is stored with its arrival time, others
// with -1.
func (g *genEngine) tag(t float64, counted bool) float64 {
	if counted {
		g.pending++
		return t
	}
	return -1
}

func (g *genEngine) left(t, arrived float64) {
	if arrived >= 0 {
		g.pending--
		g.st.record(t - arrived)
	}
}

func (g *genEngine) arrivePS(j int, t float64, counted bool) {
	sv := &g.srv[j]
	n := int(g.s.length[j]) // including this task
	mu := g.speed(j)
	size := g.dist.Sample(g.r)
	g.work(j, t, size/mu)
	if n > 1 {
		sv.a[0] += (t - sv.a[1]) * mu / float64(n-1)
	} else {
		sv.a[0] = 0
	}
	sv.a[1] = t
	if 2*n > len(sv.q) {
		sv.growPairs(n)
	}
	// Sift the new pair (v + size, arrival) up the server's heap.
	q := sv.q
	f, a := sv.a[0]+size, g.tag(t, counted)
	k := n - 1
	for k > 0 {
		p := (k - 1) / 2
		if q[2*p] <= f {
			break
		}
		q[2*k], q[2*k+1] = q[2*p], q[2*p+1]
		k = p
	}
	q[2*k], q[2*k+1] = f, a
	key := t + max(q[0]-sv.a[0], 0)*float64(n)/mu
	if n == 1 {
		g.h.Push(j, key)
	} else {
		g.h.Set(j, key)
	}
}

// growPairs makes room for at least n pairs, keeping the stored ones.
func (sv *gsrv) growPairs(n int) {
	q := make([]float64, 2*max(4, 2*n))
	copy(q, sv.q)
	sv.q = q
}

func (g *genEngine) departPS(j int, t float64) {
	sv := &g.srv[j]
	n := int(g.s.length[j]) // after the departure
	q := sv.q
	sv.a[0], sv.a[1] = q[0], t
	g.left(t, q[1])
	if n == 0 {
		sv.a[0] = 0
		g.h.PopTop()
		return
	}
	// Move the last pair (index n) down from the root.
	f, a := q[2*n], q[2*n+1]
	k := 0
	for {
		c := 2*k + 1
		if c >= n {
			break
		}
		if c+1 < n && q[2*c+2] < q[2*c] {
			c++
		}
		if f <= q[2*c] {
			break
		}
		q[2*k], q[2*k+1] = q[2*c], q[2*c+1]
		k = c
	}
	q[2*k], q[2*k+1] = f, a
	mu := g.speed(j)
	g.h.ReplaceTop(t + max(q[0]-sv.a[0], 0)*float64(n)/mu)
}

func (g *genEngine) arriveLIFO(j int, t float64, counted bool) {
	sv := &g.srv[j]
	n := int(g.s.length[j]) // including this task
	mu := g.speed(j)
	size := g.dist.Sample(g.r)
	g.work(j, t, size/mu)
	if 2*n > len(sv.q) {
		sv.growPairs(n)
	}
	q := sv.q
	if n > 1 {
		// The preempted task has received (t - tl) mu units of work.
		top := 2 * (n - 2)
		q[top] = max(q[top]-(t-sv.a[1])*mu, 0)
	}
	q[2*(n-1)], q[2*(n-1)+1] = size, g.tag(t, counted)
	sv.a[1] = t
	key := t + size/mu
	if n == 1 {
		g.h.Push(j, key)
	} else {
		g.h.Set(j, key)
	}
}

func (g *genEngine) departLIFO(j int, t float64) {
	sv := &g.srv[j]
	n := int(g.s.length[j]) // after the departure
	q := sv.q
	g.left(t, q[2*n+1])
	if n == 0 {
		g.h.PopTop()
		return
	}
	sv.a[1] = t
	g.h.ReplaceTop(t + q[2*(n-1)]/g.speed(j))
}

// summarizeGeneral replaces the sojourn figures of a general-engine result by
// the measured ones: per-replication means of the actual sojourn times and
// quantiles of their histogram pooled over replications.
func summarizeGeneral(res *Result, reps []*replication) {
	var pooled sojournHist
	soj := make([]float64, len(reps))
	for k, rep := range reps {
		st := rep.gen
		soj[k] = math.NaN()
		if st.count > 0 {
			soj[k] = st.sum / float64(st.count)
		}
		res.PerReplication[k].MeanSojourn = soj[k]
		pooled.merge(&st.hist)
	}
	res.MeanSojourn, res.MeanSojournCI95 = MeanCI95(soj)
	res.SojournQuantiles = pooled.quantiles(sojournQuantileLevels)
}
