package trickle

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
)

// The keys of the trickle model besides the graph keys it shares.
const (
	keyNodes     = "nodes"
	keyK         = "k"
	keyEta       = "eta"
	keyTau       = "tau"
	keyImin      = "imin"
	keySync      = "sync"
	keyConnected = "connected"
)

// DefaultHorizon is the simulated time of a replication when none is given.
const DefaultHorizon = 1000.0

// MaxEdges bounds the directed edges of a generated hearing graph (1 GiB of
// adjacency).
const MaxEdges = 1 << 28

// Topologies are the hearing graphs of the topology key: complete is the
// single cell.
var Topologies = []string{"complete", "grid", "torus", "geometric"}

// Keys declares the parameters of the trickle model: `lbsim trickle` flags,
// scenario-file keys and sweep axes.
var Keys = newKeys()

func newKeys() *param.Set {
	s := param.NewSet("lbsim trickle", "")
	s.Add(
		param.Key{Name: keyNodes, Kind: param.Int, Arg: "N", Required: true, Range: fmt.Sprintf("an integer in [1, %d]", MaxNodes),
			Doc: "number of nodes n (L*L for grid and torus)", Check: param.IntBetween(1, MaxNodes)},
		param.Key{Name: keyK, Kind: param.Int, Arg: "K", DefaultDoc: "1", Default: param.Constant(1),
			Doc: "redundancy constant k: a node transmits at its chosen time if it heard fewer than k transmissions in its interval", Check: param.IntAtLeast(1)},
		param.Key{Name: keyEta, Kind: param.Float, Arg: "X", DefaultDoc: "0", Default: param.Constant(0.0), Range: "in [0, 1)",
			Doc: "listen-only fraction: a node's time is uniform in [eta*I, I] of its interval of length I (0: original Trickle)",
			Check: func(x any, _ *param.Values) string {
				if e := x.(float64); !(e >= 0 && e < 1) {
					return "must be in [0, 1)"
				}
				return ""
			}},
		param.Key{Name: keyTau, Kind: param.Float, Arg: "T", DefaultDoc: "1", Default: param.Constant(1.0),
			Doc: "interval length tau (Imax of the doubling); messages are counted per tau", Check: param.Positive("time")},
		param.Key{Name: keyImin, Kind: param.Float, Arg: "T", DefaultDoc: "tau (no doubling)", Range: "in [tau·2^-40, tau]",
			Doc:   "RFC 6206 doubling: a node's first interval has length imin, each next one twice the last, up to tau",
			Check: param.Positive("time")},
		param.Key{Name: keySync, Kind: param.Bool, DefaultDoc: "false", Default: param.Constant(false),
			Doc: "start every node's intervals at time 0 (otherwise at a phase uniform in the first interval, drawn per replication)"},
	)
	for _, k := range graph.Keys() {
		switch k.Name {
		case graph.KeyTopology:
			k.Enum = Topologies
			k.DefaultDoc = "complete"
			k.Doc = "hearing graph: complete (single cell: all hear all), grid or torus (L*L lattice in the unit square, " +
				"without or with wrap-around, hearing within radius; default radius 1/L: the 4 nearest), geometric " +
				"(random points on the unit torus, hearing within radius); or give graph"
		case graph.KeyRadius:
			k.Doc = "hearing radius of grid, torus and geometric (unit square or torus)"
		case graph.KeyGraph:
			k.Doc = "edge-list file of the hearing graph instead of topology: \"u v\" per line, 0-based ids below nodes, # comments"
		case graph.KeyGraphSeed:
			k.Doc = "seed of the random geometric hearing graph"
		default:
			continue
		}
		k.For = nil
		s.Add(k)
	}
	s.Add(param.Key{Name: keyConnected, Kind: param.Bool, DefaultDoc: "false", Default: param.Constant(false),
		Doc: "require a connected hearing graph (a disconnected one is invalid input)"})
	warmup := model.WarmupKey()
	warmup.Range = "0 <= warmup <= horizon - tau: at least one interval measured; 0 for none"
	s.Add(model.HorizonKey(DefaultHorizon), warmup, model.ReplicationsKey(), model.SeedKey())
	return s
}

// hearing is what the graph keys of completed values say.
type hearing struct {
	nodes    int
	topology string // "complete", "grid", "torus", "geometric" or "" for a file
	radius   float64
	file     string
	seed     uint64
}

func hearingFromValues(v *param.Values) hearing {
	h := hearing{nodes: v.Int(keyNodes), topology: "complete"}
	if t, ok := v.Get(graph.KeyTopology).(string); ok {
		h.topology = t
	}
	h.radius, _ = v.Get(graph.KeyRadius).(float64)
	h.seed, _ = v.Get(graph.KeyGraphSeed).(uint64)
	if f, ok := v.Get(graph.KeyGraph).(string); ok {
		h.file, h.topology = f, ""
	}
	return h
}

func (h hearing) String() string {
	switch {
	case h.file != "":
		return "graph=" + h.file
	case h.radius > 0:
		return fmt.Sprintf("topology=%s,radius=%v", h.topology, h.radius)
	}
	return "topology=" + h.topology
}

// side returns L for a lattice of nodes = L*L.
func (h hearing) side() int { return int(math.Round(math.Sqrt(float64(h.nodes)))) }

// lattice returns the side L of a lattice and its radius (1/L, the four
// nearest neighbours, unless given).
func (h hearing) lattice() (L int, r float64) {
	L, r = h.side(), h.radius
	if r == 0 {
		r = 1 / float64(L)
	}
	return L, r
}

// entries estimates the directed edges of the hearing graph without
// building it: n(pi r^2 n + 4 r L + 1) on a lattice (r in units of the side),
// n^2 pi r^2 for a geometric graph, at most half the file's size in bytes
// for an edge list (a line "a b" takes at least 4 bytes), none for the
// single cell.
func (h hearing) entries() float64 {
	n := float64(h.nodes)
	switch h.topology {
	case "grid", "torus":
		L, r := h.lattice()
		return n * (math.Pi*r*r*n + 4*r*float64(L) + 1)
	case "geometric":
		return n * n * math.Pi * h.radius * h.radius
	}
	if h.file != "" {
		if st, err := os.Stat(h.file); err == nil && st.Mode().IsRegular() {
			return float64(min(st.Size(), param.MaxDataFileBytes)) / 2
		}
		return param.MaxDataFileBytes / 2
	}
	return 0
}

// boundedEntries is entries at most MaxEdges, for the estimates: a graph
// above it is refused by validation, with a message of its own.
func (h hearing) boundedEntries() float64 { return math.Min(h.entries(), MaxEdges) }

// Bytes per node and per directed edge of the hearing graph that memory
// counts. Measured peak resident memory of `lbsim trickle --horizon 3` at
// nodes = 10^6: 69 MB for the single cell (241 MB at 4*10^6: 60 bytes a
// node), 217 MB and 548 MB for geometric graphs of radius 0.003 and 0.006
// (2.8*10^7 and 1.1*10^8 edges: 5.5 and 4.3 bytes an edge), 825 MB for the
// torus of radius 0.003 (2.8*10^7 edges, built from a list of pairs: 27 bytes
// an edge); the live heap of the whole command peaks at 19.1 MB for the cell
// of 2*10^5 nodes (96 bytes a node, TestModelMemoryEstimates).
const (
	bytesPerNode        = 128
	bytesPerEdge        = 8
	bytesPerLatticeEdge = 32
)

// memory is Model.Memory: the nodes' state per replication running at once
// and the hearing graph, naming the key that drives the larger part.
func memory(v *param.Values) (float64, string) {
	h := hearingFromValues(v)
	concurrent := float64(min(runtime.GOMAXPROCS(0), max(1, v.Int(model.KeyReplications))))
	nodes := bytesPerNode * float64(h.nodes) * concurrent
	perEdge := bytesPerEdge
	if h.topology == "grid" || h.topology == "torus" || h.file != "" {
		perEdge = bytesPerLatticeEdge
	}
	edges := float64(perEdge) * h.boundedEntries()
	key := keyNodes
	switch {
	case edges > nodes && h.file != "":
		key = graph.KeyGraph
	case edges > nodes && h.radius > 0:
		key = graph.KeyRadius
	}
	return nodes + edges, key
}

// check validates the hearing graph's keys without building it.
func (h hearing) check(v *param.Values) error {
	if v.Has(graph.KeyTopology) && h.file != "" {
		return fmt.Errorf("%s = %q: give topology or graph, not both", graph.KeyGraph, h.file)
	}
	lattice := h.topology == "grid" || h.topology == "torus"
	if v.Has(graph.KeyRadius) && !lattice && h.topology != "geometric" {
		return fmt.Errorf("%s = %v: only grid, torus and geometric take a radius", graph.KeyRadius, h.radius)
	}
	if v.Has(graph.KeyRadius) && !(h.radius > 0 && h.radius <= math.Sqrt2/2) {
		return fmt.Errorf("%s = %v: must be in (0, %.6g]", graph.KeyRadius, h.radius, math.Sqrt2/2)
	}
	switch h.topology {
	case "grid", "torus":
		if L := h.side(); L*L != h.nodes || L < 3 {
			return fmt.Errorf("%s = %d: topology %s needs nodes = L*L with L >= 3 (9, 16, 25, ...)", keyNodes, h.nodes, h.topology)
		}
	case "geometric":
		if !v.Has(graph.KeyRadius) {
			return fmt.Errorf("%s: topology geometric needs a radius in (0, %.6g]", graph.KeyRadius, math.Sqrt2/2)
		}
	}
	if entries := h.entries(); entries > MaxEdges && h.file == "" {
		return fmt.Errorf("%s = %v: the hearing graph would have about %.3g directed edges (4 bytes each), more than %d; lower radius or nodes",
			graph.KeyRadius, h.radius, entries, MaxEdges)
	}
	return nil
}

// One hearing graph is cached, so that validating connectivity and running
// build it once.
var (
	cacheMu  sync.Mutex
	cacheKey hearing
	cacheG   *graph.Graph
)

// build returns the hearing graph (nil for the single cell).
func (h hearing) build() (*graph.Graph, error) {
	if h.topology == "complete" {
		return nil, nil
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if cacheG != nil && cacheKey == h {
		return cacheG, nil
	}
	var g *graph.Graph
	var err error
	switch h.topology {
	case "grid", "torus":
		L, r := h.lattice()
		g, err = Lattice(L, r, h.topology == "torus")
	case "geometric":
		rng := mc.Stream(h.seed, 0x6865617269)
		g, _, err = graph.RandomGeometric(h.nodes, h.radius, rng)
	default:
		var f io.ReadCloser
		if f, err = param.Open(h.file, param.MaxDataFileBytes); err != nil {
			return nil, fmt.Errorf("%s = %q: %v", graph.KeyGraph, h.file, err)
		}
		defer f.Close()
		if g, err = graph.ReadEdgeList(f, h.nodes); err != nil {
			return nil, fmt.Errorf("%s = %q: %v (ids must be below nodes = %d)", graph.KeyGraph, h.file, err, h.nodes)
		}
	}
	if err != nil {
		return nil, err
	}
	cacheKey, cacheG = h, g
	return g, nil
}

// MaxDoublings bounds the doublings from imin to tau: imin >= tau·2^-MaxDoublings.
const MaxDoublings = 40

// validate checks what depends on several keys: imin below tau, a
// measurement window of at least one interval (checkWindow), the hearing
// graph (its file read in full, its connectivity when asked).
func validate(v *param.Values) error {
	// At most 40 doublings from imin to tau: a shorter first interval is
	// below the resolution of the simulated clock (it would not advance).
	if v.Has(keyImin) && !(v.Float(keyImin) <= v.Float(keyTau) && v.Float(keyImin) >= math.Ldexp(v.Float(keyTau), -MaxDoublings)) {
		return fmt.Errorf("%s = %v: must be in [tau·2^-%d, tau] = [%.3g, %v]", keyImin, v.Float(keyImin), MaxDoublings, math.Ldexp(v.Float(keyTau), -MaxDoublings), v.Float(keyTau))
	}
	if err := checkWindow(v.Float(model.KeyHorizon), v.Float(model.KeyWarmup), v.Float(keyTau)); err != nil {
		return err
	}
	h := hearingFromValues(v)
	if err := h.check(v); err != nil {
		return err
	}
	if h.file == "" && !v.Bool(keyConnected) {
		return nil
	}
	g, err := h.build()
	if err != nil {
		return err
	}
	if v.Bool(keyConnected) && g != nil {
		if _, sizes := graph.Components(g); len(sizes) > 1 {
			return fmt.Errorf("%s: the hearing graph (%s, nodes = %d) has %d components; raise the radius or drop connected",
				keyConnected, h, h.nodes, len(sizes))
		}
	}
	return nil
}

// Model is the trickle model of the experiment layer: `lbsim trickle` runs
// one point of it.
var Model = &model.Model{
	Name:     "trickle",
	Command:  "trickle",
	Summary:  "the Trickle broadcast algorithm (RFC 6206) with a listen-only period: message count and inter-broadcast times on a hearing graph",
	Keys:     Keys,
	Run:      runPoint,
	Validate: validate,
	Memory:   memory,
	Cost: func(v *param.Values) float64 {
		intervals, doublings, heard := cost(v)
		return 1 + (2*(intervals+doublings)*float64(v.Int(keyNodes))+heard)*float64(v.Int(model.KeyReplications))
	},
	CostKey: func(v *param.Values) string {
		intervals, doublings, heard := cost(v)
		switch h := hearingFromValues(v); {
		case heard > 2*(intervals+doublings)*float64(h.nodes) && h.file != "":
			return graph.KeyGraph
		case heard > 2*(intervals+doublings)*float64(h.nodes) && h.radius > 0:
			return graph.KeyRadius
		case doublings > intervals:
			return keyImin
		}
		return model.KeyHorizon
	},
}

// cost returns the parts of a replication's expected events: two events per
// node and interval (intervals), and per doubling from imin to tau at the
// start (doublings); on a hearing graph, a transmission (at most one per
// node and interval) is heard by each neighbour of its node (heard).
func cost(v *param.Values) (intervals, doublings, heard float64) {
	intervals = v.Float(model.KeyHorizon) / v.Float(keyTau)
	if v.Has(keyImin) && v.Float(keyImin) > 0 {
		doublings = math.Max(0, math.Log2(v.Float(keyTau))-math.Log2(v.Float(keyImin)))
	}
	return intervals, doublings, intervals * hearingFromValues(v).boundedEntries()
}

func init() { model.MustRegister(Model) }

// ConfigFromValues returns the simulation that completed values describe,
// with the hearing graph built.
func ConfigFromValues(v *param.Values) (Config, error) {
	if err := validate(v); err != nil {
		return Config{}, err
	}
	g, err := hearingFromValues(v).build()
	if err != nil {
		return Config{}, err
	}
	c := Config{Nodes: v.Int(keyNodes), K: v.Int(keyK), Eta: v.Float(keyEta), Tau: v.Float(keyTau), Sync: v.Bool(keySync),
		Graph: g, Horizon: v.Float(model.KeyHorizon), Warmup: v.Float(model.KeyWarmup),
		Replications: v.Int(model.KeyReplications), Seed: v.Uint(model.KeySeed)}
	if v.Has(keyImin) {
		c.Imin = v.Float(keyImin)
	}
	return c, nil
}

func runPoint(ctx context.Context, v *param.Values, workers int, progress func(float64)) (*model.Outcome, error) {
	c, err := ConfigFromValues(v)
	if err != nil {
		return nil, err
	}
	c.Workers, c.Progress = workers, progress
	res, err := Simulate(ctx, c)
	if err != nil {
		return nil, err
	}
	ap, err := Approximate(ctx, c)
	if err != nil {
		return nil, err
	}
	res.ApproxMessagesPerInterval, res.ApproxPerNodeRate = ap.MessagesPerInterval, ap.MessagesPerInterval/float64(c.Nodes)
	return &model.Outcome{Figures: res.Figures(), PerReplication: res.ReplicationFigures(), Result: res}, nil
}

// Figures returns the summary figures: replications, events,
// messages_per_interval, approx_messages_per_interval (the multi-cell
// approximation), per_node_rate (with _ci95), interbroadcast_mean
// (with _ci95), interbroadcast_quantiles (at InterbroadcastProbabilities)
// and per_node_quantiles (at PerNodeProbabilities).
// Each is read by its JSON key (model.FigureOf).
func (r *Result) Figures() []model.Figure {
	return append(model.FiguresOf(r, "replications", "events", "messages_per_interval", "approx_messages_per_interval", "per_node_rate", "interbroadcast_mean"),
		model.FigureOf(r, "interbroadcast_quantiles").Padded(math.NaN()),
		model.FigureOf(r, "per_node_quantiles").Padded(math.NaN()))
}

// ReplicationFigures returns each replication's figures.
func (r *Result) ReplicationFigures() [][]model.Figure {
	out := make([][]model.Figure, len(r.PerReplication))
	for k, rr := range r.PerReplication {
		out[k] = model.FiguresOf(&rr, "events", "messages", "messages_per_interval", "interbroadcast_mean")
	}
	return out
}
