package lbsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// Topologies of the graph policies in a Spec, in the order of the help text.
var topologies = []string{"complete", "er", "regular", "ring", "torus", "geometric", "split", "pendant"}

// takesGraph lists the built-in policies that read the graph keys of a Spec.
var takesGraph = map[string]bool{"neighbour-jsq": true, "neighbour-jsq-first-idle": true, "neighbour-jsqd": true, "nbrw-jsqd": true}

// randomTopology lists the topologies drawn from GraphSeed.
var randomTopology = map[string]bool{"er": true, "regular": true, "geometric": true}

// topologyKeys lists, per topology, the graph keys it takes.
var topologyKeys = map[string][]string{
	"complete":  nil,
	"er":        {"degree", "p"},
	"regular":   {"degree"},
	"ring":      {"degree"},
	"torus":     nil,
	"geometric": {"radius"},
	"split":     {"split"},
	"pendant":   {"clique"},
}

// graphParams returns the graph parameter keys (other than topology, graph
// and graph_seed) that sp sets, with their values as written in messages.
func (sp Spec) graphParams() [][2]string {
	var set [][2]string
	add := func(key string, ok bool, v any) {
		if ok {
			set = append(set, [2]string{key, fmt.Sprint(v)})
		}
	}
	add("degree", sp.Degree != 0, sp.Degree)
	add("p", sp.P != 0, sp.P)
	add("radius", sp.Radius != 0, sp.Radius)
	add("split", sp.Split != 0, sp.Split)
	add("clique", sp.Clique != 0, sp.Clique)
	return set
}

// noGraph rejects the graph keys for a policy that takes no graph.
func (sp Spec) noGraph(policy string) error {
	switch {
	case sp.Topology != "":
		return fmt.Errorf("topology = %q: policy %s takes no topology", sp.Topology, policy)
	case sp.Graph != "":
		return fmt.Errorf("graph = %q: policy %s takes no graph", sp.Graph, policy)
	case sp.GraphSeed != nil:
		return fmt.Errorf("graph_seed = %d: policy %s takes no graph", *sp.GraphSeed, policy)
	}
	if set := sp.graphParams(); len(set) > 0 {
		return fmt.Errorf("%s = %s: policy %s takes no %s (a graph parameter)", set[0][0], set[0][1], policy, set[0][0])
	}
	return nil
}

// maxEntries bounds the directed entries of the dense generators (split,
// pendant), as package graph does.
const maxEntries = graph.MaxMaterialize

// checkGraphSpec validates the graph keys of sp for a graph policy without
// generating anything. Errors name the key and its allowed range.
func (sp Spec) checkGraphSpec(policy string) error {
	n := sp.Servers
	if sp.Graph != "" {
		if sp.Topology != "" {
			return fmt.Errorf("graph = %q: give either topology or graph (an edge-list file), not both", sp.Graph)
		}
		if set := sp.graphParams(); len(set) > 0 {
			return fmt.Errorf("%s = %s: a graph from a file takes no %s", set[0][0], set[0][1], set[0][0])
		}
		st, err := os.Stat(sp.Graph)
		if err != nil {
			return fmt.Errorf("graph = %q: %v", sp.Graph, err)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("graph = %q: not a regular file", sp.Graph)
		}
		return nil
	}
	keys, ok := topologyKeys[sp.Topology]
	if !ok {
		all := strings.Join(topologies, ", ")
		if sp.Topology == "" {
			return fmt.Errorf("topology: required for %s; one of %s (or graph: an edge-list file)", policy, all)
		}
		return fmt.Errorf("topology = %q: unknown; must be one of %s", sp.Topology, all)
	}
	for _, kv := range sp.graphParams() {
		allowed := false
		for _, k := range keys {
			allowed = allowed || k == kv[0]
		}
		if !allowed {
			return fmt.Errorf("%s = %s: topology %s takes no %s", kv[0], kv[1], sp.Topology, kv[0])
		}
	}
	integer := func(x float64) bool { return x == math.Trunc(x) && math.Abs(x) < 1<<53 }
	switch sp.Topology {
	case "er":
		switch {
		case sp.Degree != 0 && sp.P != 0:
			return fmt.Errorf("p = %v: topology er takes degree (mean degree) or p (edge probability), not both", sp.P)
		case sp.Degree == 0 && sp.P == 0:
			return fmt.Errorf("degree: topology er needs degree (mean degree, in (0, servers-1]) or p (edge probability, in (0, 1])")
		case sp.P != 0 && !(sp.P > 0 && sp.P <= 1):
			return fmt.Errorf("p = %v: must be an edge probability in (0, 1]", sp.P)
		case sp.Degree != 0 && !(sp.Degree > 0 && sp.Degree <= float64(n-1)):
			return fmt.Errorf("degree = %v: the mean degree of er must be > 0 and at most servers-1 (%d)", sp.Degree, n-1)
		}
	case "regular":
		switch {
		case !integer(sp.Degree) || sp.Degree < 1 || sp.Degree > float64(n-1):
			return fmt.Errorf("degree = %v: must be an integer between 1 and servers-1 (%d) for topology regular", sp.Degree, n-1)
		case n*int(sp.Degree)%2 != 0:
			return fmt.Errorf("degree = %v: servers*degree must be even for topology regular (servers = %d)", sp.Degree, n)
		}
	case "ring":
		if !integer(sp.Degree) || sp.Degree < 2 || int(sp.Degree)%2 != 0 || sp.Degree > float64(n-1) {
			return fmt.Errorf("degree = %v: must be an even integer between 2 and servers-1 (%d) for topology ring "+
				"(degree/2 neighbours on each side)", sp.Degree, n-1)
		}
	case "torus":
		if l := int(math.Round(math.Sqrt(float64(n)))); l*l != n || l < 3 {
			return fmt.Errorf("servers = %d: topology torus needs servers to be a perfect square L*L with L >= 3 (9, 16, 25, ...)", n)
		}
	case "geometric":
		if !(sp.Radius > 0 && sp.Radius <= math.Sqrt2/2) {
			return fmt.Errorf("radius = %v: topology geometric needs a radius in (0, %.6g] (unit torus)", sp.Radius, math.Sqrt2/2)
		}
	case "split":
		if !(sp.Split > 0 && sp.Split <= 1) {
			return fmt.Errorf("split = %v: topology split needs a clique fraction in (0, 1]", sp.Split)
		}
		m := math.Round(sp.Split * float64(n))
		if e := m*float64(n-1) + (float64(n)-m)*m; e > maxEntries {
			return fmt.Errorf("split = %v: the graph would have %.4g directed entries, more than %d; lower split or servers", sp.Split, e, maxEntries)
		}
	case "pendant":
		switch {
		case sp.Clique < 1 || sp.Clique > n:
			return fmt.Errorf("clique = %d: topology pendant needs a clique size between 1 and servers (%d)", sp.Clique, n)
		case float64(sp.Clique)*float64(sp.Clique) > maxEntries:
			return fmt.Errorf("clique = %d: the clique would have more than %d directed entries", sp.Clique, maxEntries)
		}
	}
	return nil
}

// BuildGraph returns the graph that the graph keys of sp describe (after
// defaults), on sp.Servers vertices: for a graph policy, the topology
//
//   - complete: the implicit complete graph (graph policies are then JSQ,
//     with O(1) dispatch);
//   - er: Erdos-Renyi G(N, p), with p given or p = degree/(N-1) for a mean
//     degree;
//   - regular: a random degree-regular graph (N*degree even);
//   - ring: the ring lattice with degree/2 neighbours on each side (degree
//     even, < N);
//   - torus: the L x L torus, N = L*L, 4 neighbours each;
//   - geometric: random geometric graph on the unit torus with the radius;
//   - split: complete split graph, a clique of round(split*N) vertices joined
//     to all others;
//   - pendant: a clique of clique vertices, each other vertex hanging off one
//     of them;
//
// or the edge-list file Graph ("u v" per line, ids < N). The random
// topologies (er, regular, geometric) draw from a stream determined by
// GraphSeed (default: Seed), so the same spec always gives the same graph,
// independently of the replications' streams.
func (sp Spec) BuildGraph() (*graph.Graph, error) {
	sp = sp.WithDefaults()
	if err := sp.checkGraphSpec("a graph policy"); err != nil {
		return nil, err
	}
	n := sp.Servers
	if sp.Graph != "" {
		f, err := os.Open(sp.Graph)
		if err != nil {
			return nil, fmt.Errorf("graph = %q: %v", sp.Graph, err)
		}
		defer f.Close()
		g, err := graph.ReadEdgeList(f, n)
		if err != nil {
			return nil, fmt.Errorf("graph = %q: %v (ids must be below servers = %d)", sp.Graph, err, n)
		}
		return g, nil
	}
	var seed uint64
	if sp.GraphSeed != nil {
		seed = *sp.GraphSeed
	}
	rng := rand.New(rand.NewPCG(splitmix(seed^0x510e527fade682d1), splitmix(seed^0x9b05688c2b3e6c1f)))
	var g *graph.Graph
	var err error
	switch sp.Topology {
	case "complete":
		g, err = graph.Complete(n)
	case "er":
		if sp.P != 0 {
			g, err = graph.ErdosRenyi(n, sp.P, rng)
		} else {
			g, err = graph.ErdosRenyiMeanDegree(n, sp.Degree, rng)
		}
	case "regular":
		g, err = graph.RandomRegular(n, int(sp.Degree), rng)
	case "ring":
		g, err = graph.Ring(n, int(sp.Degree)/2)
	case "torus":
		g, err = graph.Torus(int(math.Round(math.Sqrt(float64(n)))))
	case "geometric":
		g, _, err = graph.RandomGeometric(n, sp.Radius, rng)
	case "split":
		g, err = graph.CompleteSplit(n, sp.Split)
	case "pendant":
		g, err = graph.CliquePendant(n, sp.Clique)
	}
	if err != nil {
		return nil, fmt.Errorf("topology = %s: %w", sp.Topology, err)
	}
	return g, nil
}

// graphDescription names the graph of sp in a policy name.
func (sp Spec) graphDescription() string {
	if sp.Graph != "" {
		return fmt.Sprintf("graph=%s", sp.Graph)
	}
	s := "topology=" + sp.Topology
	for _, kv := range sp.graphParams() {
		s += "," + kv[0] + "=" + kv[1]
	}
	return s
}

func registerGraphPolicies() {
	registerWalkPolicy()
	noSampling := func(name string, sp Spec) error {
		if sp.Sampling != "" {
			return fmt.Errorf("sampling = %q: policy %s takes no sampling", sp.Sampling, name)
		}
		return sp.checkGraphSpec(name)
	}
	RegisterPolicy("neighbour-jsq", func(sp Spec) (Policy, error) {
		if sp.D != 0 {
			return nil, fmt.Errorf("d = %d: policy neighbour-jsq takes no d (it considers all neighbours; see neighbour-jsqd)", sp.D)
		}
		if err := noSampling("neighbour-jsq", sp); err != nil {
			return nil, err
		}
		return newSpecGraphPolicy(sp, "neighbour-jsq("+sp.graphDescription()+")", NeighbourJSQ)
	})
	// The first-idle scan from a random offset (NeighbourJSQFirstIdle): a
	// different tie-break among idle neighbours, hence its own name.
	RegisterPolicy("neighbour-jsq-first-idle", func(sp Spec) (Policy, error) {
		if sp.D != 0 {
			return nil, fmt.Errorf("d = %d: policy neighbour-jsq-first-idle takes no d", sp.D)
		}
		if err := noSampling("neighbour-jsq-first-idle", sp); err != nil {
			return nil, err
		}
		return newSpecGraphPolicy(sp, "neighbour-jsq-first-idle("+sp.graphDescription()+")", NeighbourJSQFirstIdle)
	})
	RegisterPolicy("neighbour-jsqd", func(sp Spec) (Policy, error) {
		if err := noSampling("neighbour-jsqd", sp); err != nil {
			return nil, err
		}
		d := sp.D
		if d == 0 {
			d = 2
		}
		if d < 1 {
			return nil, fmt.Errorf("d = %d: must be between 1 and servers (%d)", d, sp.Servers)
		}
		return newSpecGraphPolicy(sp, fmt.Sprintf("neighbour-jsqd(d=%d,%s)", d, sp.graphDescription()),
			func(g *graph.Graph) Policy { return NeighbourJSQd(g, d) })
	})
}

// newSpecGraphPolicy returns the graph policy build makes on the graph of
// sp, generated on first use (see lazyPolicy); an edge-list file and the
// implicit complete graph are loaded at once. Tasks have origins.
func newSpecGraphPolicy(sp Spec, name string, build func(*graph.Graph) Policy) (Policy, error) {
	w := newLazyPolicy(name, true, func() (Policy, error) {
		g, err := sp.BuildGraph()
		if err != nil {
			return nil, err
		}
		return build(g), nil
	})
	if sp.Graph != "" || sp.Topology == "complete" {
		if _, err := w.load(); err != nil {
			return nil, err
		}
	}
	return w, nil
}
