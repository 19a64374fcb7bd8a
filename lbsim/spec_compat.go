package lbsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/lbsim/notebooks/lbsim/compat"
)

// The compatibility keys of a Spec (compat, types, server_degree, type_degree,
// compat_radius, blocks, block_shares, compat_graph, compat_seed, type_rates)
// belong to the policies compat-jsqd and compat-jsq; other policies reject
// them, and the compat policies reject the graph keys.

// compatPolicies lists the policies that take the compatibility keys.
var compatPolicies = map[string]bool{"compat-jsqd": true, "compat-jsq": true}

// compatDesigns lists the values of the compat key, in the order of the help.
var compatDesigns = []string{"complete", "random", "random-types", "sparse", "ring", "torus", "block"}

// randomCompat lists the designs drawn from CompatSeed.
var randomCompat = map[string]bool{"random": true, "random-types": true, "sparse": true}

// compatDesignKeys lists, per design, the parameter keys it takes.
var compatDesignKeys = map[string][]string{
	"complete":     nil,
	"random":       {"server_degree"},
	"random-types": {"type_degree"},
	"sparse":       {"server_degree"},
	"ring":         {"compat_radius"},
	"torus":        {"compat_radius"},
	"block":        {"blocks", "block_shares"},
}

// compatParams returns the design parameter keys that sp sets, with their
// values as written in messages.
func (sp Spec) compatParams() [][2]string {
	var set [][2]string
	add := func(key string, ok bool, v any) {
		if ok {
			set = append(set, [2]string{key, fmt.Sprint(v)})
		}
	}
	add("server_degree", sp.ServerDegree != 0, sp.ServerDegree)
	add("type_degree", sp.TypeDegree != 0, sp.TypeDegree)
	add("compat_radius", sp.CompatRadius != 0, sp.CompatRadius)
	add("blocks", sp.Blocks != 0, sp.Blocks)
	add("block_shares", sp.BlockShares != nil, sp.BlockShares)
	return set
}

// compatDefaults fills in the compatibility keys of the compat policies:
// types = servers, blocks = len(block_shares), compat_seed = seed for the
// random designs, and sampling without for compat-jsqd.
func (sp Spec) compatDefaults() Spec {
	if len(sp.BlockShares) == 0 {
		sp.BlockShares = nil
	}
	if len(sp.TypeRates) == 0 {
		sp.TypeRates = nil
	}
	if !compatPolicies[sp.Policy] {
		return sp
	}
	if sp.Types == 0 {
		sp.Types = sp.Servers
	}
	if sp.Blocks == 0 && sp.BlockShares != nil && sp.Compat == "block" {
		sp.Blocks = len(sp.BlockShares)
	}
	if sp.CompatSeed == nil && randomCompat[sp.Compat] && sp.CompatGraph == "" && sp.Seed != nil {
		s := *sp.Seed
		sp.CompatSeed = &s
	}
	if sp.Policy == "compat-jsqd" && sp.Sampling == "" {
		sp.Sampling = "without"
	}
	return sp
}

// checkCompatKeys rejects the compatibility keys for the other policies.
func (sp Spec) checkCompatKeys() error {
	if compatPolicies[sp.Policy] {
		return nil
	}
	switch {
	case sp.Compat != "":
		return fmt.Errorf("compat = %q: policy %s takes no compatibility graph (only compat-jsqd and compat-jsq do)", sp.Compat, sp.Policy)
	case sp.CompatGraph != "":
		return fmt.Errorf("compat_graph = %q: policy %s takes no compatibility graph (only compat-jsqd and compat-jsq do)", sp.CompatGraph, sp.Policy)
	case sp.Types != 0:
		return fmt.Errorf("types = %d: policy %s takes no task types (only compat-jsqd and compat-jsq do)", sp.Types, sp.Policy)
	case sp.CompatSeed != nil:
		return fmt.Errorf("compat_seed = %d: policy %s takes no compatibility graph", *sp.CompatSeed, sp.Policy)
	case sp.TypeRates != nil:
		return fmt.Errorf("type_rates: policy %s takes no task types (only compat-jsqd and compat-jsq do)", sp.Policy)
	}
	if set := sp.compatParams(); len(set) > 0 {
		return fmt.Errorf("%s = %s: policy %s takes no %s (a compatibility graph parameter)", set[0][0], set[0][1], sp.Policy, set[0][0])
	}
	return nil
}

// checkCompatSpec validates the compatibility keys of sp (after defaults)
// without generating anything. Errors name the key and its allowed range.
func (sp Spec) checkCompatSpec() error {
	n := sp.Servers
	if err := sp.noGraph(sp.Policy); err != nil {
		return err
	}
	if sp.Types < 1 || sp.Types > compat.MaxIDs {
		return fmt.Errorf("types = %d: must be between 1 and %d", sp.Types, compat.MaxIDs)
	}
	m := sp.Types
	if sp.TypeRates != nil {
		if len(sp.TypeRates) != m {
			return fmt.Errorf("type_rates: %d values, want one per type (types = %d)", len(sp.TypeRates), m)
		}
		total := 0.0
		for t, r := range sp.TypeRates {
			if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 {
				return fmt.Errorf("type_rates[%d] = %v: must be a finite relative rate >= 0", t, r)
			}
			total += r
		}
		if !(total > 0) {
			return fmt.Errorf("type_rates: all zero; at least one type must arrive")
		}
	}
	if sp.CompatGraph != "" {
		if sp.Compat != "" {
			return fmt.Errorf("compat_graph = %q: give either compat or compat_graph (an edge-list file), not both", sp.CompatGraph)
		}
		if set := sp.compatParams(); len(set) > 0 {
			return fmt.Errorf("%s = %s: a compatibility graph from a file takes no %s", set[0][0], set[0][1], set[0][0])
		}
		if sp.CompatSeed != nil {
			return fmt.Errorf("compat_seed = %d: a compatibility graph from a file takes no seed", *sp.CompatSeed)
		}
		st, err := os.Stat(sp.CompatGraph)
		if err != nil {
			return fmt.Errorf("compat_graph = %q: %v", sp.CompatGraph, err)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("compat_graph = %q: not a regular file", sp.CompatGraph)
		}
		return nil
	}
	keys, ok := compatDesignKeys[sp.Compat]
	if !ok {
		all := strings.Join(compatDesigns, ", ")
		if sp.Compat == "" {
			return fmt.Errorf("compat: required for %s; one of %s (or compat_graph: an edge-list file)", sp.Policy, all)
		}
		return fmt.Errorf("compat = %q: unknown; must be one of %s", sp.Compat, all)
	}
	for _, kv := range sp.compatParams() {
		allowed := false
		for _, k := range keys {
			allowed = allowed || k == kv[0]
		}
		if !allowed {
			return fmt.Errorf("%s = %s: compat %s takes no %s", kv[0], kv[1], sp.Compat, kv[0])
		}
	}
	if sp.CompatSeed != nil && !randomCompat[sp.Compat] {
		return fmt.Errorf("compat_seed = %d: compat %s is not random and takes no seed", *sp.CompatSeed, sp.Compat)
	}
	// A stored graph costs 8 bytes per edge and per type (and per server):
	// edges plus types must stay within compat.MaxEdges.
	edges := func(e float64) error {
		if e+float64(m) > compat.MaxEdges {
			return fmt.Errorf("compat = %s: the graph would have about %.4g edges and %d types, more than %d in all; lower servers, types or the degree",
				sp.Compat, e, m, int64(compat.MaxEdges))
		}
		return nil
	}
	switch sp.Compat {
	case "random", "sparse":
		hi := m
		if sp.Compat == "sparse" {
			hi = compat.MaxEdges
		}
		if sp.ServerDegree < 1 || sp.ServerDegree > hi {
			return fmt.Errorf("server_degree = %d: compat %s needs the number of types per server in [1, %d]", sp.ServerDegree, sp.Compat, hi)
		}
		return edges(float64(n) * float64(sp.ServerDegree))
	case "random-types":
		if sp.TypeDegree < 1 || sp.TypeDegree > n {
			return fmt.Errorf("type_degree = %d: compat random-types needs the number of servers per type in [1, servers = %d]", sp.TypeDegree, n)
		}
		return edges(float64(m) * float64(sp.TypeDegree))
	case "ring":
		if !(sp.CompatRadius > 0 && sp.CompatRadius <= 0.5) {
			return fmt.Errorf("compat_radius = %v: compat ring needs a radius in (0, 0.5] (unit circle)", sp.CompatRadius)
		}
		return edges(float64(m) * (2*sp.CompatRadius*float64(n) + 1))
	case "torus":
		if !(sp.CompatRadius > 0 && sp.CompatRadius <= math.Sqrt2/2) {
			return fmt.Errorf("compat_radius = %v: compat torus needs a radius in (0, %.6g] (unit torus)", sp.CompatRadius, math.Sqrt2/2)
		}
		return edges(float64(m) * float64(n) * math.Min(math.Pi*sp.CompatRadius*sp.CompatRadius, 1))
	case "block":
		b := sp.Blocks
		if b < 1 || b > n || b > m {
			return fmt.Errorf("blocks = %d: compat block needs a number of blocks in [1, min(servers, types) = %d]", b, min(n, m))
		}
		if sp.BlockShares != nil {
			if len(sp.BlockShares) != b {
				return fmt.Errorf("block_shares: %d values, want one per block (blocks = %d)", len(sp.BlockShares), b)
			}
			for k, s := range sp.BlockShares {
				if !(s > 0) || math.IsInf(s, 0) {
					return fmt.Errorf("block_shares[%d] = %v: must be a finite relative size > 0", k, s)
				}
			}
		}
		return edges(float64(m)*float64(n)/float64(b) + float64(m))
	}
	return nil
}

// blockShares returns the block shares of sp: block_shares, or equal shares.
func (sp Spec) blockShares() []float64 {
	if sp.BlockShares != nil {
		return sp.BlockShares
	}
	s := make([]float64, sp.Blocks)
	for k := range s {
		s[k] = 1
	}
	return s
}

// checkBlockStability refuses a block design in which some block receives
// more work than its servers can serve (unless allow_unstable): the blocks
// are separate systems, so each must be stable on its own.
func (sp Spec) checkBlockStability() error {
	if sp.Compat != "block" || sp.CompatGraph != "" || sp.AllowUnstable {
		return nil
	}
	sizes, err := compat.BlockSizes(sp.Servers, sp.blockShares())
	if err != nil {
		return fmt.Errorf("block_shares: %v", err)
	}
	b, m := sp.Blocks, sp.Types
	arrive := make([]float64, b)
	total := 0.0
	for t := range m {
		r := 1.0
		if sp.TypeRates != nil {
			r = sp.TypeRates[t]
		}
		arrive[compat.TypeBlock(t, m, b)] += r
		total += r
	}
	j := 0
	for k, size := range sizes {
		mu := 0.0
		for range size {
			if sp.Rates != nil && j < len(sp.Rates) {
				mu += sp.Rates[j]
			} else {
				mu++
			}
			j++
		}
		if load := sp.Lambda * float64(sp.Servers) * arrive[k] / total / mu; load >= 1 {
			return fmt.Errorf("block_shares: block %d (%d servers) would receive load %.4g >= 1 per unit of service at lambda = %v; "+
				"it is unstable (balance the shares or lower lambda, or pass allow_unstable)", k, size, load, sp.Lambda)
		}
	}
	return nil
}

// BuildCompat returns the compatibility graph that the compatibility keys of
// sp describe (after defaults), with its type rates: for a compat policy, the
// design
//
//   - complete: the implicit complete bipartite graph (compat-jsqd is then
//     JSQ(d), compat-jsq JSQ);
//   - random: every server compatible with server_degree distinct uniform
//     types;
//   - random-types: every type compatible with type_degree distinct uniform
//     servers;
//   - sparse: the construction of Rutten and Mukherjee, server_degree
//     uniform draws per server with replacement (degree at most
//     server_degree);
//   - ring, torus: servers and types spread evenly on the unit circle or
//     torus, compatible within compat_radius;
//   - block: blocks blocks, complete inside, servers split by block_shares
//     (default equal), types equally;
//
// or the edge-list file compat_graph ("type server" per line). The random
// designs draw from a stream determined by compat_seed (default: seed).
func (sp Spec) BuildCompat() (*compat.Graph, error) {
	sp = sp.WithDefaults()
	if err := sp.checkCompatSpec(); err != nil {
		return nil, err
	}
	g, err := sp.buildCompatGraph()
	if err != nil {
		return nil, err
	}
	if sp.TypeRates != nil {
		if g, err = g.WithTypeRates(sp.TypeRates); err != nil {
			return nil, fmt.Errorf("type_rates: %v", err)
		}
	}
	return g, nil
}

func (sp Spec) buildCompatGraph() (*compat.Graph, error) {
	n, m := sp.Servers, sp.Types
	if sp.CompatGraph != "" {
		f, err := os.Open(sp.CompatGraph)
		if err != nil {
			return nil, fmt.Errorf("compat_graph = %q: %v", sp.CompatGraph, err)
		}
		defer f.Close()
		g, err := compat.ReadEdgeList(f, n, m)
		if err != nil {
			return nil, fmt.Errorf("compat_graph = %q: %v (servers = %d, types = %d)", sp.CompatGraph, err, n, m)
		}
		return g, nil
	}
	var seed uint64
	if sp.CompatSeed != nil {
		seed = *sp.CompatSeed
	}
	rng := rand.New(rand.NewPCG(splitmix(seed^0x3c6ef372fe94f82b), splitmix(seed^0xa54ff53a5f1d36f1)))
	var g *compat.Graph
	var err error
	switch sp.Compat {
	case "complete":
		g, err = compat.Complete(n, m)
	case "random":
		g, err = compat.Random(n, m, sp.ServerDegree, rng)
	case "random-types":
		g, err = compat.RandomTypes(n, m, sp.TypeDegree, rng)
	case "sparse":
		g, err = compat.Sparse(n, m, sp.ServerDegree, rng)
	case "ring":
		g, err = compat.Ring(n, m, sp.CompatRadius)
	case "torus":
		g, err = compat.Torus(n, m, sp.CompatRadius)
	case "block":
		g, err = compat.Blocks(n, m, sp.blockShares())
	}
	if err != nil {
		return nil, fmt.Errorf("compat = %s: %w", sp.Compat, err)
	}
	return g, nil
}

// compatDescription names the graph of sp in a policy name.
func (sp Spec) compatDescription() string {
	if sp.CompatGraph != "" {
		return fmt.Sprintf("compat_graph=%s,types=%d", sp.CompatGraph, sp.Types)
	}
	s := fmt.Sprintf("compat=%s,types=%d", sp.Compat, sp.Types)
	for _, kv := range sp.compatParams() {
		s += "," + kv[0] + "=" + kv[1]
	}
	return s
}

func init() {
	RegisterPolicy("compat-jsqd", func(sp Spec) (Policy, error) {
		sp = sp.compatDefaults()
		s, err := parseSampling(sp.Sampling)
		if err != nil {
			return nil, err
		}
		d := sp.D
		if d == 0 {
			d = 2
		}
		if d < 1 || d > sp.Servers {
			return nil, fmt.Errorf("d = %d: must be between 1 and servers (%d)", d, sp.Servers)
		}
		return newSpecCompatPolicy(sp, fmt.Sprintf("compat-jsqd(d=%d,%s,%s)", d, s, sp.compatDescription()),
			func(g *compat.Graph) Policy { return CompatJSQdSampling(g, d, s) })
	})
	RegisterPolicy("compat-jsq", func(sp Spec) (Policy, error) {
		sp = sp.compatDefaults()
		if sp.D != 0 {
			return nil, fmt.Errorf("d = %d: policy compat-jsq takes no d (it considers all compatible servers; see compat-jsqd)", sp.D)
		}
		if sp.Sampling != "" {
			return nil, fmt.Errorf("sampling = %q: policy compat-jsq takes no sampling", sp.Sampling)
		}
		return newSpecCompatPolicy(sp, "compat-jsq("+sp.compatDescription()+")", CompatJSQ)
	})
}

// newSpecCompatPolicy returns the compat policy build makes on the
// compatibility graph of sp, generated on first use (see lazyPolicy); an
// edge-list file and the complete design are loaded at once. Tasks have types,
// not origins.
func newSpecCompatPolicy(sp Spec, name string, build func(*compat.Graph) Policy) (Policy, error) {
	if err := sp.checkCompatSpec(); err != nil {
		return nil, err
	}
	if err := sp.checkBlockStability(); err != nil {
		return nil, err
	}
	w := newLazyPolicy(name, false, func() (Policy, error) {
		g, err := sp.BuildCompat()
		if err != nil {
			return nil, err
		}
		return build(g), nil
	})
	if sp.CompatGraph != "" || sp.Compat == "complete" {
		if _, err := w.load(); err != nil {
			return nil, err
		}
	}
	return w, nil
}
