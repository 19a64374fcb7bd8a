package lbsim

import (
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/param"
)

// JSQ sends each task to a server with the fewest tasks among all N, ties broken
// uniformly at random. Its cost per arrival is O(1): the engine keeps servers
// bucketed by queue length.
func JSQ() Policy { return jsqPolicy{} }

type jsqPolicy struct{}

func (jsqPolicy) Name() string { return "jsq" }

// Uses declares the full length order, and that the engines may
// dispatch inline (joinShortest: RandomShortest from their own draws).
func (jsqPolicy) Uses() Needs {
	return Needs{ShortestOrder: true, inline: inlineRule{kind: joinShortest}}
}

func (jsqPolicy) Dispatch(s *State, _ int, r *rand.Rand) int { return s.RandomShortest(r) }

func (jsqPolicy) Route(sys System, lengths []int, _ int, _ int, out []Choice) []Choice {
	return appendUniformArgmin(out, lengths, nil)
}

func (jsqPolicy) JoinLevel(occ *Occupancy, _ *rand.Rand) int {
	// The shortest queue has length m = max{i : C_i = N}.
	m := 0
	for m+1 < len(occ.C) && occ.C[m+1] == occ.N {
		m++
	}
	return m
}

// appendUniformArgmin appends a uniform choice among the shortest of the given
// servers (all servers when among is nil).
func appendUniformArgmin(out []Choice, lengths []int, among []int) []Choice {
	best, ties := -1, 0
	consider := func(j int) {
		switch {
		case best < 0 || lengths[j] < best:
			best, ties = lengths[j], 1
		case lengths[j] == best:
			ties++
		}
	}
	if among == nil {
		for j := range lengths {
			consider(j)
		}
	} else {
		for _, j := range among {
			consider(j)
		}
	}
	p := 1 / float64(ties)
	add := func(j int) {
		if lengths[j] == best {
			out = append(out, Choice{Server: j, P: p})
		}
	}
	if among == nil {
		for j := range lengths {
			add(j)
		}
	} else {
		for _, j := range among {
			add(j)
		}
	}
	return out
}

func (jsqPolicy) ScenarioKeys() map[string]any { return map[string]any{keyPolicy: "jsq"} }

func init() {
	mustRegister(PolicyDef{Name: "jsq", Build: func(*param.Values) (Policy, error) { return JSQ(), nil }})
}
