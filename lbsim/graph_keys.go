package lbsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/param"
)

// The graph keys: the graph of the graph policies (neighbour-jsq,
// neighbour-jsq-first-idle, neighbour-jsqd, nbrw-jsqd), a topology and its
// parameters or an edge-list file. Checks that depend on the topology are in
// graphSpec.check.
const (
	keyTopology  = "topology"
	keyDegree    = "degree"
	keyP         = "p"
	keyRadius    = "radius"
	keySplit     = "split"
	keyClique    = "clique"
	keyGraph     = "graph"
	keyGraphSeed = "graph_seed"
)

// graphKeys lists the graph keys, for the policies that Use them.
var graphKeys = []string{keyTopology, keyDegree, keyP, keyRadius, keySplit, keyClique, keyGraph, keyGraphSeed}

// Topologies of the graph policies, in the order of the help text.
var topologies = []string{"complete", "er", "regular", "ring", "torus", "geometric", "split", "pendant"}

// randomTopology lists the topologies drawn from graph_seed.
var randomTopology = map[string]bool{"er": true, "regular": true, "geometric": true}

// graphChoice: a graph is a topology with its parameters, or a file.
var graphChoice = structureChoice{what: "graph", designKey: keyTopology, fileKey: keyGraph, designs: topologies,
	params: topologyKeys}

// topologyKeys lists, per topology, the graph keys it takes.
var topologyKeys = map[string][]string{
	"complete":  nil,
	"er":        {keyDegree, keyP},
	"regular":   {keyDegree},
	"ring":      {keyDegree},
	"torus":     nil,
	"geometric": {keyRadius},
	"split":     {keySplit},
	"pendant":   {keyClique},
}

var _ = declareGraphKeys()

func declareGraphKeys() bool {
	positive := func(what string) func(any, *param.Values) string {
		return func(x any, _ *param.Values) string {
			if f := x.(float64); !(f > 0) || math.IsInf(f, 0) {
				return "must be a finite " + what + " > 0"
			}
			return ""
		}
	}
	Keys.Add(
		param.Key{Name: keyTopology, Kind: param.String, Arg: "NAME", For: []string{}, Enum: topologies,
			Doc: "graph of the graph policies (servers are vertices; a task joins the shortest queue among its origin " +
				"and neighbours, or walkers move on it): torus needs servers = L*L; or give graph"},
		param.Key{Name: keyDegree, Kind: param.Float, Arg: "K", For: []string{}, Check: positive("degree"),
			Doc: "mean degree of er (in (0, N-1]), degree of regular (integer in [1, N-1], N*K even), degree of " +
				"ring (even integer in [2, N-1]: K/2 neighbours on each side)"},
		param.Key{Name: keyP, Kind: param.Float, Arg: "X", For: []string{}, Range: "in (0, 1]",
			Doc: "edge probability of er, instead of degree", Check: func(x any, _ *param.Values) string {
				if p := x.(float64); !(p > 0 && p <= 1) {
					return "must be an edge probability in (0, 1]"
				}
				return ""
			}},
		param.Key{Name: keyRadius, Kind: param.Float, Arg: "R", For: []string{}, Range: "in (0, 0.7071]",
			Doc: "connection radius of geometric, on the unit torus", Check: positive("radius")},
		param.Key{Name: keySplit, Kind: param.Float, Arg: "C", For: []string{}, Range: "in (0, 1]",
			Doc: "clique fraction of split: round(C*N) servers form a clique joined to all others", Check: positive("fraction")},
		param.Key{Name: keyClique, Kind: param.Int, Arg: "M", For: []string{}, Range: "in [1, N]",
			Doc: "clique size of pendant; the other servers hang off it round-robin", Check: param.IntAtLeast(1)},
		param.Key{Name: keyGraph, Kind: param.String, Arg: "FILE", For: []string{},
			Doc: "edge-list file for the graph policies instead of topology: \"u v\" per line, 0-based ids below N, # comments"},
		param.Key{Name: keyGraphSeed, Kind: param.Uint, Arg: "S", For: []string{}, DefaultDoc: "seed",
			Range: "an integer in [0, 2^64-1]", Doc: "seed of the random topologies er, regular and geometric",
			Default: func(v *param.Values) (any, bool) {
				return v.Uint(keySeed), randomTopology[v.String(keyTopology)] && !v.Has(keyGraph)
			}},
	)
	return true
}

// graphSpec is what the graph keys of a scenario say.
type graphSpec struct {
	servers  int
	topology string
	degree   float64
	p        float64
	radius   float64
	split    float64
	clique   int
	file     string
	seed     uint64
	hasSeed  bool
	params   [][2]string // the topology parameter keys given, with their values
}

// readGraphSpec reads the graph keys of completed values.
func readGraphSpec(v *param.Values) graphSpec {
	g := graphSpec{servers: v.Int(keyServers), topology: v.String(keyTopology), degree: v.Float(keyDegree),
		p: v.Float(keyP), radius: v.Float(keyRadius), split: v.Float(keySplit), clique: v.Int(keyClique),
		file: v.String(keyGraph), seed: v.Uint(keyGraphSeed), hasSeed: v.Has(keyGraphSeed)}
	for _, k := range []string{keyDegree, keyP, keyRadius, keySplit, keyClique} {
		if v.Has(k) {
			g.params = append(g.params, [2]string{k, param.Format(v.Get(k))})
		}
	}
	return g
}

// maxEntries bounds the directed entries of the dense generators (split,
// pendant), as package graph does.
const maxEntries = graph.MaxMaterialize

// check validates the graph keys of sp for a graph policy without
// generating anything. Errors name the key and its allowed range.
func (sp graphSpec) check(policy string) error {
	n := sp.servers
	if err := graphChoice.check(policy, sp.topology, sp.file, sp.params); err != nil || sp.file != "" {
		return err
	}
	integer := func(x float64) bool { return x == math.Trunc(x) && math.Abs(x) < 1<<53 }
	switch sp.topology {
	case "er":
		switch {
		case sp.degree != 0 && sp.p != 0:
			return fmt.Errorf("p = %v: topology er takes degree (mean degree) or p (edge probability), not both", sp.p)
		case sp.degree == 0 && sp.p == 0:
			return fmt.Errorf("degree: topology er needs degree (mean degree, in (0, servers-1]) or p (edge probability, in (0, 1])")
		case sp.p != 0 && !(sp.p > 0 && sp.p <= 1):
			return fmt.Errorf("p = %v: must be an edge probability in (0, 1]", sp.p)
		case sp.degree != 0 && !(sp.degree > 0 && sp.degree <= float64(n-1)):
			return fmt.Errorf("degree = %v: the mean degree of er must be > 0 and at most servers-1 (%d)", sp.degree, n-1)
		}
	case "regular":
		switch {
		case !integer(sp.degree) || sp.degree < 1 || sp.degree > float64(n-1):
			return fmt.Errorf("degree = %v: must be an integer between 1 and servers-1 (%d) for topology regular", sp.degree, n-1)
		case n*int(sp.degree)%2 != 0:
			return fmt.Errorf("degree = %v: servers*degree must be even for topology regular (servers = %d)", sp.degree, n)
		}
	case "ring":
		if !integer(sp.degree) || sp.degree < 2 || int(sp.degree)%2 != 0 || sp.degree > float64(n-1) {
			return fmt.Errorf("degree = %v: must be an even integer between 2 and servers-1 (%d) for topology ring "+
				"(degree/2 neighbours on each side)", sp.degree, n-1)
		}
	case "torus":
		if l := int(math.Round(math.Sqrt(float64(n)))); l*l != n || l < 3 {
			return fmt.Errorf("servers = %d: topology torus needs servers to be a perfect square L*L with L >= 3 (9, 16, 25, ...)", n)
		}
	case "geometric":
		if !(sp.radius > 0 && sp.radius <= math.Sqrt2/2) {
			return fmt.Errorf("radius = %v: topology geometric needs a radius in (0, %.6g] (unit torus)", sp.radius, math.Sqrt2/2)
		}
	case "split":
		if !(sp.split > 0 && sp.split <= 1) {
			return fmt.Errorf("split = %v: topology split needs a clique fraction in (0, 1]", sp.split)
		}
		m := math.Round(sp.split * float64(n))
		if e := m*float64(n-1) + (float64(n)-m)*m; e > maxEntries {
			return fmt.Errorf("split = %v: the graph would have %.4g directed entries, more than %d; lower split or servers", sp.split, e, maxEntries)
		}
	case "pendant":
		switch {
		case sp.clique < 1 || sp.clique > n:
			return fmt.Errorf("clique = %d: topology pendant needs a clique size between 1 and servers (%d)", sp.clique, n)
		case float64(sp.clique)*float64(sp.clique) > maxEntries:
			return fmt.Errorf("clique = %d: the clique would have more than %d directed entries", sp.clique, maxEntries)
		}
	}
	return nil
}

// BuildGraph returns the graph that the graph keys of sp describe (after
// defaults), on sp.servers vertices: for a graph policy, the topology
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
// graph_seed (default: seed), so the same spec always gives the same graph,
// independently of the replications' streams.
func (sp graphSpec) build() (*graph.Graph, error) {
	if err := sp.check("a graph policy"); err != nil {
		return nil, err
	}
	n := sp.servers
	if sp.file != "" {
		f, err := os.Open(sp.file)
		if err != nil {
			return nil, fmt.Errorf("graph = %q: %v", sp.file, err)
		}
		defer f.Close()
		g, err := graph.ReadEdgeList(f, n)
		if err != nil {
			return nil, fmt.Errorf("graph = %q: %v (ids must be below servers = %d)", sp.file, err, n)
		}
		return g, nil
	}
	seed := sp.seed
	rng := rand.New(rand.NewPCG(mc.SplitMix(seed^0x510e527fade682d1), mc.SplitMix(seed^0x9b05688c2b3e6c1f)))
	var g *graph.Graph
	var err error
	switch sp.topology {
	case "complete":
		g, err = graph.Complete(n)
	case "er":
		if sp.p != 0 {
			g, err = graph.ErdosRenyi(n, sp.p, rng)
		} else {
			g, err = graph.ErdosRenyiMeanDegree(n, sp.degree, rng)
		}
	case "regular":
		g, err = graph.RandomRegular(n, int(sp.degree), rng)
	case "ring":
		g, err = graph.Ring(n, int(sp.degree)/2)
	case "torus":
		g, err = graph.Torus(int(math.Round(math.Sqrt(float64(n)))))
	case "geometric":
		g, _, err = graph.RandomGeometric(n, sp.radius, rng)
	case "split":
		g, err = graph.CompleteSplit(n, sp.split)
	case "pendant":
		g, err = graph.CliquePendant(n, sp.clique)
	}
	if err != nil {
		return nil, fmt.Errorf("topology = %s: %w", sp.topology, err)
	}
	return g, nil
}

// description names the graph of sp in a policy name.
func (sp graphSpec) description() string {
	if sp.file != "" {
		return fmt.Sprintf("graph=%s", sp.file)
	}
	s := "topology=" + sp.topology
	for _, kv := range sp.params {
		s += "," + kv[0] + "=" + kv[1]
	}
	return s
}

// newGraphPolicy returns the graph policy build makes on the graph of the
// completed values v, generated on first use (see lazyPolicy); an edge-list
// file and the implicit complete graph are loaded at once. Tasks have
// origins. name is the policy's name before the graph's description.
func newGraphPolicy(v *param.Values, name string, build func(*graph.Graph) Policy) (*lazyPolicy, error) {
	sp := readGraphSpec(v)
	if err := sp.check(v.String(keyPolicy)); err != nil {
		return nil, err
	}
	return newLazyOn(name+sp.description()+")", true, sp.file != "" || sp.topology == "complete", sp.build, build)
}
