package lbsim

import (
	"fmt"
	"math/rand/v2"
)

// State is the per-server state of a running system: the queue length of every
// server and, kept in step with it, the servers sorted by queue length. Policies
// read it; only the engine changes it.
//
// The sorted order makes the occupancy counts C_i (servers with at least i
// tasks), a uniformly random idle, busy or shortest server all O(1): servers with
// length L occupy perm[start[L]:start[L+1]], and an arrival or departure moves one
// server across one bucket boundary with a single swap. Memory is 12 bytes per
// server plus O(levels).
type State struct {
	length []int32 // queue length of each server, including the task in service
	perm   []int32 // servers in non-decreasing order of length
	pos    []int32 // pos[j] is the index of server j in perm
	// start[L] is the index in perm of the first server with length >= L;
	// start[0] = 0 and the last entry is N (no server above the top level).
	start []int32
	sys   System
}

func newState(sys System, lengths []int) (*State, error) {
	n := sys.N
	s := &State{
		length: make([]int32, n),
		perm:   make([]int32, n),
		pos:    make([]int32, n),
		start:  make([]int32, 2, 64),
		sys:    sys,
	}
	s.start[0], s.start[1] = 0, int32(n)
	for j := range n {
		s.perm[j] = int32(j)
		s.pos[j] = int32(j)
	}
	if lengths != nil {
		if len(lengths) != n {
			return nil, fmt.Errorf("initial lengths: got %d values, want one per server (%d)", len(lengths), n)
		}
		for j, l := range lengths {
			if l < 0 {
				return nil, fmt.Errorf("initial lengths: server %d has length %d, want >= 0", j, l)
			}
			for range l {
				s.add(j)
			}
		}
	}
	return s, nil
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
	if i >= len(s.start) {
		return 0
	}
	return len(s.length) - int(s.start[i])
}

// Idle returns the number of idle servers.
func (s *State) Idle() int { return int(s.start[1]) }

// RandomIdle returns a uniformly random idle server, or -1 if none is idle.
func (s *State) RandomIdle(r *rand.Rand) int {
	idle := s.start[1]
	if idle == 0 {
		return -1
	}
	return int(s.perm[r.Int32N(idle)])
}

// RandomShortest returns a uniformly random server among those with the fewest tasks.
func (s *State) RandomShortest(r *rand.Rand) int {
	m := s.length[s.perm[0]]
	return int(s.perm[r.Int32N(s.start[m+1])])
}

// MinLen returns the smallest queue length.
func (s *State) MinLen() int { return int(s.length[s.perm[0]]) }

// MaxLen returns the largest queue length.
func (s *State) MaxLen() int { return int(s.length[s.perm[len(s.perm)-1]]) }

// Lengths returns a copy of all queue lengths.
func (s *State) Lengths() []int {
	out := make([]int, len(s.length))
	for j, l := range s.length {
		out[j] = int(l)
	}
	return out
}

// add puts one task at server j and returns its length before the arrival.
func (s *State) add(j int) int {
	l := s.length[j]
	if int(l)+2 == len(s.start) {
		s.start = append(s.start, int32(len(s.length)))
	}
	// Move j to the last slot of bucket l, then shrink bucket l by one.
	k := s.start[l+1] - 1
	pj := s.pos[j]
	other := s.perm[k]
	s.perm[k], s.perm[pj] = int32(j), other
	s.pos[j], s.pos[other] = k, pj
	s.start[l+1] = k
	s.length[j] = l + 1
	return int(l)
}

// remove takes one task from busy server j and returns its length before the departure.
func (s *State) remove(j int) int {
	l := s.length[j]
	// Move j to the first slot of bucket l, then grow bucket l-1 by one.
	k := s.start[l]
	pj := s.pos[j]
	other := s.perm[k]
	s.perm[k], s.perm[pj] = int32(j), other
	s.pos[j], s.pos[other] = k, pj
	s.start[l] = k + 1
	s.length[j] = l - 1
	return int(l)
}

// randomBusy returns a uniformly random busy server; the caller ensures one exists.
func (s *State) randomBusy(r *rand.Rand) int {
	b := s.start[1]
	return int(s.perm[b+r.Int32N(int32(len(s.perm))-b)])
}
