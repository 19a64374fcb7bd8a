package lbsim

import (
	"math/rand/v2"
	"testing"
)

// checkState verifies every invariant of State against a recount from the lengths.
func checkState(t *testing.T, s *State) {
	t.Helper()
	n := s.N()
	if s.Idle() != n-s.Count(1) {
		t.Fatalf("Idle = %d with C_1 = %d of %d", s.Idle(), s.Count(1), n)
	}
	if !s.listed {
		// Only the lengths and counts are maintained.
		if s.full || s.sticky {
			t.Fatalf("list dropped with full = %v, sticky = %v", s.full, s.sticky)
		}
		s = &State{length: s.length, cnt: s.cnt, perm: make([]int32, n), pos: make([]int32, n),
			start: []int32{0, 0, int32(n)}, sys: s.sys}
		s.relist()
	}
	for j := range n {
		if s.perm[s.pos[j]] != int32(j) {
			t.Fatalf("pos/perm inconsistent at server %d", j)
		}
	}
	maxL := 0
	for _, l := range s.length {
		maxL = max(maxL, int(l))
	}
	for i := 0; i <= maxL+1; i++ {
		c := 0
		for _, l := range s.length {
			if int(l) >= i {
				c++
			}
		}
		if s.Count(i) != c {
			t.Fatalf("Count(%d) = %d, recount %d", i, s.Count(i), c)
		}
	}
	idle := n - s.Count(1)
	for k, j := range s.perm {
		if (k < idle) != (s.length[j] == 0) {
			t.Fatalf("perm[%d] = server %d with length %d on the wrong side of the idle boundary %d", k, j, s.length[j], idle)
		}
	}
	if s.full {
		for k := 1; k < n; k++ {
			if s.length[s.perm[k-1]] > s.length[s.perm[k]] {
				t.Fatalf("full order broken at perm[%d]", k)
			}
		}
		for l := 0; l+1 < len(s.start); l++ {
			if int(s.start[l]) != n-s.Count(l) {
				t.Fatalf("start[%d] = %d, want %d", l, s.start[l], n-s.Count(l))
			}
		}
	}
	if s.MaxLen() != maxL {
		t.Fatalf("MaxLen = %d, want %d", s.MaxLen(), maxL)
	}
}

func TestStateInvariants(t *testing.T) {
	for _, full := range []bool{false, true} {
		r := rand.New(rand.NewPCG(1, 2))
		s := newState(System{N: 13}, full)
		for step := range 20000 {
			j := r.IntN(13)
			if s.Len(j) > 0 && r.IntN(2) == 0 {
				s.remove(j)
			} else {
				s.add(j)
			}
			if step%97 == 0 {
				checkState(t, s)
				min := s.MinLen()
				if got := s.Len(s.RandomShortest(r)); got != min {
					t.Fatalf("RandomShortest gave length %d, MinLen %d", got, min)
				}
				if j := s.RandomIdle(r); j >= 0 && s.Len(j) != 0 {
					t.Fatalf("RandomIdle gave busy server %d", j)
				}
			}
		}
		checkState(t, s)
	}
}

// The two-bucket list may be dropped and rebuilt at any time (the engine does
// so as the number of busy servers crosses N/2 and N/4); RandomIdle rebuilds
// it when needed and keeps it from then on.
func TestLazyList(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := newState(System{N: 17}, false)
	for step := range 20000 {
		j := r.IntN(17)
		if s.Len(j) > 0 && r.IntN(2) == 0 {
			s.remove(j)
		} else {
			s.add(j)
		}
		switch r.IntN(50) {
		case 0:
			s.unlist()
		case 1:
			s.relist()
		}
		if step%31 == 0 {
			checkState(t, s)
		}
	}
	s.unlist()
	if s.listed {
		t.Fatal("unlist kept the list of a state no policy has used")
	}
	for s.Len(3) > 0 {
		s.remove(3)
	}
	j := s.RandomIdle(r)
	if j < 0 || s.Len(j) != 0 || !s.listed || !s.sticky {
		t.Fatalf("RandomIdle gave %d (length %d), listed %v, sticky %v", j, s.Len(j), s.listed, s.sticky)
	}
	s.unlist()
	if !s.listed {
		t.Fatal("unlist dropped a list a policy uses")
	}
	checkState(t, s)
}
