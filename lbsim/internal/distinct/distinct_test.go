package distinct

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/chisq"
)

// Every d-subset of [0, n) is drawn with probability 1/C(n, d), and every
// order of a subset equally often: a chi-square test over all ordered
// d-tuples of distinct indices (n!/(n-d)! outcomes, each of probability
// (n-d)!/n!), at significance 1e-6 with a fixed seed (chisq.Check), after
// which the permutation is the identity again.
func TestDrawUniform(t *testing.T) {
	for _, c := range []struct{ n, d int }{{5, 1}, {5, 2}, {5, 3}, {6, 4}, {5, 5}} {
		a := Identity(c.n)
		r := rand.New(rand.NewPCG(uint64(c.n), uint64(c.d)))
		uniform := func(m uint32) uint32 { return uint32(r.Int32N(int32(m))) }
		const draws = 300000
		counts, subsets := map[int]int{}, map[int]int{}
		for range draws {
			key, set := 0, 0
			a.Draw(c.d, uniform, func(j int32) {
				if set&(1<<j) != 0 {
					t.Fatalf("n = %d, d = %d: index %d drawn twice", c.n, c.d, j)
				}
				key = key*c.n + int(j)
				set |= 1 << j
			})
			counts[key]++
			subsets[set]++
			if !slices.Equal(a, Identity(c.n)) {
				t.Fatalf("n = %d, d = %d: permutation not restored: %v", c.n, c.d, a)
			}
		}
		// All ordered tuples of d distinct indices, equally likely.
		probs := map[int]float64{}
		tuples := 1
		for k := range c.d {
			tuples *= c.n - k
		}
		var rec func(k, key, set int)
		rec = func(k, key, set int) {
			if k == c.d {
				probs[key] = 1 / float64(tuples)
				return
			}
			for j := range c.n {
				if set&(1<<j) == 0 {
					rec(k+1, key*c.n+j, set|1<<j)
				}
			}
		}
		rec(0, 0, 0)
		chisq.Check(t, "ordered draws", counts, probs, draws)
		// The same data by subset: C(n, d) outcomes of probability 1/C(n, d).
		sets := map[int]float64{}
		for set := range 1 << c.n {
			if popcount(set) == c.d {
				sets[set] = 1
			}
		}
		for s := range sets {
			sets[s] = 1 / float64(len(sets))
		}
		chisq.Check(t, "subsets", subsets, sets, draws)
	}
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

// A prefix of a Perm serves draws out of fewer indices and leaves the whole
// Perm the identity; uniform is called with n, n-1, ..., n-d+1, once each, in
// that order, and each visit comes right after its draw.
func TestDrawCallsAndPrefix(t *testing.T) {
	a := Identity(40)
	var calls []string
	r := rand.New(rand.NewPCG(1, 1))
	a[:30].Draw(20, func(m uint32) uint32 {
		calls = append(calls, "u")
		if want := uint32(30 - (len(calls)-1)/2); m != want {
			t.Fatalf("call %d: uniform(%d), want uniform(%d)", len(calls), m, want)
		}
		return uint32(r.IntN(int(m)))
	}, func(j int32) {
		calls = append(calls, "v")
		if j >= 30 {
			t.Fatalf("visited %d, outside [0, 30)", j)
		}
	})
	if len(calls) != 40 {
		t.Fatalf("%d calls, want 40", len(calls))
	}
	for k, c := range calls {
		if want := []string{"u", "v"}[k%2]; c != want {
			t.Fatalf("call %d is %s, want %s", k, c, want)
		}
	}
	if !slices.Equal(a, Identity(40)) {
		t.Fatalf("permutation not restored: %v", a)
	}
}
