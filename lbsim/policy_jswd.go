package lbsim

import (
	"fmt"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/internal/distinct"
	"github.com/lbsim/notebooks/lbsim/param"
)

// JSWd joins the shortest workload among d: each task samples d servers
// uniformly at random without replacement and joins the one with the least
// unfinished work (State.Workload), ties going to the first drawn (so
// uniformly among the tied servers). Under FIFO this is the server where the
// task would start service soonest. It needs per-server workloads, so it runs
// on the general engine only (EngineGeneral, chosen by EngineAuto).
func JSWd(d int) Policy { return &jswd{d: d} }

type jswd struct {
	d       int
	scratch distinct.Perm // partial Fisher-Yates permutation for d > maxRejectionD
}

func (p *jswd) Name() string { return fmt.Sprintf("jswd(d=%d)", p.d) }

// Uses declares the workloads: jswd runs on the general engine.
func (p *jswd) Uses() Needs { return Needs{Workload: true} }

func (p *jswd) Prepare(sys System) (Policy, error) {
	if p.d < 1 || p.d > sys.N {
		return nil, fmt.Errorf("d = %d: must be between 1 and the number of servers (%d)", p.d, sys.N)
	}
	q := &jswd{d: p.d}
	if q.d > maxRejectionD {
		q.scratch = distinct.Identity(sys.N)
	}
	return q, nil
}

func (p *jswd) Dispatch(s *State, _ int, r *rand.Rand) int {
	n := int32(len(s.length))
	switch {
	case p.d == 1:
		return int(r.Int32N(n))
	case p.d == 2:
		a, b := twoDistinct(r, uint32(n))
		if s.Workload(int(b)) < s.Workload(int(a)) {
			return int(b)
		}
		return int(a)
	case p.scratch == nil:
		var picked [maxRejectionD]int32
		best, bw := int32(-1), 0.0
		for k := 0; k < p.d; k++ {
		draw:
			j := r.Int32N(n)
			for _, q := range picked[:k] {
				if q == j {
					goto draw
				}
			}
			picked[k] = j
			if w := s.Workload(int(j)); best < 0 || w < bw {
				best, bw = j, w
			}
		}
		return int(best)
	}
	// Partial Fisher-Yates on the scratch identity permutation, restored
	// afterwards, as in jsqd.sampleShuffle.
	best, bw := int32(-1), 0.0
	p.scratch.Draw(p.d, func(m uint32) uint32 { return uint32(r.Int32N(int32(m))) }, func(j int32) {
		if w := s.Workload(int(j)); best < 0 || w < bw {
			best, bw = j, w
		}
	})
	return int(best)
}

func (p *jswd) ScenarioKeys() map[string]any {
	return map[string]any{keyPolicy: "jswd", keyD: p.d, keySampling: "without"}
}

func init() {
	mustRegister(PolicyDef{Name: "jswd", Uses: []string{keyD, keySampling}, Build: func(v *param.Values) (Policy, error) {
		if err := samplesWithout("jswd", v); err != nil {
			return nil, err
		}
		return JSWd(v.Int(keyD)), nil
	}})
}
