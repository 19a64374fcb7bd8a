package lbsim

import (
	"github.com/lbsim/notebooks/lbsim/compat"
	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/param"
)

// completedKeys sets keys (named like the keys of a scenario file) and
// completes them (defaults and the checks of each key).
func completedKeys(keys map[string]any) (*param.Values, error) {
	v := Keys.New()
	for name, x := range keys {
		if err := v.Set(name, x); err != nil {
			return nil, err
		}
	}
	if err := Keys.Complete(v); err != nil {
		return nil, err
	}
	return v, nil
}

// GraphFromKeys builds the graph that the graph keys of a scenario describe
// (after defaults), for the external tests.
func GraphFromKeys(keys map[string]any) (*graph.Graph, error) {
	v, err := completedKeys(keys)
	if err != nil {
		return nil, err
	}
	return graph.SpecFromValues(v, v.Int("servers")).Build()
}

// CompatFromKeys builds the compatibility graph that the compatibility keys
// of a scenario describe (after defaults), for the external tests.
func CompatFromKeys(keys map[string]any) (*compat.Graph, error) {
	v, err := completedKeys(keys)
	if err != nil {
		return nil, err
	}
	return readCompatSpec(v).build()
}
