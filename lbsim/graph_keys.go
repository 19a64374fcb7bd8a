package lbsim

import (
	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/param"
)

// The graph keys (package graph: topology and its parameters, or an edge-list
// file) are the keys of the graph policies (neighbour-jsq,
// neighbour-jsq-first-idle, neighbour-jsqd, nbrw-jsqd).
var graphKeys = graph.KeyNames

var _ = declareGraphKeys()

func declareGraphKeys() bool {
	Keys.Add(graph.Keys()...)
	return true
}

// newGraphPolicy returns the graph policy build makes on the graph of the
// completed values v, generated on first use (see lazyPolicy); an edge-list
// file and the implicit complete graph are loaded at once. Tasks have
// origins. name is the policy's name before the graph's description.
func newGraphPolicy(v *param.Values, name string, build func(*graph.Graph) Policy) (*lazyPolicy, error) {
	return newGraphPolicyOn(graph.SpecFromValues(v, v.Int(keyServers)), v, name, build)
}

// newListFreeGraphPolicy is newGraphPolicy for a policy that reads an
// er-implicit graph through its PairHash only (neighbour-jsq), so that the
// graph's size is not bounded by the cost of its lists.
func newListFreeGraphPolicy(v *param.Values, name string, build func(*graph.Graph) Policy) (*lazyPolicy, error) {
	return newGraphPolicyOn(graph.SpecFromValues(v, v.Int(keyServers)).ListFree(), v, name, build)
}

func newGraphPolicyOn(sp graph.Spec, v *param.Values, name string, build func(*graph.Graph) Policy) (*lazyPolicy, error) {
	if err := sp.Check(v.String(keyPolicy)); err != nil {
		return nil, err
	}
	return newLazyOn(name+sp.String()+")", true, sp.Eager(), sp.Build, build)
}
