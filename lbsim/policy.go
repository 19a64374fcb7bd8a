package lbsim

import "math/rand/v2"

// A Policy decides which server receives each arriving task.
//
// Dispatch is called once per arrival with the current state (read only), the
// server where the task appeared (its origin; -1 when the policy does not use
// origins, see Needs) and the replication's random stream. It returns a
// server index in [0, s.N()). Dispatch must not allocate: it runs in the hot loop.
//
// A policy value may be shared by replications running in parallel. A policy with
// mutable state (a round-robin pointer, random walkers) or that must be checked
// against the system (d <= N) implements Preparer, and the engine dispatches with
// the fresh value Prepare returns, one per replication.
type Policy interface {
	// Name identifies the policy in results, for example "jsqd(d=2,without)".
	Name() string
	Dispatch(s *State, origin int, r *rand.Rand) int
}

// A Preparer is a Policy that needs per-replication state or validation against
// the system it will dispatch in.
type Preparer interface {
	Prepare(sys System) (Policy, error)
}

// An originPrefetcher is a policy that uses origins and reads much memory
// per origin: the per-server engine calls prefetchOrigin with the origin of
// the next arrival, drawn one arrival ahead, so that the policy can ask the
// CPU for it early.
type originPrefetcher interface {
	prefetchOrigin(origin int)
}

// System describes the servers a policy dispatches to.
type System struct {
	N int
	// Rates are the service rates mu_j, or nil when every server has rate 1.
	Rates []float64
	// OriginWeights are the relative rates at which tasks appear at each server,
	// or nil for uniform origins.
	OriginWeights []float64
}

// Rate returns the service rate of server j.
func (sys System) Rate(j int) float64 {
	if sys.Rates == nil {
		return 1
	}
	return sys.Rates[j]
}

// A Choice is one outcome of an exact routing decision: the task joins Server
// with probability P and the policy's internal state becomes Next.
type Choice struct {
	Server int
	Next   int
	P      float64
}

// An ExactRouter is a Policy that can state its routing distribution exactly in
// a given state, which the exact solver (package exact) uses. One definition of a
// policy thereby serves both simulation and exact solution.
//
// Route appends to out the outcomes for a task arriving at origin (-1 when the
// policy does not use origins) when the queue lengths are lengths and the
// policy's internal state is pstate, and returns the extended slice. The
// probabilities of the appended choices sum to 1.
type ExactRouter interface {
	Policy
	Route(sys System, lengths []int, pstate int, origin int, out []Choice) []Choice
}

// A StatefulRouter is an ExactRouter with internal state (a round-robin
// pointer, walker positions) that is part of the Markov chain. States are
// numbered 0..PolicyStates-1 and the chain starts in state 0.
type StatefulRouter interface {
	ExactRouter
	PolicyStates(sys System) int
}

// An OccupancyRouter is a Policy whose routing depends on the state only through
// the occupancy counts and treats servers as exchangeable (homogeneous rates,
// uniform sampling). Such policies can run on the occupancy-level engine, whose
// cost per event does not depend on N.
//
// JoinLevel returns the length L (before the arrival) of the queue that receives
// the task, given occ.
type OccupancyRouter interface {
	Policy
	JoinLevel(occ *Occupancy, r *rand.Rand) int
}

// Occupancy holds the occupancy counts of a system of N exchangeable servers:
// C[i] is the number of servers with at least i tasks (C[0] = N). C has one
// trailing zero entry above the highest occupied level.
type Occupancy struct {
	N int64
	C []int64
}

// Count returns the number of servers with at least i tasks.
func (o *Occupancy) Count(i int) int64 {
	if i < 0 {
		return o.N
	}
	if i >= len(o.C) {
		return 0
	}
	return o.C[i]
}

// A KeyedPolicy states the scenario keys that rebuild it: its registered
// name and the values of the keys it uses (for JSQd(2): policy jsqd, d 2,
// sampling without). The built-in constructors and every policy built from
// keys are keyed, so the Scenario of a run with them is a scenario file that
// reproduces the run. A policy built in Go from a value that has no key
// (NeighbourJSQ of a graph made in Go, your own type) is not: its scenario
// carries only the policy's name.
type KeyedPolicy interface {
	Policy
	ScenarioKeys() map[string]any
}

// wrapped forwards to a wrapped policy what the engines ask a policy about
// itself, so that a wrapper (DrawCounter, Tagger) is served as the policy it
// wraps: its name and its needs (forwarded: the needs without the inline
// rule, which would bypass the wrapper's Dispatch).
type wrapped struct{ inner Policy }

func (w wrapped) Name() string { return w.inner.Name() }
func (w wrapped) Uses() Needs  { return forwarded(w.inner) }

// prepareInner returns the policy a wrapper dispatches with in one
// replication: the wrapped one, or the fresh value its Prepare returns.
func (w wrapped) prepareInner(sys System) (Policy, error) {
	if pr, ok := w.inner.(Preparer); ok {
		return pr.Prepare(sys)
	}
	return w.inner, nil
}
