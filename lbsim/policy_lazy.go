package lbsim

import (
	"math/rand/v2"
	"sync"
)

// lazyPolicy is a policy built from a Spec whose structure (a graph, a
// compatibility graph) is made on first use (Prepare or Route), once, and
// shared by the replications, so that validating a spec (ParseSpec,
// Scenario) stays cheap even when the structure takes seconds and gigabytes
// to generate. The spec builders load at once what comes from a file, so that
// a malformed file is invalid input.
//
// It forwards the optional interfaces the built policies have: Preparer and
// ExactRouter always, its Needs' origin as told (origin), and StatefulRouter in
// statefulLazyPolicy.
type lazyPolicy struct {
	name   string
	keys   map[string]any // set by buildPolicy's caller: the keys it was built from
	origin bool
	make   func() (Policy, error)
	once   sync.Once
	p      Policy
	err    error
}

func newLazyPolicy(name string, origin bool, make func() (Policy, error)) *lazyPolicy {
	return &lazyPolicy{name: name, origin: origin, make: make}
}

// newLazyOn returns the lazyPolicy named name that makes its structure
// (a graph, a compatibility graph) with structure and the policy on it with
// build. eager loads it at once: a structure read from a file, or an
// implicit one that costs nothing, so that a malformed file is invalid input.
func newLazyOn[G any](name string, origin, eager bool, structure func() (G, error), build func(G) Policy) (*lazyPolicy, error) {
	w := newLazyPolicy(name, origin, func() (Policy, error) {
		g, err := structure()
		if err != nil {
			return nil, err
		}
		return build(g), nil
	})
	if eager {
		if _, err := w.load(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func (w *lazyPolicy) load() (Policy, error) {
	w.once.Do(func() { w.p, w.err = w.make() })
	return w.p, w.err
}

func (w *lazyPolicy) Name() string { return w.name }

// ScenarioKeys returns the keys the policy was built from.
func (w *lazyPolicy) ScenarioKeys() map[string]any { return w.keys }

// Uses declares the origin as told, without building the policy (the
// engines read the needs of the prepared, built, policy).
func (w *lazyPolicy) Uses() Needs { return Needs{Origin: w.origin} }

// Dispatch is that of the prepared policy; the engines always call Prepare
// first.
func (w *lazyPolicy) Dispatch(s *State, origin int, r *rand.Rand) int {
	p, err := w.load()
	if err != nil {
		panic(err)
	}
	return p.Dispatch(s, origin, r)
}

func (w *lazyPolicy) Prepare(sys System) (Policy, error) {
	p, err := w.load()
	if err != nil {
		return nil, err
	}
	return p.(Preparer).Prepare(sys)
}

func (w *lazyPolicy) Route(sys System, lengths []int, pstate int, origin int, out []Choice) []Choice {
	p, err := w.load()
	if err != nil {
		panic(err)
	}
	return p.(ExactRouter).Route(sys, lengths, pstate, origin, out)
}

// statefulLazyPolicy is a lazyPolicy whose built policy is a StatefulRouter
// (its internal state, such as walker positions, is part of the exact chain).
type statefulLazyPolicy struct{ *lazyPolicy }

func (w statefulLazyPolicy) PolicyStates(sys System) int {
	p, err := w.load()
	if err != nil {
		return 1 // Prepare reports the error
	}
	return p.(StatefulRouter).PolicyStates(sys)
}
