package lbsim

import "github.com/lbsim/notebooks/lbsim/graph"

// Needs is what a policy declares to the engines, in one value (as gonum's
// optimize.Method states what it uses): what the engine must provide for its
// Dispatch, and which dispatch rule of the engines' own, if any, its Dispatch
// follows, so that an engine can carry it out inline. The engine choice
// (engine_choice.go) and the engines read only this declaration: none of
// them names a policy.
//
// A policy declares its needs by implementing NeedsDeclarer; a policy that
// does not needs nothing (origin -1, no order, no workloads) and has no
// inline rule.
type Needs struct {
	// Origin: the decision depends on the server where the task appeared
	// (graph policies). The engine draws an origin per arrival; a policy
	// without it receives origin -1.
	Origin bool
	// ShortestOrder: Dispatch calls State.RandomShortest or State.MinLen on
	// every arrival, and the engine keeps the servers sorted by length,
	// which makes those calls O(1) (JSQ).
	ShortestOrder bool
	// Workload: Dispatch reads State.Workload (the unfinished work at a
	// server), which only the general engine tracks. Run runs such a policy
	// on EngineGeneral (with exponential service when Scenario.Service is
	// nil) and refuses the Markov engines for it.
	Workload bool

	// idleBits: Dispatch reads State.idleBits (scans for an idle server),
	// which the engine then keeps (one bit flip per idle<->busy transition).
	idleBits bool
	// slowDispatch: one Dispatch can take O(N) work (it tests the servers
	// of a level one by one against an implicit graph: about N/degree tests
	// an arrival on er-implicit), so the engines check for cancellation
	// after every event instead of every checkEvery events, and a signal
	// ends a run of 10^7 servers within a second. The checks do not change
	// any draw.
	slowDispatch bool
	// inline is the engines' own dispatch rule that Dispatch follows.
	inline inlineRule
}

// A NeedsDeclarer is a Policy that declares its Needs. Uses must not
// depend on the state: the engines read it once per run or replication, on
// the scenario's policy and on the value Prepare returns.
type NeedsDeclarer interface {
	Uses() Needs
}

// NeedsOf returns what p declares (Needs), or nothing if p declares nothing.
func NeedsOf(p Policy) Needs {
	if d, ok := p.(NeedsDeclarer); ok {
		return d.Uses()
	}
	return Needs{}
}

// checkMask returns the mask m of the engines' checks for cancellation and
// progress: they check when events&m == 0, every checkEvery events, or
// every event for a policy with slowDispatch.
func (n Needs) checkMask() int64 {
	if n.slowDispatch {
		return 0
	}
	return checkEvery - 1
}

// inlineKind names a dispatch rule that the engines carry out themselves,
// from their own draws, in the same law as the policy's Dispatch.
type inlineKind uint8

const (
	noInline inlineKind = iota
	// sampleShortest: the shortest of d uniform servers, drawn with
	// replacement (with) or without, ties to the first drawn (JSQ(d);
	// random routing is d = 1 with replacement). The uniformized engine
	// runs exactly these; the per-server and general engines have loops
	// for some d (arrivalLoop, runGeneral).
	sampleShortest
	// joinShortest: a uniform server among the shortest of all N, from the
	// full length order (JSQ).
	joinShortest
	// localPair: the shorter of the origin and one uniform neighbour of it
	// in graph, a tie to either with probability 1/2 (two local choices).
	localPair
)

// inlineRule is a dispatch rule of the engines' own (inlineKind) with its
// parameters. The zero value is none.
type inlineRule struct {
	kind  inlineKind
	d     int          // sampleShortest: the number of servers sampled
	with  bool         // sampleShortest: with replacement (always for d = 1)
	graph *graph.Graph // localPair: the graph of the neighbours
	// check refuses a number of servers the rule cannot run on (d > N), as
	// the policy's Prepare would; nil accepts any.
	check func(n int) error
}

// forwarded is what a wrapper (DrawCounter, Tagger) declares for the policy
// it wraps: the same needs, so that the engine serves it as it would
// unwrapped, but no inline rule, since the wrapper must see every Dispatch.
func forwarded(inner Policy) Needs {
	u := NeedsOf(inner)
	u.inline = inlineRule{}
	return u
}
