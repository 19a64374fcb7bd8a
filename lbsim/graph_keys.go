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
	sp := graph.SpecFromValues(v, v.Int(keyServers))
	if err := sp.Check(v.String(keyPolicy)); err != nil {
		return nil, err
	}
	return newLazyOn(name+sp.String()+")", true, sp.Eager(), sp.Build, build)
}
