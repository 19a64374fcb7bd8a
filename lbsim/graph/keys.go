package graph

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/param"
)

// The scenario keys of a graph (package param): a topology and its
// parameters, or an edge-list file, and the seed of the random topologies.
// Every model whose structure is a graph on its servers (the graph policies
// of the dispatch simulator, pair sampling, ...) declares these keys with
// Keys and reads them with SpecFromValues. Checks that depend on the topology
// are in Spec.Check.
const (
	KeyTopology  = "topology"
	KeyDegree    = "degree"
	KeyP         = "p"
	KeyRadius    = "radius"
	KeySplit     = "split"
	KeyClique    = "clique"
	KeyGraph     = "graph"
	KeyGraphSeed = "graph_seed"
)

// KeyNames lists the graph keys, for the variants that use them.
var KeyNames = []string{KeyTopology, KeyDegree, KeyP, KeyRadius, KeySplit, KeyClique, KeyGraph, KeyGraphSeed}

// Topologies are the values of the topology key, in the order of the help.
var Topologies = []string{"complete", "er", "er-implicit", "regular", "ring", "torus", "geometric", "split", "pendant"}

// randomTopology lists the topologies drawn from graph_seed.
var randomTopology = map[string]bool{"er": true, "er-implicit": true, "regular": true, "geometric": true}

// graphChoice: a graph is a topology with its parameters, or a file.
var graphChoice = param.DesignOrFile{What: "graph", DesignKey: KeyTopology, FileKey: KeyGraph, Designs: Topologies,
	Params: topologyKeys}

// topologyKeys lists, per topology, the graph keys it takes.
var topologyKeys = map[string][]string{
	"complete":    nil,
	"er":          {KeyDegree, KeyP},
	"er-implicit": {KeyDegree, KeyP},
	"regular":     {KeyDegree},
	"ring":        {KeyDegree},
	"torus":       nil,
	"geometric":   {KeyRadius},
	"split":       {KeySplit},
	"pendant":     {KeyClique},
}

// Keys declares the graph keys, used by no variant until a variant of the
// model declares that it uses them (For is empty). The default of graph_seed
// is the model's "seed" key.
func Keys() []param.Key {
	positive := func(what string) func(any, *param.Values) string {
		return func(x any, _ *param.Values) string {
			if f := x.(float64); !(f > 0) || math.IsInf(f, 0) {
				return "must be a finite " + what + " > 0"
			}
			return ""
		}
	}
	return []param.Key{
		{Name: KeyTopology, Kind: param.String, Arg: "NAME", For: []string{}, Enum: Topologies,
			Doc: "graph on the servers (of the graph policies: a task joins the shortest queue among its origin and " +
				"neighbours, or walkers move on it; of pair sampling: its edges are the pairs): torus needs servers = L*L; " +
				"or give graph"},
		{Name: KeyDegree, Kind: param.Float, Arg: "K", For: []string{}, Check: positive("degree"),
			Doc: "mean degree of er and er-implicit (in (0, N-1]), degree of regular (integer in [1, N-1], N*K even), degree of " +
				"ring (even integer in [2, N-1]: K/2 neighbours on each side)"},
		{Name: KeyP, Kind: param.Float, Arg: "X", For: []string{}, Range: "in (0, 1]",
			Doc: "edge probability of er and er-implicit, instead of degree", Check: func(x any, _ *param.Values) string {
				if p := x.(float64); !(p > 0 && p <= 1) {
					return "must be an edge probability in (0, 1]"
				}
				return ""
			}},
		{Name: KeyRadius, Kind: param.Float, Arg: "R", For: []string{}, Range: "in (0, 0.7071]",
			Doc: "connection radius of geometric, on the unit torus", Check: positive("radius")},
		{Name: KeySplit, Kind: param.Float, Arg: "C", For: []string{}, Range: "in (0, 1]",
			Doc: "clique fraction of split: round(C*N) servers form a clique joined to all others", Check: positive("fraction")},
		{Name: KeyClique, Kind: param.Int, Arg: "M", For: []string{}, Range: "in [1, N]",
			Doc: "clique size of pendant; the other servers hang off it round-robin", Check: param.IntAtLeast(1)},
		{Name: KeyGraph, Kind: param.String, Arg: "FILE", For: []string{}, Check: param.FileName("an edge-list file"),
			Doc: "edge-list file for the graph policies instead of topology: \"u v\" per line, 0-based ids below N, # comments"},
		{Name: KeyGraphSeed, Kind: param.Uint, Arg: "S", For: []string{}, DefaultDoc: "seed",
			Range: "an integer in [0, 2^64-1]", Doc: "seed of the random topologies er, er-implicit, regular and geometric",
			Default: func(v *param.Values) (any, bool) {
				_, random := seededGraph(v)
				return v.Uint("seed"), random
			},
			Unused: func(v *param.Values) string {
				if what, random := seededGraph(v); !random {
					return "unused: " + what + "; only a random topology reads graph_seed"
				}
				return ""
			}},
	}
}

// seededGraph reports whether the graph that the keys describe is drawn
// from graph_seed: a random topology, named by the topology key or by the
// pairs key of pair sampling (package pairs), and no edge-list file; if
// not, what says why (`topology "torus" is not random`).
func seededGraph(v *param.Values) (what string, random bool) {
	topology, _ := v.Get(KeyTopology).(string)
	key := KeyTopology
	if p, ok := v.Get("pairs").(string); ok && topology == "" {
		topology, key = p, "pairs"
	}
	switch {
	case v.Has(KeyGraph):
		return "a graph read from a file is not random", false
	case topology == "":
		return "no topology is given", false
	case !randomTopology[topology]:
		return fmt.Sprintf("%s %q is not random", key, topology), false
	}
	return "", true
}

// Spec is what the graph keys of a scenario say, for a graph on servers
// vertices.
type Spec struct {
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
	listFree bool        // the user reads er-implicit through its PairHash only
	params   [][2]string // the topology parameter keys given, with their values
}

// SpecFromValues reads the graph keys of completed values, for a graph on
// servers vertices.
func SpecFromValues(v *param.Values, servers int) Spec {
	topology, _ := v.Get(KeyTopology).(string)
	file, _ := v.Get(KeyGraph).(string)
	return NewSpec(v, servers, topology, file)
}

// NewSpec is SpecFromValues with the topology and the edge-list file given
// by the caller (a model whose own key names the topology, as pair
// sampling's pairs key does), and the parameters from v.
func NewSpec(v *param.Values, servers int, topology, file string) Spec {
	num := func(k string) float64 { x, _ := v.Get(k).(float64); return x }
	clique, _ := v.Get(KeyClique).(int)
	seed, hasSeed := v.Get(KeyGraphSeed).(uint64)
	g := Spec{servers: servers, topology: topology, degree: num(KeyDegree),
		p: num(KeyP), radius: num(KeyRadius), split: num(KeySplit), clique: clique,
		file: file, seed: seed, hasSeed: hasSeed}
	for _, k := range []string{KeyDegree, KeyP, KeyRadius, KeySplit, KeyClique} {
		if v.Has(k) {
			g.params = append(g.params, [2]string{k, param.Format(v.Get(k))})
		}
	}
	return g
}

// maxEntries bounds the directed entries of the dense generators (split,
// pendant), as package graph does.
const maxEntries = MaxMaterialize

// Check validates the graph keys of sp for a graph policy without
// generating anything. Errors name the key and its allowed range.
func (sp Spec) Check(who string) error {
	n := sp.servers
	if err := graphChoice.Check(who, sp.topology, sp.file, sp.params); err != nil || sp.file != "" {
		return err
	}
	integer := func(x float64) bool { return x == math.Trunc(x) && math.Abs(x) < 1<<53 }
	switch sp.topology {
	case "er", "er-implicit":
		switch {
		case sp.degree != 0 && sp.p != 0:
			return fmt.Errorf("p = %v: topology %s takes degree (mean degree) or p (edge probability), not both", sp.p, sp.topology)
		case sp.degree == 0 && sp.p == 0:
			return fmt.Errorf("degree: topology %s needs degree (mean degree, in (0, servers-1]) or p (edge probability, in (0, 1])", sp.topology)
		case sp.p != 0 && !(sp.p > 0 && sp.p <= 1):
			return fmt.Errorf("p = %v: must be an edge probability in (0, 1]", sp.p)
		case sp.degree != 0 && !(sp.degree > 0 && sp.degree <= float64(n-1)):
			return fmt.Errorf("degree = %v: the mean degree of %s must be > 0 and at most servers-1 (%d)", sp.degree, sp.topology, n-1)
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
		if m < 1 {
			return fmt.Errorf("split = %v: the clique of round(split*servers) = round(%.4g) = 0 servers would be empty "+
				"(no edges: random routing); give split >= 1/servers = %.4g", sp.split, sp.split*float64(n), 1/float64(n))
		}
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
	return sp.checkEntries()
}

// checkEntries refuses a random or lattice topology whose expected directed
// entries (servers times the mean degree) are above maxEntries, before any
// of it is generated: the stored graph would not fit, and generating it
// would take minutes to hours.
func (sp Spec) checkEntries() error {
	n := float64(sp.servers)
	var key string
	var value, degree float64
	switch sp.topology {
	case "er", "er-implicit":
		key, value, degree = KeyDegree, sp.degree, sp.degree
		if sp.p != 0 {
			key, value, degree = KeyP, sp.p, sp.p*(n-1)
		}
		if sp.topology == "er-implicit" {
			if sp.listFree {
				return nil
			}
			// Its lists are made by testing every pair.
			if pairs := n * (n - 1) / 2; pairs > maxImplicitPairs {
				return fmt.Errorf("servers = %d: this policy needs the neighbour lists of er-implicit, made by testing "+
					"all %.3g pairs, more than %.3g; use neighbour-jsq (which needs no lists) or fewer servers",
					sp.servers, pairs, float64(maxImplicitPairs))
			}
		}
	case "regular", "ring":
		key, value, degree = KeyDegree, sp.degree, sp.degree
	case "geometric":
		// The disc of radius r on the unit torus covers min(1, pi r^2) of it.
		key, value, degree = KeyRadius, sp.radius, math.Min(1, math.Pi*sp.radius*sp.radius)*(n-1)
	default:
		return nil
	}
	if e := n * degree; e > maxEntries {
		return fmt.Errorf("%s = %v: the %s graph on %d servers would have about %.3g directed entries (mean degree %.3g), "+
			"more than %d; lower %s or servers", key, value, sp.topology, sp.servers, e, degree, maxEntries, key)
	}
	return nil
}

// maxImplicitPairs bounds the pairs tested to make the lists of an
// er-implicit graph (about 20 seconds of hashing).
const maxImplicitPairs = 1 << 33

// ListFree returns sp for a user that reads an er-implicit graph only through
// its PairHash (neighbour JSQ), never its lists: Check then sets no bound on
// its size.
func (sp Spec) ListFree() Spec { sp.listFree = true; return sp }

// BuildGraph returns the graph that the graph keys of sp describe (after
// defaults), on sp.servers vertices: for a graph policy, the topology
//
//   - complete: the implicit complete graph (graph policies are then JSQ,
//     with O(1) dispatch);
//   - er: Erdos-Renyi G(N, p), with p given or p = degree/(N-1) for a mean
//     degree;
//   - er-implicit: the same law, stored nowhere: each pair is decided by a
//     hash keyed from graph_seed (ErdosRenyiImplicit);
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
func (sp Spec) Build() (*Graph, error) {
	if err := sp.Check("a graph"); err != nil {
		return nil, err
	}
	n := sp.servers
	if sp.file != "" {
		f, err := param.Open(sp.file, param.MaxDataFileBytes)
		if err != nil {
			return nil, fmt.Errorf("graph = %q: %v", sp.file, err)
		}
		defer f.Close()
		g, err := ReadEdgeList(f, n)
		if err != nil {
			return nil, fmt.Errorf("graph = %q: %v (ids must be below servers = %d)", sp.file, err, n)
		}
		return g, nil
	}
	seed := sp.seed
	rng := rand.New(rand.NewPCG(mc.SplitMix(seed^0x510e527fade682d1), mc.SplitMix(seed^0x9b05688c2b3e6c1f)))
	var g *Graph
	var err error
	switch sp.topology {
	case "complete":
		g, err = Complete(n)
	case "er":
		if sp.p != 0 {
			g, err = ErdosRenyi(n, sp.p, rng)
		} else {
			g, err = ErdosRenyiMeanDegree(n, sp.degree, rng)
		}
	case "er-implicit":
		p := sp.p
		if p == 0 {
			p = min(1, sp.degree/float64(max(n-1, 1)))
		}
		if g, err = ErdosRenyiImplicit(n, p, rng.Uint64()); err == nil && !sp.listFree {
			err = g.MakeLists() // the user needs them: made here, where a signal can stop it
		}
	case "regular":
		g, err = RandomRegular(n, int(sp.degree), rng)
	case "ring":
		g, err = Ring(n, int(sp.degree)/2)
	case "torus":
		g, err = Torus(int(math.Round(math.Sqrt(float64(n)))))
	case "geometric":
		g, _, err = RandomGeometric(n, sp.radius, rng)
	case "split":
		g, err = CompleteSplit(n, sp.split)
	case "pendant":
		g, err = CliquePendant(n, sp.clique)
	}
	if err != nil {
		return nil, fmt.Errorf("topology = %s: %w", sp.topology, err)
	}
	return g, nil
}

// String names the graph of sp, as policy names write it
// (topology=er,degree=10 or graph=FILE).
func (sp Spec) String() string {
	if sp.file != "" {
		return fmt.Sprintf("graph=%s", sp.file)
	}
	s := "topology=" + sp.topology
	for _, kv := range sp.params {
		s += "," + kv[0] + "=" + kv[1]
	}
	return s
}

// Eager reports whether the graph costs nothing to build or comes from a
// file: the policies load it at once, so that a malformed file is invalid
// input, and generate the others on first use.
func (sp Spec) Eager() bool { return sp.file != "" || sp.topology == "complete" }
