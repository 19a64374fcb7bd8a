package lbsim

import (
	"fmt"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/param"
)

// JIQd ("idle first, then JSQ(d)") sends each task to a uniformly random idle
// server if there is one, else to the shortest of d servers sampled without
// replacement. d = 1 is JIQ and d = N is JSQ.
func JIQd(d int) Policy { return &jiqd{jsqd: jsqd{d: d}} }

type jiqd struct{ jsqd }

func (p *jiqd) Name() string { return fmt.Sprintf("jiqd(d=%d)", p.d) }

// Uses declares nothing: the embedded jsqd's inline rule (the shortest of d
// uniform servers) is not jiqd's, which tries an idle server first.
func (p *jiqd) Uses() Needs { return Needs{} }

func (p *jiqd) Prepare(sys System) (Policy, error) {
	q, err := p.jsqd.Prepare(sys)
	if err != nil {
		return nil, err
	}
	return &jiqd{jsqd: *q.(*jsqd)}, nil
}

func (p *jiqd) Dispatch(s *State, origin int, r *rand.Rand) int {
	if j := s.RandomIdle(r); j >= 0 {
		return j
	}
	return p.jsqd.Dispatch(s, origin, r)
}

func (p *jiqd) Route(sys System, lengths []int, pstate int, origin int, out []Choice) []Choice {
	if out, ok := appendUniformIdle(out, lengths); ok {
		return out
	}
	return p.jsqd.Route(sys, lengths, pstate, origin, out)
}

func (p *jiqd) JoinLevel(occ *Occupancy, r *rand.Rand) int {
	if occ.Count(1) < occ.N {
		return 0
	}
	return p.jsqd.JoinLevel(occ, r)
}

func (p *jiqd) ScenarioKeys() map[string]any {
	return map[string]any{keyPolicy: "jiqd", keyD: p.d, keySampling: "without"}
}

func init() {
	mustRegister(PolicyDef{Name: "jiqd", Uses: []string{keyD, keySampling}, Build: func(v *param.Values) (Policy, error) {
		if err := samplesWithout("jiqd", v); err != nil {
			return nil, err
		}
		return JIQd(v.Int(keyD)), nil
	}})
}
