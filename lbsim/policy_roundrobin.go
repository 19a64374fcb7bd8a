package lbsim

import (
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/param"
)

// RoundRobin sends tasks to servers 0, 1, ..., N-1, 0, 1, ... in turn, ignoring
// queue lengths. Its pointer is part of the state, so each replication gets its
// own (see Preparer).
func RoundRobin() Policy { return &roundRobin{} }

type roundRobin struct {
	next, n int
}

func (*roundRobin) Name() string { return "roundrobin" }

func (*roundRobin) Prepare(sys System) (Policy, error) {
	return &roundRobin{n: sys.N}, nil
}

func (p *roundRobin) Dispatch(s *State, _ int, _ *rand.Rand) int {
	if p.n != s.N() { // a value used without Prepare adopts the system it sees
		p.n, p.next = s.N(), 0
	}
	j := p.next
	p.next++
	if p.next == p.n {
		p.next = 0
	}
	return j
}

func (*roundRobin) PolicyStates(sys System) int { return sys.N }

func (*roundRobin) Route(sys System, _ []int, pstate int, _ int, out []Choice) []Choice {
	return append(out, Choice{Server: pstate, Next: (pstate + 1) % sys.N, P: 1})
}

func (p *roundRobin) ScenarioKeys() map[string]any { return map[string]any{keyPolicy: "roundrobin"} }

func init() {
	mustRegister(PolicyDef{Name: "roundrobin", Build: func(*param.Values) (Policy, error) { return RoundRobin(), nil }})
}
