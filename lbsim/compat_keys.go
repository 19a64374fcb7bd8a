package lbsim

import (
	"fmt"
	"github.com/lbsim/notebooks/lbsim/compat"
	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/param"
	"math"
	"math/rand/v2"
)

// The compatibility keys: the bipartite compatibility graph between the
// servers and the task types of the compat policies (compat-jsqd,
// compat-jsq), a design and its parameters or an edge-list file, and the
// types' rates. Checks that depend on the design are in compatSpec.check.
const (
	keyCompat       = "compat"
	keyTypes        = "types"
	keyServerDegree = "server_degree"
	keyTypeDegree   = "type_degree"
	keyCompatRadius = "compat_radius"
	keyBlocks       = "blocks"
	keyBlockShares  = "block_shares"
	keyCompatGraph  = "compat_graph"
	keyCompatSeed   = "compat_seed"
	keyTypeRates    = "type_rates"
)

// compatKeys lists the compatibility keys, for the policies that Use them.
var compatKeys = []string{keyCompat, keyTypes, keyServerDegree, keyTypeDegree, keyCompatRadius, keyBlocks,
	keyBlockShares, keyCompatGraph, keyCompatSeed, keyTypeRates}

// compatDesigns lists the values of the compat key, in the order of the help.
var compatDesigns = []string{"complete", "random", "random-types", "sparse", "ring", "torus", "block"}

// randomCompat lists the designs drawn from compat_seed.
var randomCompat = map[string]bool{"random": true, "random-types": true, "sparse": true}

// compatChoice: a compatibility graph is a design with its parameters, or
// a file.
var compatChoice = param.DesignOrFile{What: "compatibility graph", DesignKey: keyCompat, FileKey: keyCompatGraph,
	Designs: compatDesigns, Params: compatDesignKeys}

// compatDesignKeys lists, per design, the parameter keys it takes.
var compatDesignKeys = map[string][]string{
	"complete":     nil,
	"random":       {keyServerDegree},
	"random-types": {keyTypeDegree},
	"sparse":       {keyServerDegree},
	"ring":         {keyCompatRadius},
	"torus":        {keyCompatRadius},
	"block":        {keyBlocks, keyBlockShares},
}

var _ = declareCompatKeys()

func declareCompatKeys() bool {
	Keys.Add(
		param.Key{Name: keyCompat, Kind: param.String, Arg: "NAME", For: []string{}, Enum: compatDesigns,
			Doc: "compatibility graph between the servers and the task types: complete, random (server_degree types per " +
				"server), random-types (type_degree servers per type), sparse (the Rutten-Mukherjee construction: " +
				"server_degree draws per server), ring or torus (compatible within compat_radius), block (blocks, " +
				"block_shares); or give compat_graph"},
		param.Key{Name: keyTypes, Kind: param.Int, Arg: "M", For: []string{}, DefaultDoc: "N",
			Default: func(v *param.Values) (any, bool) { return v.Int(keyServers), true },
			Doc:     "number of task types", Check: param.IntBetween(1, compat.MaxIDs)},
		param.Key{Name: keyServerDegree, Kind: param.Int, Arg: "C", For: []string{}, Check: param.IntAtLeast(1),
			Doc: "types per server of compat random and sparse (random: in [1, M])"},
		param.Key{Name: keyTypeDegree, Kind: param.Int, Arg: "K", For: []string{}, Check: param.IntAtLeast(1),
			Doc: "servers per type of compat random-types (in [1, N])"},
		param.Key{Name: keyCompatRadius, Kind: param.Float, Arg: "R", For: []string{},
			Doc: "compatibility radius of compat ring (in (0, 0.5], unit circle) and torus (in (0, 0.7071], unit torus)",
			Check: func(x any, _ *param.Values) string {
				if r := x.(float64); !(r > 0) || math.IsInf(r, 0) {
					return "must be a finite radius > 0"
				}
				return ""
			}},
		param.Key{Name: keyBlocks, Kind: param.Int, Arg: "B", For: []string{}, DefaultDoc: "the number of block_shares",
			Default: func(v *param.Values) (any, bool) {
				return len(v.Floats(keyBlockShares)), v.Has(keyBlockShares) && v.String(keyCompat) == "block"
			},
			Doc: "number of blocks of compat block (in [1, min(N, M)])", Check: param.IntAtLeast(1)},
		param.Key{Name: keyBlockShares, Kind: param.Floats, Arg: "LIST", For: []string{}, DefaultDoc: "equal",
			Doc: "relative server shares of the blocks of compat block (> 0, B values in the syntax of rates; types are split equally)"},
		param.Key{Name: keyCompatGraph, Kind: param.String, Arg: "FILE", For: []string{}, Check: param.FileName("an edge-list file"),
			Doc: "edge-list file instead of compat: \"type server\" per line, 0-based ids below M and N, # comments"},
		param.Key{Name: keyCompatSeed, Kind: param.Uint, Arg: "S", For: []string{}, DefaultDoc: "seed",
			Range: "an integer in [0, 2^64-1]", Doc: "seed of the random compat designs random, random-types and sparse",
			Default: func(v *param.Values) (any, bool) {
				return v.Uint(keySeed), randomCompat[v.String(keyCompat)] && !v.Has(keyCompatGraph)
			}},
		param.Key{Name: keyTypeRates, Kind: param.Floats, Arg: "LIST", For: []string{}, DefaultDoc: "equal",
			Doc: "relative arrival rates of the task types (>= 0, not all 0), M values in the syntax of rates"},
	)
	return true
}

// compatSpec is what the compatibility keys of a scenario say.
type compatSpec struct {
	policy                   string
	servers, types           int
	lambda                   float64
	rates                    []float64
	allowUnstable            bool
	design                   string
	serverDegree, typeDegree int
	radius                   float64
	blocks                   int
	blockShares              []float64
	file                     string
	seed                     uint64
	hasSeed                  bool
	typeRates                []float64
	params                   [][2]string // the design parameter keys given, with their values
}

// readCompatSpec reads the compatibility keys of completed values.
func readCompatSpec(v *param.Values) compatSpec {
	c := compatSpec{policy: v.String(keyPolicy), servers: v.Int(keyServers), types: v.Int(keyTypes),
		lambda: v.Float(keyLambda), rates: v.Floats(keyRates), allowUnstable: v.Bool(keyAllowUnstable),
		design: v.String(keyCompat), serverDegree: v.Int(keyServerDegree), typeDegree: v.Int(keyTypeDegree),
		radius: v.Float(keyCompatRadius), blocks: v.Int(keyBlocks), blockShares: v.Floats(keyBlockShares),
		file: v.String(keyCompatGraph), seed: v.Uint(keyCompatSeed), hasSeed: v.Has(keyCompatSeed),
		typeRates: v.Floats(keyTypeRates)}
	for _, k := range []string{keyServerDegree, keyTypeDegree, keyCompatRadius, keyBlocks, keyBlockShares} {
		if v.Has(k) {
			c.params = append(c.params, [2]string{k, param.Format(v.Get(k))})
		}
	}
	return c
}

// check validates the compatibility keys of sp
// without generating anything. Errors name the key and its allowed range.
func (sp compatSpec) check() error {
	n := sp.servers
	m := sp.types
	if sp.typeRates != nil {
		if len(sp.typeRates) != m {
			return fmt.Errorf("type_rates: %d values, want one per type (types = %d)", len(sp.typeRates), m)
		}
		total := 0.0
		for t, r := range sp.typeRates {
			if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 {
				return fmt.Errorf("type_rates[%d] = %v: must be a finite relative rate >= 0", t, r)
			}
			total += r
		}
		if !(total > 0) {
			return fmt.Errorf("type_rates: all zero; at least one type must arrive")
		}
	}
	if sp.file != "" && sp.hasSeed {
		return fmt.Errorf("compat_seed = %d: a compatibility graph from a file takes no seed", sp.seed)
	}
	if err := compatChoice.Check(sp.policy, sp.design, sp.file, sp.params); err != nil || sp.file != "" {
		return err
	}
	if sp.hasSeed && !randomCompat[sp.design] {
		return fmt.Errorf("compat_seed = %d: compat %s is not random and takes no seed", sp.seed, sp.design)
	}
	// A stored graph costs 8 bytes per edge and per type (and per server):
	// edges plus types must stay within compat.MaxEdges.
	edges := func(e float64) error {
		if e+float64(m) > compat.MaxEdges {
			return fmt.Errorf("compat = %s: the graph would have about %.4g edges and %d types, more than %d in all; lower servers, types or the degree",
				sp.design, e, m, int64(compat.MaxEdges))
		}
		return nil
	}
	switch sp.design {
	case "random", "sparse":
		hi := m
		if sp.design == "sparse" {
			hi = compat.MaxEdges
		}
		if sp.serverDegree < 1 || sp.serverDegree > hi {
			return fmt.Errorf("server_degree = %d: compat %s needs the number of types per server in [1, %d]", sp.serverDegree, sp.design, hi)
		}
		return edges(float64(n) * float64(sp.serverDegree))
	case "random-types":
		if sp.typeDegree < 1 || sp.typeDegree > n {
			return fmt.Errorf("type_degree = %d: compat random-types needs the number of servers per type in [1, servers = %d]", sp.typeDegree, n)
		}
		return edges(float64(m) * float64(sp.typeDegree))
	case "ring":
		if !(sp.radius > 0 && sp.radius <= 0.5) {
			return fmt.Errorf("compat_radius = %v: compat ring needs a radius in (0, 0.5] (unit circle)", sp.radius)
		}
		return edges(float64(m) * (2*sp.radius*float64(n) + 1))
	case "torus":
		if !(sp.radius > 0 && sp.radius <= math.Sqrt2/2) {
			return fmt.Errorf("compat_radius = %v: compat torus needs a radius in (0, %.6g] (unit torus)", sp.radius, math.Sqrt2/2)
		}
		return edges(float64(m) * float64(n) * math.Min(math.Pi*sp.radius*sp.radius, 1))
	case "block":
		b := sp.blocks
		if b < 1 || b > n || b > m {
			return fmt.Errorf("blocks = %d: compat block needs a number of blocks in [1, min(servers, types) = %d]", b, min(n, m))
		}
		if sp.blockShares != nil {
			if len(sp.blockShares) != b {
				return fmt.Errorf("block_shares: %d values, want one per block (blocks = %d)", len(sp.blockShares), b)
			}
			for k, s := range sp.blockShares {
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
func (sp compatSpec) shares() []float64 {
	if sp.blockShares != nil {
		return sp.blockShares
	}
	s := make([]float64, sp.blocks)
	for k := range s {
		s[k] = 1
	}
	return s
}

// checkBlockStability refuses a block design in which some block receives
// more work than its servers can serve (unless allow_unstable): the blocks
// are separate systems, so each must be stable on its own.
func (sp compatSpec) checkBlockStability() error {
	if sp.design != "block" || sp.file != "" || sp.allowUnstable {
		return nil
	}
	sizes, err := compat.BlockSizes(sp.servers, sp.shares())
	if err != nil {
		return fmt.Errorf("block_shares: %v", err)
	}
	b, m := sp.blocks, sp.types
	arrive := make([]float64, b)
	total := 0.0
	for t := range m {
		r := 1.0
		if sp.typeRates != nil {
			r = sp.typeRates[t]
		}
		arrive[compat.TypeBlock(t, m, b)] += r
		total += r
	}
	j := 0
	for k, size := range sizes {
		mu := 0.0
		for range size {
			if sp.rates != nil && j < len(sp.rates) {
				mu += sp.rates[j]
			} else {
				mu++
			}
			j++
		}
		if load := sp.lambda * float64(sp.servers) * arrive[k] / total / mu; load >= 1 {
			return fmt.Errorf("block_shares: block %d (%d servers) would receive load %.4g >= 1 per unit of service at lambda = %v; "+
				"it is unstable (balance the shares or lower lambda, or pass allow_unstable)", k, size, load, sp.lambda)
		}
	}
	return nil
}

// build returns the compatibility graph that the compatibility keys of
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
func (sp compatSpec) build() (*compat.Graph, error) {
	if err := sp.check(); err != nil {
		return nil, err
	}
	g, err := sp.buildGraph()
	if err != nil {
		return nil, err
	}
	if sp.typeRates != nil {
		if g, err = g.WithTypeRates(sp.typeRates); err != nil {
			return nil, fmt.Errorf("type_rates: %v", err)
		}
	}
	return g, nil
}

func (sp compatSpec) buildGraph() (*compat.Graph, error) {
	n, m := sp.servers, sp.types
	if sp.file != "" {
		f, err := param.Open(sp.file, param.MaxDataFileBytes)
		if err != nil {
			return nil, fmt.Errorf("compat_graph = %q: %v", sp.file, err)
		}
		defer f.Close()
		g, err := compat.ReadEdgeList(f, n, m)
		if err != nil {
			return nil, fmt.Errorf("compat_graph = %q: %v (servers = %d, types = %d)", sp.file, err, n, m)
		}
		return g, nil
	}
	seed := sp.seed
	rng := rand.New(rand.NewPCG(mc.SplitMix(seed^0x3c6ef372fe94f82b), mc.SplitMix(seed^0xa54ff53a5f1d36f1)))
	var g *compat.Graph
	var err error
	switch sp.design {
	case "complete":
		g, err = compat.Complete(n, m)
	case "random":
		g, err = compat.Random(n, m, sp.serverDegree, rng)
	case "random-types":
		g, err = compat.RandomTypes(n, m, sp.typeDegree, rng)
	case "sparse":
		g, err = compat.Sparse(n, m, sp.serverDegree, rng)
	case "ring":
		g, err = compat.Ring(n, m, sp.radius)
	case "torus":
		g, err = compat.Torus(n, m, sp.radius)
	case "block":
		g, err = compat.Blocks(n, m, sp.shares())
	}
	if err != nil {
		return nil, fmt.Errorf("compat = %s: %w", sp.design, err)
	}
	return g, nil
}

// compatDescription names the graph of sp in a policy name.
func (sp compatSpec) description() string {
	if sp.file != "" {
		return fmt.Sprintf("compat_graph=%s,types=%d", sp.file, sp.types)
	}
	s := fmt.Sprintf("compat=%s,types=%d", sp.design, sp.types)
	for _, kv := range sp.params {
		s += "," + kv[0] + "=" + kv[1]
	}
	return s
}

// newCompatPolicy returns the compat policy build makes on the
// compatibility graph of the completed values v, generated on first use (see
// lazyPolicy); an edge-list file and the complete design are loaded at once.
// Tasks have types, not origins. name is the policy's name before the
// graph's description.
func newCompatPolicy(v *param.Values, name string, build func(*compat.Graph) Policy) (Policy, error) {
	sp := readCompatSpec(v)
	if err := sp.check(); err != nil {
		return nil, err
	}
	if err := sp.checkBlockStability(); err != nil {
		return nil, err
	}
	return newLazyOn(name+sp.description()+")", false, sp.file != "" || sp.design == "complete", sp.build, build)
}
