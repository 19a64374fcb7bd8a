package lbsim

import (
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/param"
)

// Random sends each task to a uniformly random server: JSQ(1). Every server is
// then an M/M/1 queue with load lambda/mu_j.
func Random() Policy { return randomPolicy{} }

type randomPolicy struct{}

func (randomPolicy) Name() string { return "random" }

// Uses declares the engines' sampleShortest rule with d = 1: one uniform
// server.
func (randomPolicy) Uses() Needs {
	return Needs{inline: inlineRule{kind: sampleShortest, d: 1, with: true}}
}

func (randomPolicy) Dispatch(s *State, _ int, r *rand.Rand) int {
	return int(r.Int32N(int32(s.N())))
}

func (randomPolicy) Route(sys System, _ []int, _ int, _ int, out []Choice) []Choice {
	p := 1 / float64(sys.N)
	for j := range sys.N {
		out = append(out, Choice{Server: j, P: p})
	}
	return out
}

func (randomPolicy) JoinLevel(occ *Occupancy, r *rand.Rand) int {
	return levelOfRank(occ, r.Int64N(occ.N))
}

// levelOfRank returns the queue length of the server of rank u in [0, N) when
// servers are ranked by decreasing length: the number of levels i >= 1 with C_i > u.
// A uniform u gives the length of a uniformly random server.
func levelOfRank(occ *Occupancy, u int64) int {
	l := 0
	for l+1 < len(occ.C) && occ.C[l+1] > u {
		l++
	}
	return l
}

func (randomPolicy) ScenarioKeys() map[string]any { return map[string]any{keyPolicy: "random"} }

func init() {
	mustRegister(PolicyDef{Name: "random", Build: func(*param.Values) (Policy, error) { return Random(), nil }})
}
