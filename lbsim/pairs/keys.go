package pairs

import (
	"fmt"
	"os"
	"slices"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/param"
)

// KeyPairs is the scenario key of pair sampling: "uniform", a topology of
// package graph (the pairs are its edges, with the graph keys' parameters),
// or a weighted edge-list file ("u v [w]" lines).
const KeyPairs = "pairs"

// KeyNames lists the keys of pair sampling: pairs and the parameters of a
// topology (not the graph keys topology and graph, which pairs replaces).
var KeyNames = []string{KeyPairs, graph.KeyDegree, graph.KeyP, graph.KeyRadius, graph.KeySplit, graph.KeyClique,
	graph.KeyGraphSeed}

// Keys declares the pairs key, used by no variant until one declares that
// it uses it (For is empty). The topology parameters are graph.Keys'.
func Keys() []param.Key {
	return []param.Key{{Name: KeyPairs, Kind: param.String, Arg: "uniform|TOPOLOGY|FILE", For: []string{},
		DefaultDoc: "uniform", Default: param.Constant("uniform"),
		Doc: "the server pairs tasks sample: uniform (every pair alike), a topology of the graph keys (its edges, " +
			"each alike; with degree, p, radius, split, clique, graph_seed) or an edge-list file of weighted pairs " +
			"(\"u v [w]\" per line, w >= 0, default 1)",
		Check: func(x any, _ *param.Values) string {
			s := x.(string)
			if s == "uniform" || slices.Contains(graph.Topologies, s) {
				return ""
			}
			st, err := os.Stat(s)
			if err != nil {
				return fmt.Sprintf("must be uniform, a topology (%v) or an edge-list file", graph.Topologies)
			}
			if !st.Mode().IsRegular() { // read twice (checked, then built): a pipe would not do
				return "not a regular file; an edge-list file of pairs must be a regular file"
			}
			return ""
		}}}
}

// FromValues returns the distribution that completed values describe, over
// sets of d of servers servers (d = 2 unless pairs is uniform). It refuses
// topology parameters that the pairs do not take and servers that no pair
// covers (they would receive no work).
func FromValues(v *param.Values, servers, d int) (*Dist, error) {
	sp, err := check(v, servers, d)
	if err != nil {
		return nil, err
	}
	s := v.String(KeyPairs)
	var dist *Dist
	switch {
	case s == "uniform":
		dist, err = Uniform(servers, d)
	case slices.Contains(graph.Topologies, s):
		g, gerr := sp.Build()
		if gerr != nil {
			return nil, gerr
		}
		dist, err = FromGraph(g)
	default:
		f, ferr := param.Open(s, param.MaxDataFileBytes)
		if ferr != nil {
			return nil, fmt.Errorf("%s = %q: %v", KeyPairs, s, ferr)
		}
		defer f.Close()
		dist, err = ReadEdgeList(f, servers)
	}
	if err != nil {
		return nil, fmt.Errorf("%s = %q: %v", KeyPairs, s, err)
	}
	if u := dist.Uncovered(); len(u) > 0 {
		return nil, fmt.Errorf("%s = %q: server %d (and %d others) is in no pair and would receive no work; "+
			"give every server a pair", KeyPairs, s, u[0], len(u)-1)
	}
	return dist, nil
}

// Check validates the pair-sampling keys of completed values without
// generating a topology (a graph of a million servers takes a while): what
// FromValues checks, except what needs the generated graph (servers that a
// sparse random graph leaves without a pair). An edge-list file is read and
// checked in full, so that a malformed file is invalid input.
func Check(v *param.Values, servers, d int) error {
	if _, err := check(v, servers, d); err != nil {
		return err
	}
	if s := v.String(KeyPairs); s != "uniform" && !slices.Contains(graph.Topologies, s) {
		_, err := FromValues(v, servers, d)
		return err
	}
	return nil
}

func check(v *param.Values, servers, d int) (graph.Spec, error) {
	s := v.String(KeyPairs)
	if s != "uniform" && d != 2 {
		return graph.Spec{}, fmt.Errorf("%s = %q: gives pairs; d must be 2 (d = %d)", KeyPairs, s, d)
	}
	var sp graph.Spec
	switch {
	case s == "uniform":
		for _, k := range KeyNames[1:] {
			if v.Has(k) && k != graph.KeyGraphSeed {
				return graph.Spec{}, fmt.Errorf("%s = %s: pairs uniform takes no %s (a topology parameter)", k, param.Format(v.Get(k)), k)
			}
		}
		sp = graph.NewSpec(v, servers, "complete", "")
	case slices.Contains(graph.Topologies, s):
		sp = graph.NewSpec(v, servers, s, "")
	default:
		sp = graph.NewSpec(v, servers, "", s)
	}
	if err := sp.Check("pairs"); err != nil {
		return graph.Spec{}, err
	}
	return sp, nil
}
