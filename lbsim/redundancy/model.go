package redundancy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/pairs"
	"github.com/lbsim/notebooks/lbsim/param"
)

// The keys of the redundancy model besides those of package pairs.
const (
	keyServers      = model.KeyServers
	keyLambda       = "lambda"
	keyD            = "d"
	keyRates        = model.KeyRates
	keyHorizon      = "horizon"
	keyWarmup       = "warmup"
	keyReplications = model.KeyReplications
	keySeed         = model.KeySeed
	keyExact        = "exact"
)

// DefaultHorizon is the simulated time of a replication when none is given.
const DefaultHorizon = model.DefaultHorizon

// Keys declares the parameters of the redundancy model: `lbsim redundancy`
// flags, scenario-file keys and sweep axes.
var Keys = newKeys()

func newKeys() *param.Set {
	s := param.NewSet("lbsim redundancy", "")
	s.Add(
		param.Key{Name: keyServers, Kind: param.Int, Arg: "N", Required: true, Range: "an integer >= 1",
			Doc: "number of servers N (at most 20 with exact)", Check: param.IntAtLeast(1)},
		param.Key{Name: keyLambda, Kind: param.Float, Arg: "X", Required: true,
			Range: "> 0, and Lambda*P(S in A) < mu(A) for every set A of servers",
			Doc:   "arrival rate per server: tasks arrive at rate lambda*N", Check: param.Positive("number")},
		param.Key{Name: keyD, Kind: param.Int, Arg: "D", DefaultDoc: "2", Default: param.Constant(2),
			Range: "1 <= d <= N; 2 unless pairs is uniform", Doc: "servers each task is replicated to",
			Check: func(x any, v *param.Values) string {
				if d, n := x.(int), v.Int(keyServers); d < 1 || d > n {
					return fmt.Sprintf("must be between 1 and servers (%d)", n)
				}
				return ""
			}},
		param.Key{Name: keyRates, Kind: param.Floats, Arg: "LIST", DefaultDoc: "all 1",
			Doc:   "service rate of each server (comma-separated, one per server)",
			Check: func(x any, v *param.Values) string { return model.CheckRates(x.([]float64), v.Int(keyServers)) }},
	)
	// The pair-sampling keys: pairs before graph_seed, whose default reads
	// pairs and seed.
	var graphKeys []param.Key
	for _, k := range graph.Keys() {
		if slices.Contains(pairs.KeyNames, k.Name) {
			k.For = nil
			graphKeys = append(graphKeys, k)
		}
	}
	for _, k := range pairs.Keys() {
		k.For = nil
		s.Add(k)
	}
	s.Add(model.HorizonKey(DefaultHorizon), model.WarmupKey(), model.ReplicationsKey(), model.SeedKey())
	s.Add(graphKeys...)
	s.Add(param.Key{Name: keyExact, Kind: param.Bool, DefaultDoc: "false", Default: param.Constant(false),
		Doc: "print the exact product-form solution (servers <= 20) instead of simulating"})
	return s
}

// The pair distribution of the last point built from a topology (which the
// keys determine, unlike a file that may change), so that a point's
// validation and its run generate it (and compute its load ratio) once.
var (
	distMu    sync.Mutex
	distKey   string
	distCache *pairs.Dist
)

// distFromValues builds the pair distribution and the rates of completed
// values (a random topology generated, a file read, every server checked
// to be in a pair), reusing the last one generated from the same keys.
func distFromValues(v *param.Values) (*pairs.Dist, []float64, error) {
	n, d := v.Int(keyServers), v.Int(keyD)
	if !slices.Contains(graph.Topologies, v.String(pairs.KeyPairs)) {
		dist, err := pairs.FromValues(v, n, d)
		return dist, v.Floats(keyRates), err
	}
	key := map[string]any{keyServers: n, keyD: d}
	for _, k := range pairs.KeyNames {
		key[k] = v.Get(k)
	}
	kb, err := json.Marshal(key)
	if err != nil {
		return nil, nil, err
	}
	distMu.Lock()
	dist := distCache
	if distKey != string(kb) {
		dist = nil
	}
	distMu.Unlock()
	if dist == nil {
		if dist, err = pairs.FromValues(v, n, d); err != nil {
			return nil, nil, err
		}
		distMu.Lock()
		distKey, distCache = string(kb), dist
		distMu.Unlock()
	}
	return dist, v.Floats(keyRates), nil
}

// validate checks what depends on several keys: the pairs keys, the size of
// an exact solution, and the pair distribution itself, built as the run
// builds it (a random topology that leaves a server in no pair, explicit
// pairs that make the system unstable, are invalid input, found before
// anything runs), with its stability.
func validate(v *param.Values) error {
	n, d := v.Int(keyServers), v.Int(keyD)
	if err := pairs.Check(v, n, d); err != nil {
		return err
	}
	if v.Bool(keyExact) && n > MaxExactServers {
		return fmt.Errorf("%s = %d: exact takes at most %d servers", keyServers, n, MaxExactServers)
	}
	dist, rates, err := distFromValues(v)
	if err != nil {
		return err
	}
	if ratio, worst, err := LoadRatio(dist, v.Float(keyLambda), rates); err != nil {
		return err
	} else if !(ratio < 1-stableMargin) {
		return stabilityError(v.Float(keyLambda), ratio, worst, n)
	}
	if v.Bool(keyExact) {
		if err := CheckExactSize(dist); err != nil {
			return exactTooLarge(v, err)
		}
	}
	return nil
}

// exactTooLarge is the invalid-input error of an exact solution too large
// to compute (ErrExactTooLarge), naming servers.
func exactTooLarge(v *param.Values, err error) error {
	return model.Invalid(fmt.Errorf("%s = %d: %v; use fewer servers or simulate (no --exact)", keyServers, v.Int(keyServers), err))
}

// Model is the redundancy model of the experiment layer: `lbsim redundancy`
// runs one point of it.
var Model = &model.Model{
	Name:    "redundancy",
	Command: "redundancy",
	Summary: "redundancy-d with cancel-on-complete: each task replicated to a sampled set of servers, FCFS, the first completion cancels the rest",
	Keys:    Keys,
	Run: func(ctx context.Context, v *param.Values, workers int, progress func(float64)) (*model.Outcome, error) {
		out, err := runPoint(ctx, v, workers, progress)
		return out, keyFirst(err)
	},
	Validate: func(v *param.Values) error { return keyFirst(validate(v)) },
	Memory: func(v *param.Values) (float64, string) {
		// Per server: the stability check's vectors (16 bytes); the
		// distribution of the number of tasks present, which has a level
		// per task and so about one per server at these loads, kept as a
		// histogram that doubles, summarised, formatted and written as JSON
		// twice (512 bytes); per replication running at once, queue heads,
		// tails, counts, positions, busy lists and times and the d replicas
		// of about one task per server with their slots, in slices that
		// double (64 + 16d); per replication kept, its own distribution and
		// occupancy in the result and its figures (128). Measured peak
		// resident memory of `lbsim redundancy --horizon 2` at lambda = 0.5:
		// 517 MB (servers = 10^6, d = 2; estimate 752 MB), 283 MB (10^6,
		// d = 10; 880 MB), 55 MB (10^5, d = 2; 75 MB) and 235 MB (10^5,
		// d = 2, 16 replications on 2 cores; 277 MB): the old estimate, 88
		// MB for the first, was 6 times low.
		reps := float64(max(1, v.Int(keyReplications)))
		concurrent := float64(min(runtime.GOMAXPROCS(0), max(1, v.Int(keyReplications))))
		n, d := float64(v.Int(keyServers)), float64(v.Int(keyD))
		base, replicas, kept := 16+512.0, (64+16*d)*concurrent, 128*reps
		key := keyServers
		switch {
		case replicas > base && replicas > kept:
			key = keyD
		case kept > base && kept > replicas:
			key = keyReplications
		}
		return n * (base + replicas + kept), key
	},
	Cost: func(v *param.Values) float64 {
		if v.Bool(keyExact) {
			return 1
		}
		// About 2d replica events per task.
		return 1 + 2*float64(v.Int(keyD))*v.Float(keyLambda)*float64(v.Int(keyServers))*v.Float(keyHorizon)*
			float64(v.Int(keyReplications))
	},
}

func init() { model.MustRegister(Model) }

func runPoint(ctx context.Context, v *param.Values, workers int, progress func(float64)) (*model.Outcome, error) {
	dist, rates, err := distFromValues(v)
	if err != nil {
		return nil, err
	}
	if v.Bool(keyExact) {
		sol, err := Exact(dist, v.Float(keyLambda), rates, ExactOptions{})
		if errors.Is(err, ErrExactTooLarge) {
			return nil, exactTooLarge(v, err)
		}
		if err != nil {
			return nil, err
		}
		return &model.Outcome{Figures: sol.Figures(), Result: sol}, nil
	}
	res, err := Simulate(ctx, Options{Servers: v.Int(keyServers), Lambda: v.Float(keyLambda), Dist: dist, Rates: rates,
		Horizon: v.Float(keyHorizon), Warmup: v.Float(keyWarmup), Replications: v.Int(keyReplications),
		Seed: v.Uint(keySeed), Workers: workers, Progress: progress})
	if err != nil {
		return nil, err
	}
	return &model.Outcome{Figures: res.Figures(), PerReplication: res.ReplicationFigures(), Result: res}, nil
}

// Figures returns the summary figures of a simulation: replications,
// events, mean_tasks, mean_response (with _ci95), the response quantiles
// (response_p50, ...), p_tasks (P(N = 0), P(N = 1), ...) and q (q_1, q_2,
// ...) with their half-widths.
// Each is read by its JSON key (model.FigureOf), under that name unless said.
func (r *Result) Figures() []model.Figure {
	figs := model.FiguresOf(r, "replications", "events", "mean_tasks", "mean_response")
	for i, p := range r.ResponseProbabilities {
		figs = append(figs, model.FloatCI("response_p"+model.FormatFloat(100*p), r.ResponseQuantiles[i],
			r.ResponseQuantilesCI95[i]))
	}
	return append(figs, model.FigureOf(r, "tasks_distribution").Named("p_tasks"), model.FigureOf(r, "occupancy").Named("q"))
}

// ReplicationFigures returns each replication's figures.
func (r *Result) ReplicationFigures() [][]model.Figure {
	out := make([][]model.Figure, len(r.PerReplication))
	for k, rr := range r.PerReplication {
		out[k] = append(model.FiguresOf(&rr, "events", "mean_tasks", "mean_response"),
			model.FigureOf(&rr, "tasks_distribution").Named("p_tasks"), model.FigureOf(&rr, "occupancy").Named("q"))
	}
	return out
}

// Figures returns the figures of an exact solution: mean_tasks,
// mean_response, load_ratio, tail_mass, p_tasks, q (q_1 only) and the
// light-traffic coefficients light_traffic (a_1, a_2, ...).
// Each is read by its JSON key (model.FigureOf), under that name unless said.
func (s *Solution) Figures() []model.Figure {
	return append(model.FiguresOf(s, "mean_tasks", "mean_response", "load_ratio", "tail_mass"),
		model.FigureOf(s, "tasks_distribution").Named("p_tasks"), model.FigureOf(s, "occupancy").Named("q"),
		model.FigureOf(s, "light_traffic"))
}

// keyFirst drops the package prefix of an error, so that a message of the
// model (as the command line prints it) starts with the key it names:
// "lambda = 1: unstable: ...".
func keyFirst(err error) error {
	if err == nil {
		return nil
	}
	if msg, ok := strings.CutPrefix(err.Error(), "redundancy: "); ok {
		return errors.New(msg)
	}
	return err
}
