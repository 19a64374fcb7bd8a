package lbsim

import (
	"fmt"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/param"
)

// JBT (join below threshold; Zhou, Wu, Tan, Sun and Shroff 2017, with a fixed
// threshold) sends each task to a uniformly random server with fewer than
// threshold tasks if there is one, else to a uniformly random server. The
// dispatcher needs to know only which servers are below the threshold, as
// with the one-bit reports of JIQ, which is JBT with threshold 1.
func JBT(threshold int) Policy { return jbt{threshold: threshold} }

type jbt struct{ threshold int }

// keyThreshold is the key JBT brings.
const keyThreshold = "threshold"

func (p jbt) Name() string { return fmt.Sprintf("jbt(threshold=%d)", p.threshold) }

// Dispatch draws a uniform server below the threshold by rejection: N/below
// draws expected, never more than a scan of the N servers would cost.
func (p jbt) Dispatch(s *State, _ int, r *rand.Rand) int {
	n := s.N()
	switch below := n - s.Count(p.threshold); {
	case below == 0:
		return int(r.Int32N(int32(n)))
	case p.threshold == 1:
		return s.RandomIdle(r)
	}
	for {
		if j := int(r.Int32N(int32(n))); s.Len(j) < p.threshold {
			return j
		}
	}
}

func (p jbt) Route(sys System, lengths []int, _ int, _ int, out []Choice) []Choice {
	below := 0
	for _, l := range lengths {
		if l < p.threshold {
			below++
		}
	}
	for j, l := range lengths {
		switch {
		case below == 0:
			out = append(out, Choice{Server: j, P: 1 / float64(len(lengths))})
		case l < p.threshold:
			out = append(out, Choice{Server: j, P: 1 / float64(below)})
		}
	}
	return out
}

// JoinLevel: the servers ranked C_T .. N-1 (see levelOfRank) are those below
// the threshold T.
func (p jbt) JoinLevel(occ *Occupancy, r *rand.Rand) int {
	above := occ.Count(p.threshold)
	if above == occ.N {
		return levelOfRank(occ, r.Int64N(occ.N))
	}
	return levelOfRank(occ, above+r.Int64N(occ.N-above))
}

func (p jbt) ScenarioKeys() map[string]any {
	return map[string]any{keyPolicy: "jbt", keyThreshold: p.threshold}
}

func init() {
	mustRegister(PolicyDef{
		Name: "jbt",
		NewKeys: []param.Key{{Name: keyThreshold, Kind: param.Int, Arg: "T", For: []string{}, DefaultDoc: "1 (JIQ)",
			Default: param.Constant(1), Check: param.IntBetween(1, 1<<24),
			Doc: "jbt sends a task to a random server with fewer than T tasks, else to a random server"}},
		Uses:    []string{keyThreshold},
		Example: map[string]any{keyThreshold: 3, "engine": "occupancy"},
		Build:   func(v *param.Values) (Policy, error) { return JBT(v.Int(keyThreshold)), nil },
	})
}
