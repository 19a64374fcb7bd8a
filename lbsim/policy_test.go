package lbsim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/chisq"
)

// chiSquareOK compares observed counts with expected probabilities by Pearson's
// chi-square test and fails only beyond the 1 - 1e-6 quantile: with a fixed seed
// the test is deterministic, and a correct sampler fails it with probability
// 1e-6 over seeds, while a sampler off by a few percent on any outcome fails
// with 2e5 draws.
func chiSquareOK(t *testing.T, what string, counts map[int]int, probs map[int]float64, draws int) {
	t.Helper()
	chisq.Check(t, what, counts, probs, draws)
}

// TestDispatchMatchesRoute checks, for every built-in policy and a few states,
// that Dispatch samples exactly the distribution Route states, and that
// JoinLevel samples the same distribution of joined queue lengths.
// checkRouting checks that p's Dispatch, in the state of the queue lengths
// given (with and without the engine's full tracking), draws servers with
// the probabilities of its Route (chi-square over draws dispatches, at the
// significance of chisq.Check), and, for an OccupancyRouter, that JoinLevel
// draws the levels with the same law. One definition of a policy serves the
// simulation and the exact solution; this is what keeps them together.
func checkRouting(t *testing.T, p0 Policy, lengths []int, seed uint64, draws int) {
	t.Helper()
	n := len(lengths)
	sys := System{N: n}
	p := p0
	if pr, ok := p.(Preparer); ok {
		var err error
		if p, err = pr.Prepare(sys); err != nil {
			t.Fatal(err)
		}
	}
	for _, full := range []bool{false, true} {
		s := newState(sys, full)
		for j, l := range lengths {
			for range l {
				s.add(j)
			}
		}
		r := rand.New(rand.NewPCG(seed, 7))
		counts := map[int]int{}
		for range draws {
			counts[p.Dispatch(s, -1, r)]++
		}
		probs := map[int]float64{}
		byLevel := map[int]float64{}
		total := 0.0
		for _, c := range p.(ExactRouter).Route(sys, lengths, 0, -1, nil) {
			probs[c.Server] += c.P
			byLevel[lengths[c.Server]] += c.P
			total += c.P
		}
		if math.Abs(total-1) > 1e-12 {
			t.Fatalf("%s state %v: Route probabilities sum to %v", p.Name(), lengths, total)
		}
		chiSquareOK(t, p.Name()+" Dispatch", counts, probs, draws)
		if o, ok := p.(OccupancyRouter); ok && !full {
			occ := &Occupancy{N: int64(n), C: make([]int64, s.levels()+1)}
			for i := range occ.C {
				occ.C[i] = int64(s.Count(i))
			}
			levels := map[int]int{}
			for range draws {
				levels[o.JoinLevel(occ, r)]++
			}
			chiSquareOK(t, p.Name()+" JoinLevel", levels, byLevel, draws)
		}
	}
}

// routingStates are states in which TestDispatchMatchesRoute checks every
// policy; the last, with 22 servers, reaches the partial Fisher-Yates path.
var routingStates = [][]int{
	{0, 1, 2, 3},
	{2, 2, 1, 3, 1},
	{1, 1, 1},
	{0, 0, 3, 1, 0, 2},
	{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2},
}

func TestDispatchMatchesRoute(t *testing.T) {
	policies := []Policy{Random(), JSQ(), JIQ(), JSQd(1), JSQd(2), JSQd(3), JSQdSampling(2, WithReplacement),
		JSQdSampling(3, WithReplacement), JIQd(2), JIQd(3)}
	const draws = 200000
	for si, lengths := range routingStates {
		ps := policies
		if len(lengths) == 22 {
			ps = []Policy{JSQd(18), JSQd(17), JIQd(20), JSQd(22)} // partial Fisher-Yates path
		}
		for _, p := range ps {
			checkRouting(t, p, lengths, uint64(si), draws)
		}
	}
}

func TestShuffleSamplerRestoresScratch(t *testing.T) {
	p, err := JSQd(40).(Preparer).Prepare(System{N: 100})
	if err != nil {
		t.Fatal(err)
	}
	s := newState(System{N: 100}, false)
	r := rand.New(rand.NewPCG(3, 4))
	for j := range 100 {
		for range j % 7 {
			s.add(j)
		}
	}
	for range 1000 {
		p.Dispatch(s, -1, r)
	}
	for j, v := range p.(*jsqd).scratch {
		if int(v) != j {
			t.Fatalf("scratch[%d] = %d after sampling, want the identity", j, v)
		}
	}
}

func TestRoundRobinRoute(t *testing.T) {
	p, _ := RoundRobin().(Preparer).Prepare(System{N: 3})
	s := newState(System{N: 3}, false)
	for k := range 7 {
		if j := p.Dispatch(s, -1, nil); j != k%3 {
			t.Fatalf("dispatch %d went to %d, want %d", k, j, k%3)
		}
	}
	c := p.(StatefulRouter).Route(System{N: 3}, []int{0, 0, 0}, 2, -1, nil)
	if len(c) != 1 || c[0].Server != 2 || c[0].Next != 0 || c[0].P != 1 {
		t.Fatalf("Route in state 2 = %+v", c)
	}
}
