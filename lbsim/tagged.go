package lbsim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
)

// A Tagger is a Policy that dispatches exactly like the policy it wraps and
// traces the queue lengths of the tagged servers 0..k-1: every arrival at and
// every departure from one of them in the time window [from, to], with the
// lengths at the window's start. The traces (one TagLog per replication) are
// what the asymptotic-independence ansatz speaks about: the joint law of two
// tagged queues (TagLog.Joint, TagLog.PairCorrelation) and the arrival
// stream at one queue given its own length (TagLog.Gaps).
//
// Departures are seen through a hook of the general engine, so a scenario
// with a Tagger always runs there (with exponential service when
// Scenario.Service is nil); the other engines refuse it. The wrapped policy
// draws from the same stream as it would unwrapped, so the run's figures are
// those of the wrapped policy dispatched through its Dispatch (JSQ(2) without
// replacement, which the general engine otherwise dispatches inline from
// pairs drawn ahead, has the same law but other draws).
//
// Memory: 16 bytes per traced event, about 2 lambda k (to - from) events per
// replication for a stable system.
type Tagger struct {
	wrapped
	k        int
	from, to float64

	mu   sync.Mutex
	logs []*TagLog
}

// TagQueues wraps p in a Tagger tracing servers 0..k-1 in [from, to]. Use a
// fresh Tagger per run: every replication that uses it adds its log.
func TagQueues(p Policy, k int, from, to float64) (*Tagger, error) {
	if k < 1 || !(from >= 0) || !(to > from) {
		return nil, fmt.Errorf("tagged servers k = %d and window [%v, %v]: need k >= 1 and 0 <= from < to", k, from, to)
	}
	return &Tagger{wrapped: wrapped{p}, k: k, from: from, to: to}, nil
}

// A TagLog is the trace of the tagged servers 0..Servers-1 in one
// replication over [Start, End]: Start is the first arrival in the window,
// End the last traced event (an arrival anywhere, or a departure from a
// tagged server), Initial their lengths at Start and Events the changes in
// time order.
type TagLog struct {
	Servers    int
	Start, End float64
	Initial    []int
	Events     []TagEvent
}

// A TagEvent is one change of a tagged queue: at Time, Server gains a task
// (Arrival) or loses one.
type TagEvent struct {
	Time    float64
	Server  int32
	Arrival bool
}

// Name and Uses (from wrapped) forward to the wrapped policy, so the engine
// serves it as it would unwrapped, bar the inline dispatch rules.

// departed is never called on the Tagger itself (the engine calls the value
// Prepare returns); it marks the Tagger as a policy that needs the general
// engine.
func (tg *Tagger) departed(*State, int, float64) {}

// Prepare prepares the wrapped policy for one replication, with its own log.
func (tg *Tagger) Prepare(sys System) (Policy, error) {
	if tg.k > sys.N {
		return nil, fmt.Errorf("tagged servers k = %d: must be at most the number of servers %d", tg.k, sys.N)
	}
	p, err := tg.prepareInner(sys)
	if err != nil {
		return nil, err
	}
	tp := &taggedPolicy{wrapped: wrapped{p}, parent: tg, log: &TagLog{Servers: tg.k}}
	tg.mu.Lock()
	tg.logs = append(tg.logs, tp.log)
	tg.mu.Unlock()
	return tp, nil
}

// Dispatch is never called by the engines, which dispatch with the value
// Prepare returns; called directly it dispatches with the wrapped policy,
// untraced.
func (tg *Tagger) Dispatch(s *State, origin int, r *rand.Rand) int {
	return tg.inner.Dispatch(s, origin, r)
}

// Logs returns the replications' logs, ordered by their start time (an
// order that does not depend on the number of workers).
func (tg *Tagger) Logs() []*TagLog {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	out := slices.Clone(tg.logs)
	slices.SortFunc(out, func(a, b *TagLog) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// departureWatcher is a prepared policy that the general engine tells of
// every departure (server j, now holding s.Len(j) tasks, at time t).
type departureWatcher interface {
	departed(s *State, j int, t float64)
}

func watchesDepartures(p Policy) bool {
	_, ok := p.(departureWatcher)
	return ok
}

type taggedPolicy struct {
	wrapped
	parent  *Tagger
	log     *TagLog
	started bool
}

func (tp *taggedPolicy) Dispatch(s *State, origin int, r *rand.Rand) int {
	j := tp.inner.Dispatch(s, origin, r)
	t, g := s.now, tp.parent
	if t < g.from || t > g.to {
		return j
	}
	l := tp.log
	if !tp.started {
		tp.started = true
		l.Start = t
		l.Initial = make([]int, g.k)
		for i := range l.Initial {
			l.Initial[i] = s.Len(i)
		}
	}
	l.End = t
	if j < g.k {
		l.Events = append(l.Events, TagEvent{Time: t, Server: int32(j), Arrival: true})
	}
	return j
}

func (tp *taggedPolicy) departed(_ *State, j int, t float64) {
	if !tp.started || j >= tp.parent.k || t > tp.parent.to {
		return
	}
	tp.log.End = t
	tp.log.Events = append(tp.log.Events, TagEvent{Time: t, Server: int32(j)})
}
