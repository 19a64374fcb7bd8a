package lbsim

import (
	"math"
	"math/rand/v2"
)

// State is the per-server state of a running system: the queue length of every
// server, the occupancy counts C_i (servers with at least i tasks), and a
// permutation of the servers that makes a uniformly random idle or busy server
// O(1). Policies read it; only the engine changes it.
//
// The permutation lists idle servers first (perm[:start[1]]). For policies that
// declare Needs.ShortestOrder, it is kept fully sorted by queue length, so that
// servers with length L occupy perm[start[L]:start[L+1]] and a uniformly random
// shortest server is O(1) too. Either way an arrival or a departure moves one
// server across at most one bucket boundary with a single swap. Memory is 12
// bytes per server plus O(levels).
//
// The two-bucket list is maintained lazily, because for policies that only read
// lengths (JSQ(d)) keeping it costs two cache misses per idle<->busy transition
// and two thirds of the cache footprint. While listed is false, perm, pos and
// start[1] are stale; RandomIdle rebuilds them in O(N) and marks the list
// sticky, so a policy that uses it gets it maintained from then on. The engine
// drops a non-sticky list when more than half of the servers are busy (a
// uniformly random busy server is then found by rejection, at most 2 tries on
// average) and rebuilds it when fewer than a quarter are, which bounds the
// rebuild cost to O(1) amortised per event (see runServers).
type State struct {
	length []int32 // queue length of each server, including the task in service
	perm   []int32 // idle servers first (sorted by length in full order)
	pos    []int32 // pos[j] is the index of server j in perm
	// start[L] is the index in perm of the first server with length >= L, for
	// L = 0, 1 (and every level in full order); the last entry is N.
	start  []int32
	cnt    []int32 // cnt[i] = C_i; cnt[0] = N; one trailing zero
	full   bool    // keep perm sorted by length (implies listed and sticky)
	listed bool    // perm, pos and start[1] are up to date
	sticky bool    // a policy has used the idle list: never drop it
	sys    System
	// ends[j] is the time at which server j would be empty if no task
	// arrived any more, and now the current time: the general engine keeps
	// them for policies that declare Needs.Workload (nil otherwise).
	ends []float64
	now  float64
	// idleBits has bit j set when server j is idle. It is kept only for
	// policies that scan many servers for an idle one (Needs.idleBits), nil
	// otherwise: at N = 10^5 it is 12.5 kB and stays in the first-level cache
	// where the lengths do not.
	idleBits []uint64
}

// newPolicyState returns the empty state of sys with what policy needs kept
// up to date (its Needs): the full length order, the idle bits.
func newPolicyState(sys System, policy Policy) *State {
	uses := NeedsOf(policy)
	s := newState(sys, uses.ShortestOrder)
	if uses.idleBits {
		s.idleBits = make([]uint64, (sys.N+63)/64)
		for j := range sys.N {
			s.idleBits[j>>6] |= 1 << (j & 63)
		}
	}
	return s
}

// tracksIdle reports whether an idle<->busy transition must go through add or
// remove (the idle list or the idle bits are kept).
func (s *State) tracksIdle() bool { return s.listed || s.idleBits != nil }

func newState(sys System, fullOrder bool) *State {
	n := sys.N
	s := &State{
		length: make([]int32, n),
		perm:   make([]int32, n),
		pos:    make([]int32, n),
		start:  []int32{0, int32(n), int32(n)},
		cnt:    make([]int32, 2, 64),
		full:   fullOrder,
		listed: true,
		sticky: fullOrder,
		sys:    sys,
	}
	s.cnt[0] = int32(n)
	if fullOrder {
		s.start = s.start[:2]
	}
	for j := range n {
		s.perm[j] = int32(j)
		s.pos[j] = int32(j)
	}
	return s
}

// N returns the number of servers.
func (s *State) N() int { return len(s.length) }

// System returns the servers' description (rates, origin weights).
func (s *State) System() System { return s.sys }

// Len returns the queue length of server j (tasks present, including the one in service).
func (s *State) Len(j int) int { return int(s.length[j]) }

// Count returns C_i, the number of servers with at least i tasks.
func (s *State) Count(i int) int {
	if i <= 0 {
		return len(s.length)
	}
	if i >= len(s.cnt) {
		return 0
	}
	return int(s.cnt[i])
}

// Idle returns the number of idle servers.
func (s *State) Idle() int { return len(s.length) - int(s.cnt[1]) }

// RandomIdle returns a uniformly random idle server, or -1 if none is idle.
// It is O(1), except that the first call in a replication may take O(N): the
// engine keeps the idle list only for policies that use it (see State).
func (s *State) RandomIdle(r *rand.Rand) int {
	idle := int32(len(s.length)) - s.cnt[1]
	if idle == 0 {
		return -1
	}
	if !s.listed {
		s.relist()
	}
	s.sticky = true
	return int(s.perm[r.Int32N(idle)])
}

// RandomShortest returns a uniformly random server among those with the fewest
// tasks. It is O(1) when an idle server exists or the policy declares
// Needs.ShortestOrder, and O(N) otherwise.
func (s *State) RandomShortest(r *rand.Rand) int {
	if s.full {
		m := s.length[s.perm[0]]
		return int(s.perm[r.Int32N(s.start[m+1])])
	}
	if j := s.RandomIdle(r); j >= 0 {
		return j
	}
	// Reservoir sampling over the shortest queues.
	best, ties := int32(-1), int32(0)
	for j, l := range s.length {
		switch {
		case best < 0 || l < s.length[best]:
			best, ties = int32(j), 1
		case l == s.length[best]:
			ties++
			if r.Int32N(ties) == 0 {
				best = int32(j)
			}
		}
	}
	return int(best)
}

// MinLen returns the smallest queue length (O(levels) unless the policy
// declares Needs.ShortestOrder).
func (s *State) MinLen() int {
	if s.full {
		return int(s.length[s.perm[0]])
	}
	m := 0
	for m+1 < len(s.cnt) && int(s.cnt[m+1]) == len(s.length) {
		m++
	}
	return m
}

// MaxLen returns the largest queue length.
func (s *State) MaxLen() int {
	m := len(s.cnt) - 1
	for m > 0 && s.cnt[m] == 0 {
		m--
	}
	return m
}

// Workload returns the unfinished work at server j in units of time: how
// long server j would take to empty if no task arrived any more (the sum of
// the remaining service times of its tasks, divided by its rate). Only the
// general engine (EngineGeneral) tracks workloads, and only for policies that
// declare Needs.Workload (JSWd); Run picks that engine for them and rejects
// the Markov engines. Elsewhere Workload returns NaN.
func (s *State) Workload(j int) float64 {
	if s.ends == nil {
		return math.NaN()
	}
	return max(s.ends[j]-s.now, 0)
}

// Lengths returns a copy of all queue lengths.
func (s *State) Lengths() []int {
	out := make([]int, len(s.length))
	for j, l := range s.length {
		out[j] = int(l)
	}
	return out
}

// levels returns the number of levels i >= 1 that have ever been occupied.
func (s *State) levels() int { return len(s.cnt) - 1 }

// add puts one task at server j and returns its length before the arrival.
// (The engine inlines the common case: no new level and no list to update.)
func (s *State) add(j int) int {
	l := s.length[j]
	if int(l)+2 == len(s.cnt) {
		s.cnt = append(s.cnt, 0)
		if s.full {
			s.start = append(s.start, int32(len(s.length)))
		}
	}
	s.cnt[l+1]++
	s.length[j] = l + 1
	if l == 0 && s.idleBits != nil {
		s.idleBits[j>>6] &^= 1 << (j & 63)
	}
	if l == 0 && s.listed || s.full {
		// Move j to the last slot of bucket l, then shrink bucket l by one.
		k := s.start[l+1] - 1
		pj := s.pos[j]
		other := s.perm[k]
		s.perm[k], s.perm[pj] = int32(j), other
		s.pos[j], s.pos[other] = k, pj
		s.start[l+1] = k
	}
	return int(l)
}

// remove takes one task from busy server j and returns its length before the
// departure. (The engine inlines the common case: no list to update.)
func (s *State) remove(j int) int {
	l := s.length[j]
	s.cnt[l]--
	s.length[j] = l - 1
	if l == 1 && s.idleBits != nil {
		s.idleBits[j>>6] |= 1 << (j & 63)
	}
	if l == 1 && s.listed || s.full {
		// Move j to the first slot of bucket l, then grow bucket l-1 by one.
		k := s.start[l]
		pj := s.pos[j]
		other := s.perm[k]
		s.perm[k], s.perm[pj] = int32(j), other
		s.pos[j], s.pos[other] = k, pj
		s.start[l] = k + 1
	}
	return int(l)
}

// relist rebuilds the two-bucket list from the lengths: idle servers first.
func (s *State) relist() {
	idle, busy := int32(0), int32(len(s.length))
	for j, l := range s.length {
		k := idle
		if l > 0 {
			busy--
			k = busy
		} else {
			idle++
		}
		s.perm[k], s.pos[j] = int32(j), k
	}
	s.start[1] = idle
	s.listed = true
}

// unlist stops maintaining the two-bucket list unless a policy uses it.
func (s *State) unlist() {
	if !s.sticky {
		s.listed = false
	}
}
