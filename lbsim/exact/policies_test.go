package exact_test

import (
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim"
)

// The test policies below implement lbsim.ExactRouter. Their Dispatch methods
// mirror Route but are not used by the exact solver.

// uniformRouter sends each task to a uniformly random server.
type uniformRouter struct{}

func (uniformRouter) Name() string { return "test-uniform" }
func (uniformRouter) Dispatch(s *lbsim.State, _ int, r *rand.Rand) int {
	return r.IntN(s.N())
}
func (uniformRouter) Route(sys lbsim.System, _ []int, _, _ int, out []lbsim.Choice) []lbsim.Choice {
	for j := range sys.N {
		out = append(out, lbsim.Choice{Server: j, P: 1 / float64(sys.N)})
	}
	return out
}

// jsqRouter sends each task to a shortest queue, uniformly among ties.
type jsqRouter struct{}

func (jsqRouter) Name() string { return "test-jsq" }
func (jsqRouter) Dispatch(s *lbsim.State, _ int, r *rand.Rand) int {
	return s.RandomShortest(r)
}
func (jsqRouter) Route(_ lbsim.System, lengths []int, _, _ int, out []lbsim.Choice) []lbsim.Choice {
	m, ties := lengths[0], 0
	for _, l := range lengths {
		m = min(m, l)
	}
	for _, l := range lengths {
		if l == m {
			ties++
		}
	}
	for j, l := range lengths {
		if l == m {
			out = append(out, lbsim.Choice{Server: j, P: 1 / float64(ties)})
		}
	}
	return out
}

// roundRobinRouter sends the task to server pstate and advances the pointer.
type roundRobinRouter struct{}

func (roundRobinRouter) Name() string { return "test-roundrobin" }
func (roundRobinRouter) Dispatch(s *lbsim.State, _ int, _ *rand.Rand) int {
	return 0 // stateless stand-in; only Route matters here
}
func (roundRobinRouter) PolicyStates(sys lbsim.System) int { return sys.N }
func (roundRobinRouter) Route(sys lbsim.System, _ []int, pstate, _ int, out []lbsim.Choice) []lbsim.Choice {
	return append(out, lbsim.Choice{Server: pstate, Next: (pstate + 1) % sys.N, P: 1})
}

// ownServerRouter sends each task to the server where it appeared.
type ownServerRouter struct{}

func (ownServerRouter) Name() string      { return "test-own" }
func (ownServerRouter) Uses() lbsim.Needs { return lbsim.Needs{Origin: true} }
func (ownServerRouter) Dispatch(_ *lbsim.State, origin int, _ *rand.Rand) int {
	return origin
}
func (ownServerRouter) Route(_ lbsim.System, _ []int, _, origin int, out []lbsim.Choice) []lbsim.Choice {
	return append(out, lbsim.Choice{Server: origin, P: 1})
}

// originCheckRouter is a NeedsDeclarer that reports it does not use origins: it
// must be called with origin -1, and routes to an invalid server otherwise.
type originCheckRouter struct{}

func (originCheckRouter) Name() string      { return "test-origin-check" }
func (originCheckRouter) Uses() lbsim.Needs { return lbsim.Needs{} }
func (originCheckRouter) Dispatch(*lbsim.State, int, *rand.Rand) int {
	return 0
}
func (originCheckRouter) Route(sys lbsim.System, lengths []int, ps, origin int, out []lbsim.Choice) []lbsim.Choice {
	if origin != -1 {
		return append(out, lbsim.Choice{Server: -1, P: 1})
	}
	return uniformRouter{}.Route(sys, lengths, ps, origin, out)
}

// badRouter returns whatever route says, to exercise the validation of Route.
type badRouter struct {
	route func(lengths []int, out []lbsim.Choice) []lbsim.Choice
}

func (badRouter) Name() string { return "test-bad" }
func (badRouter) Dispatch(*lbsim.State, int, *rand.Rand) int {
	return 0
}
func (b badRouter) Route(_ lbsim.System, lengths []int, _, _ int, out []lbsim.Choice) []lbsim.Choice {
	return b.route(lengths, out)
}

// statesRouter is uniformRouter with a given number of policy states, which
// it never leaves (for the state-limit checks).
type statesRouter struct {
	uniformRouter
	states int
}

func (r statesRouter) PolicyStates(lbsim.System) int { return r.states }

// preparedRouter checks the system in Prepare, like lbsim's JSQ(d).
type preparedRouter struct {
	jsqRouter
	maxN int
}

func (p preparedRouter) Prepare(sys lbsim.System) (lbsim.Policy, error) {
	if sys.N > p.maxN {
		return nil, errTooManyServers
	}
	return p, nil
}

// ptrRouter dereferences its receiver everywhere: a nil *ptrRouter panics in
// every method, as user policies may.
type ptrRouter struct{ n int }

func (p *ptrRouter) Name() string                               { return "test-ptr" + string(rune('0'+p.n)) }
func (p *ptrRouter) Dispatch(*lbsim.State, int, *rand.Rand) int { return p.n }
func (p *ptrRouter) PolicyStates(lbsim.System) int              { return p.n + 1 }
func (p *ptrRouter) Route(_ lbsim.System, _ []int, _, _ int, out []lbsim.Choice) []lbsim.Choice {
	return append(out, lbsim.Choice{Server: p.n, P: 1})
}
