package lbsim

import (
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/param"
)

// JIQ (join the idle queue) sends each task to a uniformly random idle server if
// there is one, else to a uniformly random server.
func JIQ() Policy { return jiqPolicy{} }

type jiqPolicy struct{}

func (jiqPolicy) Name() string { return "jiq" }

func (jiqPolicy) Dispatch(s *State, _ int, r *rand.Rand) int {
	if j := s.RandomIdle(r); j >= 0 {
		return j
	}
	return int(r.Int32N(int32(s.N())))
}

func (jiqPolicy) Route(sys System, lengths []int, pstate int, origin int, out []Choice) []Choice {
	if out, ok := appendUniformIdle(out, lengths); ok {
		return out
	}
	return randomPolicy{}.Route(sys, lengths, pstate, origin, out)
}

func (jiqPolicy) JoinLevel(occ *Occupancy, r *rand.Rand) int {
	if occ.Count(1) < occ.N {
		return 0
	}
	return levelOfRank(occ, r.Int64N(occ.N))
}

// appendUniformIdle appends a uniform choice among idle servers and reports
// whether there was one.
func appendUniformIdle(out []Choice, lengths []int) ([]Choice, bool) {
	idle := 0
	for _, l := range lengths {
		if l == 0 {
			idle++
		}
	}
	if idle == 0 {
		return out, false
	}
	for j, l := range lengths {
		if l == 0 {
			out = append(out, Choice{Server: j, P: 1 / float64(idle)})
		}
	}
	return out, true
}

func (jiqPolicy) ScenarioKeys() map[string]any { return map[string]any{keyPolicy: "jiq"} }

func init() {
	mustRegister(PolicyDef{Name: "jiq", Build: func(*param.Values) (Policy, error) { return JIQ(), nil }})
}
