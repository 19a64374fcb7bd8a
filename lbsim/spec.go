package lbsim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/lbsim/notebooks/lbsim/service"
)

// Spec is the flat, serialisable description of a scenario, with keys named like
// the command-line flags of `lbsim run`. It is what scenario files, sweeps and
// results carry; Scenario builds the runnable Scenario from it.
type Spec struct {
	Servers int     `json:"servers"`
	Lambda  float64 `json:"lambda"`
	Policy  string  `json:"policy"`
	// D is the number of sampled servers of jsqd and jiqd, or of walkers of
	// nbrw-jsqd (default 2).
	D int `json:"d,omitempty"`
	// Sampling is "without" (default) or "with" replacement, for jsqd and
	// compat-jsqd.
	Sampling      string    `json:"sampling,omitempty"`
	Rates         []float64 `json:"rates,omitempty"`
	OriginWeights []float64 `json:"origin_weights,omitempty"`
	// Service is the service-requirement law in the syntax of service.Parse
	// ("det", "erlang:k=4", "pareto:alpha=3,mean=2", ...); absent means
	// exponential with mean 1 on the Markov engines (Scenario.Service nil).
	Service string `json:"service,omitempty"`
	// Discipline is fifo (absent means fifo), ps or lifo-pr.
	Discipline string  `json:"discipline,omitempty"`
	Horizon    float64 `json:"horizon"`
	// Warmup defaults to Horizon/10 when absent.
	Warmup       *float64  `json:"warmup"`
	Replications int       `json:"replications"`
	Seed         *uint64   `json:"seed"`
	Engine       string    `json:"engine"`
	Init         []float64 `json:"init,omitempty"`
	InitLengths  []int     `json:"init_lengths,omitempty"`
	// Grid is the time step of the recorded trajectory (0: none).
	Grid          float64 `json:"grid,omitempty"`
	AllowUnstable bool    `json:"allow_unstable,omitempty"`

	// The graph of the graph policies (neighbour-jsq, neighbour-jsqd, nbrw-jsqd); other
	// policies reject these keys. See Spec.BuildGraph for their meaning.
	//
	// Topology is complete, er, regular, ring, torus, geometric, split or
	// pendant; Graph is instead the path of an edge-list file.
	Topology string `json:"topology,omitempty"`
	// Degree is the mean degree of er, the degree k of regular, and the
	// degree (even: degree/2 neighbours on each side) of ring.
	Degree float64 `json:"degree,omitempty"`
	// P is the edge probability of er (instead of degree).
	P float64 `json:"p,omitempty"`
	// Radius is the connection radius of geometric (unit torus).
	Radius float64 `json:"radius,omitempty"`
	// Split is the clique fraction c of split.
	Split float64 `json:"split,omitempty"`
	// Clique is the clique size of pendant.
	Clique int `json:"clique,omitempty"`
	// Graph is an edge-list file ("u v" per line, 0-based ids < servers).
	Graph string `json:"graph,omitempty"`
	// GraphSeed seeds the random topologies (er, regular, geometric); it
	// defaults to Seed.
	GraphSeed *uint64 `json:"graph_seed,omitempty"`

	// The walkers of nbrw-jsqd (on the graph above); other policies reject
	// these keys. Walk is nbrw (non-backtracking, the default) or srw (simple
	// random walk); Steps is the number of walk steps per arrival (default 1).
	Walk  string `json:"walk,omitempty"`
	Steps int    `json:"steps,omitempty"`

	// The compatibility graph of compat-jsqd and compat-jsq between the
	// servers and Types task types (default: as many as servers); other
	// policies reject these keys. See Spec.BuildCompat for their meaning.
	// Compat is complete, random, random-types, sparse, ring, torus or block;
	// CompatGraph is instead an edge-list file ("type server" per line).
	Compat       string    `json:"compat,omitempty"`
	Types        int       `json:"types,omitempty"`
	ServerDegree int       `json:"server_degree,omitempty"`
	TypeDegree   int       `json:"type_degree,omitempty"`
	CompatRadius float64   `json:"compat_radius,omitempty"`
	Blocks       int       `json:"blocks,omitempty"`
	BlockShares  []float64 `json:"block_shares,omitempty"`
	CompatGraph  string    `json:"compat_graph,omitempty"`
	// CompatSeed seeds the random designs; it defaults to Seed.
	CompatSeed *uint64 `json:"compat_seed,omitempty"`
	// TypeRates are the relative arrival rates of the types (default equal).
	TypeRates []float64 `json:"type_rates,omitempty"`
}

// A PolicyBuilder makes a policy from the policy fields of a Spec, or says which
// field is wrong.
type PolicyBuilder func(sp Spec) (Policy, error)

var (
	policiesMu sync.RWMutex
	policies   = map[string]PolicyBuilder{}
)

// RegisterPolicy makes a policy available by name in specs, scenario files and
// on the command line. Registering a name again replaces the builder.
func RegisterPolicy(name string, build PolicyBuilder) {
	policiesMu.Lock()
	defer policiesMu.Unlock()
	policies[name] = build
}

// PolicyNames returns the registered policy names, sorted.
func PolicyNames() []string {
	policiesMu.RLock()
	defer policiesMu.RUnlock()
	names := make([]string, 0, len(policies))
	for name := range policies {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func init() {
	noParams := func(name string, p Policy) PolicyBuilder {
		return func(sp Spec) (Policy, error) {
			if err := sp.noGraph(name); err != nil {
				return nil, err
			}
			if sp.D != 0 {
				return nil, fmt.Errorf("d = %d: policy %s takes no d", sp.D, name)
			}
			if sp.Sampling != "" {
				return nil, fmt.Errorf("sampling = %q: policy %s takes no sampling", sp.Sampling, name)
			}
			return p, nil
		}
	}
	RegisterPolicy("random", noParams("random", Random()))
	RegisterPolicy("jsq", noParams("jsq", JSQ()))
	RegisterPolicy("jiq", noParams("jiq", JIQ()))
	RegisterPolicy("roundrobin", func(sp Spec) (Policy, error) {
		if _, err := noParams("roundrobin", nil)(sp); err != nil {
			return nil, err
		}
		return RoundRobin(), nil
	})
	RegisterPolicy("jsqd", func(sp Spec) (Policy, error) {
		if err := sp.noGraph("jsqd"); err != nil {
			return nil, err
		}
		s, err := parseSampling(sp.Sampling)
		if err != nil {
			return nil, err
		}
		return JSQdSampling(sp.D, s), nil
	})
	RegisterPolicy("jswd", func(sp Spec) (Policy, error) {
		if err := sp.noGraph("jswd"); err != nil {
			return nil, err
		}
		if sp.Sampling != "" && sp.Sampling != "without" {
			return nil, fmt.Errorf("sampling = %q: policy jswd samples without replacement", sp.Sampling)
		}
		return JSWd(sp.D), nil
	})
	RegisterPolicy("jiqd", func(sp Spec) (Policy, error) {
		if err := sp.noGraph("jiqd"); err != nil {
			return nil, err
		}
		if sp.Sampling != "" && sp.Sampling != "without" {
			return nil, fmt.Errorf("sampling = %q: policy jiqd samples without replacement", sp.Sampling)
		}
		return JIQd(sp.D), nil
	})
	registerGraphPolicies()
}

func parseSampling(s string) (Sampling, error) {
	switch s {
	case "", "without":
		return WithoutReplacement, nil
	case "with":
		return WithReplacement, nil
	}
	return 0, fmt.Errorf("sampling = %q: must be with or without", s)
}

// takesD lists the built-in policies whose d defaults to 2.
var takesD = map[string]bool{"jsqd": true, "jiqd": true, "jswd": true, "neighbour-jsqd": true, "nbrw-jsqd": true, "compat-jsqd": true}

// WithDefaults returns sp with every absent optional field set to its default.
func (sp Spec) WithDefaults() Spec {
	// An empty list means the same as an absent one.
	if len(sp.Rates) == 0 {
		sp.Rates = nil
	}
	if len(sp.OriginWeights) == 0 {
		sp.OriginWeights = nil
	}
	if len(sp.Init) == 0 {
		sp.Init = nil
	}
	if len(sp.InitLengths) == 0 {
		sp.InitLengths = nil
	}
	if sp.Horizon == 0 {
		sp.Horizon = DefaultHorizon
	}
	if sp.Warmup == nil {
		w := sp.Horizon / 10
		sp.Warmup = &w
	}
	if sp.Replications == 0 {
		sp.Replications = 1
	}
	if sp.Seed == nil {
		s := uint64(DefaultSeed)
		sp.Seed = &s
	}
	if sp.Engine == "" {
		sp.Engine = string(EngineAuto)
	}
	if takesD[sp.Policy] && sp.D == 0 {
		sp.D = 2
	}
	if sp.Policy == "jsqd" && sp.Sampling == "" {
		sp.Sampling = "without"
	}
	if takesGraph[sp.Policy] && sp.GraphSeed == nil && randomTopology[sp.Topology] && sp.Graph == "" {
		s := *sp.Seed
		sp.GraphSeed = &s
	}
	sp = sp.walkDefaults()
	sp = sp.compatDefaults()
	return sp
}

// Scenario validates sp (after defaults) and builds the scenario it describes.
// Errors name the offending key and its allowed range.
func (sp Spec) Scenario() (Scenario, error) {
	sp = sp.WithDefaults()
	policiesMu.RLock()
	build, ok := policies[sp.Policy]
	policiesMu.RUnlock()
	if !ok {
		if sp.Policy == "" {
			return Scenario{}, fmt.Errorf("policy: missing; must be one of %s", strings.Join(PolicyNames(), ", "))
		}
		return Scenario{}, fmt.Errorf("policy = %q: unknown; must be one of %s", sp.Policy, strings.Join(PolicyNames(), ", "))
	}
	if sp.Servers < 1 {
		return Scenario{}, fmt.Errorf("servers = %d: must be at least 1", sp.Servers)
	}
	if takesD[sp.Policy] && (sp.D < 1 || sp.D > sp.Servers) {
		return Scenario{}, fmt.Errorf("d = %d: must be between 1 and servers (%d)", sp.D, sp.Servers)
	}
	if err := sp.checkWalkKeys(); err != nil {
		return Scenario{}, err
	}
	if err := sp.checkCompatKeys(); err != nil {
		return Scenario{}, err
	}
	p, err := build(sp)
	if err != nil {
		return Scenario{}, err
	}
	if math.IsNaN(sp.Horizon) || math.IsInf(sp.Horizon, 0) || sp.Horizon <= 0 {
		return Scenario{}, fmt.Errorf("horizon = %v: must be a finite time > 0", sp.Horizon)
	}
	warmup := *sp.Warmup
	if warmup == 0 {
		warmup = NoWarmup
	} else if math.IsNaN(warmup) || warmup < 0 {
		return Scenario{}, fmt.Errorf("warmup = %v: must be >= 0", warmup)
	}
	var dist service.Distribution
	if sp.Service != "" {
		if dist, err = service.Parse(sp.Service); err != nil {
			return Scenario{}, err // names the key: "service: ..."
		}
	}
	sc := Scenario{
		Service:       dist,
		Discipline:    Discipline(sp.Discipline),
		Servers:       sp.Servers,
		Lambda:        sp.Lambda,
		Policy:        p,
		Rates:         sp.Rates,
		OriginWeights: sp.OriginWeights,
		Horizon:       sp.Horizon,
		Warmup:        warmup,
		Replications:  sp.Replications,
		Seed:          *sp.Seed,
		Engine:        Engine(sp.Engine),
		InitOccupancy: sp.Init,
		InitLengths:   sp.InitLengths,
		Grid:          sp.Grid,
		AllowUnstable: sp.AllowUnstable,
	}
	if _, err := sc.withDefaults(); err != nil {
		return Scenario{}, err
	}
	return sc, nil
}

// ParseSpec decodes a JSON scenario strictly (unknown keys and trailing data are
// errors), applies defaults and validates it.
func ParseSpec(data []byte) (Spec, error) {
	var sp Spec
	if err := DecodeStrict(data, &sp); err != nil {
		return Spec{}, err
	}
	sp = sp.WithDefaults()
	if _, err := sp.Scenario(); err != nil {
		return Spec{}, err
	}
	return sp, nil
}

// DecodeStrict decodes one JSON value into v, rejecting unknown keys and
// trailing data, with errors that name the key.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := strings.TrimPrefix(te.Field, "Spec.")
			return fmt.Errorf("%s: got a JSON %s, want %s", field, te.Value, te.Type)
		}
		return fmt.Errorf("malformed JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("malformed JSON: trailing data after the object")
	}
	return nil
}

// RunSpec builds the scenario of sp and runs it, attaching the spec (after
// defaults) to the result. progress may be nil.
func RunSpec(ctx context.Context, sp Spec, progress func(Progress)) (*Result, error) {
	sp = sp.WithDefaults()
	sc, err := sp.Scenario()
	if err != nil {
		return nil, err
	}
	sc.Progress = progress
	res, err := Run(ctx, sc)
	if err != nil {
		return nil, err
	}
	res.Spec = &sp
	return res, nil
}
