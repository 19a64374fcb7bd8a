package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
)

// exactConfig is what `lbsim exact` reads from a scenario file and its flags
// besides the scenario keys (lbsim.Keys). The simulation-only keys (horizon,
// seed, ...) are accepted, so that one file serves both commands, and
// ignored.
type exactConfig struct {
	// Cap is the largest queue length per server (0: automatic).
	Cap int `json:"cap,omitempty"`
	// Tol is the convergence and truncation tolerance (nil:
	// exact.DefaultTol; a given 0 is invalid).
	Tol *float64 `json:"tol,omitempty"`
	// MaxStates bounds the state space (0: exact.DefaultMaxStates).
	MaxStates int `json:"max_states,omitempty"`
}

func exactFlags(c *exactConfig) *flags {
	f := newFlags("exact")
	f.add("cap", "K", "largest queue length per server; a task sent to a full server is lost (>= 1; "+
		"default 0: raise the cap until the truncation mass is below --tol)", intValue(&c.Cap))
	f.add("tol", "X", fmt.Sprintf("convergence target for the residual, relative to the total event rate, and "+
		"target truncation mass for an automatic cap (in [1e-14, 0.1]: smaller is below the rounding floor; default %g)", exact.DefaultTol), value[*float64]{&c.Tol, func(s string) (*float64, error) {
		x, err := parseFloat(s)
		return &x, err
	}})
	f.add("max-states", "M", fmt.Sprintf("largest state space, policy states x (cap+1)^N (2 to 2^31-1; default %d)", exact.DefaultMaxStates),
		intValue(&c.MaxStates))
	return f
}

func exactHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: lbsim exact [FILE.json | -] [flags]

Computes the stationary distribution of the continuous-time Markov chain of a
small system (a few servers: the chain has (cap+1)^N states) whose queues are
truncated at a cap, and prints its performance measures as one JSON object.
The scenario comes from flags or a JSON file as for "lbsim run" (the file may
also hold cap, tol and max_states; run-only keys such as horizon are ignored);
flags given on the command line override the file.

Policies with exact routing: `+strings.Join(exactPolicies(), ", ")+`

Flags:
`)
	lbsim.Keys.PrintFlags(w, exactKey)
	exactFlags(&exactConfig{}).printFlags(w)
	printPolicies(w)
	fmt.Fprint(w, `
Output keys: scenario (servers, lambda, policy, d, sampling, rates,
origin_weights, cap, tol, max_states after defaults), policy, cap (the cap
used), caps_tried, cap_limited, note, states, policy_states, transitions,
occupancy (q_1 ... q_cap: expected fraction of servers with at least i tasks),
queue_length (per server, P(length = 0 ... cap)),
tasks_distribution (P(total tasks = n), n = 0 ... N cap), mean_tasks_per_server,
mean_sojourn, wait_probability, accepted_rate, loss_probability,
truncation_mass (probability that some queue is at the cap), residual,
iterations, wall_seconds.

Examples:
  lbsim exact --servers 2 --lambda 0.5 --policy jsq
  lbsim exact --servers 3 --lambda 0.8 --policy jsqd --d 2 --rates 0.5,1,1.5
  lbsim exact --servers 3 --lambda 1.2 --policy jsq --allow-unstable --cap 20

Exit status: 0 success, 1 solver failure (state space too large, no
convergence), 2 invalid input, 130 interrupted by SIGINT or SIGTERM.
`)
}

// exactPolicies lists the registered policies that implement lbsim.ExactRouter.
func exactPolicies() []string {
	var names []string
	for _, name := range lbsim.PolicyNames() {
		sc, err := lbsim.ScenarioFromKeys(map[string]any{"servers": 2, "lambda": 0.5, "policy": name})
		if err != nil { // graph policies need a graph
			sc, err = lbsim.ScenarioFromKeys(map[string]any{"servers": 2, "lambda": 0.5, "policy": name, "topology": "complete"})
		}
		if _, ok := sc.Policy.(lbsim.ExactRouter); err == nil && ok {
			names = append(names, name)
		}
	}
	return names
}

// exactKey selects the keys whose flags exact shows: all but the
// simulation-only ones (which it accepts and ignores).
func exactKey(k *param.Key) bool { return !k.HasTag(param.SimulationOnly) }

// exactScenario returns the part of the configuration that the exact solution
// depends on, as printed: every key after defaults except the
// simulation-only ones, and the solver's cap, tol and max_states.
func exactScenario(v *param.Values, cfg exactConfig) (map[string]any, error) {
	data, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // seeds up to 2^64-1 print exactly
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	for _, k := range v.Decl().Keys() {
		if !exactKey(k) {
			delete(m, k.Name)
		}
	}
	m["cap"], m["tol"], m["max_states"] = cfg.Cap, *cfg.Tol, cfg.MaxStates
	return m, nil
}

func exactCommand(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) error {
	var cfg, fromFlags exactConfig
	v, err := exactFlags(&fromFlags).configure(args, stdin, lbsim.Keys, exactKey, &cfg, &fromFlags)
	if err != nil {
		return err
	}
	sc, err := lbsim.ScenarioFromValues(v)
	if err != nil {
		return usageErr("%v", err)
	}
	if service := v.String("service"); v.Has("service") && service != "exp" {
		return usageErr("service = %q: lbsim exact solves exponential service only (leave service out)", service)
	}
	if discipline := v.String("discipline"); v.Has("discipline") && discipline != "fifo" {
		return usageErr("discipline = %q: lbsim exact solves FIFO service only (with exponential service, "+
			"PS and LIFO-PR give the same queue lengths; leave discipline out)", discipline)
	}
	v, err = sc.CompletedValues()
	if err != nil {
		return err
	}
	router, ok := sc.Policy.(lbsim.ExactRouter)
	if !ok {
		return usageErr("policy = %q: has no exact routing (does not implement lbsim.ExactRouter); must be one of %s",
			v.String("policy"), strings.Join(exactPolicies(), ", "))
	}
	// The solver's own parameters, checked here so that they count as invalid
	// input (exit 2) with their flag names.
	switch {
	case cfg.Cap < 0:
		return usageErr("cap = %d: must be at least 1, or 0 to choose it automatically", cfg.Cap)
	case cfg.Tol != nil && !(*cfg.Tol >= minExactTol && *cfg.Tol <= 0.1):
		return usageErr("tol = %v: must be in [1e-14, 0.1] (smaller is below the rounding floor of the residual; "+
			"leave it out for the default %g)", *cfg.Tol, exact.DefaultTol)
	case cfg.MaxStates != 0 && (cfg.MaxStates < 2 || cfg.MaxStates > math.MaxInt32):
		return usageErr("max_states = %d: must be in [2, 2^31-1], or 0 for the default %d", cfg.MaxStates, exact.DefaultMaxStates)
	case cfg.Cap == 0 && sc.AllowUnstable:
		stable := sc
		stable.AllowUnstable = false
		if _, err := stable.CompletedValues(); err != nil || !stable.Stable() {
			return usageErr("cap = 0 (automatic) needs lambda below the mean service rate (lambda = %v); "+
				"give --cap K to solve the overloaded chain truncated at K", sc.Lambda)
		}
	}
	if cfg.Tol == nil {
		tol := exact.DefaultTol
		cfg.Tol = &tol
	}
	if cfg.MaxStates == 0 {
		cfg.MaxStates = exact.DefaultMaxStates
	}
	if err := checkExactSize(sc.Servers, cfg); err != nil {
		return err
	}

	// A policy that does not fit the system (its Prepare refuses it, as the
	// solver's would) is invalid input, as for lbsim run.
	system := lbsim.System{N: sc.Servers, Rates: sc.Rates, OriginWeights: sc.OriginWeights}
	if pr, ok := sc.Policy.(lbsim.Preparer); ok {
		if _, err := pr.Prepare(system); err != nil {
			return usageErr("policy %q: %v", router.Name(), err)
		}
	}

	start := time.Now()
	sol, err := exact.Solve(ctx, exact.Problem{
		System:    system,
		Lambda:    sc.Lambda,
		Policy:    router,
		Cap:       cfg.Cap,
		Tol:       *cfg.Tol,
		MaxStates: cfg.MaxStates,
	})
	if err != nil {
		return err
	}
	wall := time.Since(start).Seconds()

	scenario, err := exactScenario(v, cfg)
	if err != nil {
		return err
	}
	out := map[string]any{
		"scenario":              scenario,
		"policy":                router.Name(),
		"cap":                   sol.Cap,
		"caps_tried":            sol.CapsTried,
		"cap_limited":           sol.CapLimited,
		"states":                sol.States,
		"policy_states":         sol.PolicyStates,
		"transitions":           sol.Transitions,
		"occupancy":             model.JSONNumbers(sol.Occupancy), // q_1, ..., as in lbsim run
		"tasks_distribution":    model.JSONNumbers(sol.TasksDistribution()),
		"queue_length":          numRows(sol.QueueLength),
		"mean_tasks_per_server": model.JSONNumber(sol.MeanTasksPerServer),
		"mean_sojourn":          model.JSONNumber(sol.MeanSojourn),
		"wait_probability":      model.JSONNumber(sol.WaitProbability),
		"accepted_rate":         model.JSONNumber(sol.AcceptedRate),
		"loss_probability":      model.JSONNumber(sol.LossProbability),
		"truncation_mass":       model.JSONNumber(sol.TruncationMass),
		"residual":              model.JSONNumber(sol.Residual),
		"iterations":            sol.Iterations,
		"wall_seconds":          wall,
	}
	if sol.Note != "" {
		out["note"] = sol.Note
	}
	data, err := encodeResult(ctx, func() any { return out })
	if err != nil {
		return err
	}
	return writeResult(ctx, stdout, data)
}

func numRows(rows [][]float64) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = model.JSONNumbers(r)
	}
	return out
}

// minExactTol is the smallest tol: the residual, relative to the total event
// rate, stalls near 1e-16 times the size of the chain's rates in float64.
const minExactTol = 1e-14

// checkExactSize refuses, as invalid input, a chain larger than max_states
// at an explicit cap and a solve whose memory (about 100 bytes per state and
// 13 per transition, at most 2N+1 transitions per state: see package exact)
// is above the memory limit: max_states bounds the states an automatic cap
// may reach.
func checkExactSize(servers int, cfg exactConfig) error {
	states, key := float64(cfg.MaxStates), fmt.Sprintf("max_states = %d", cfg.MaxStates)
	if least := math.Pow(2, float64(servers)); cfg.Cap == 0 && least > float64(cfg.MaxStates) {
		return usageErr("servers = %d: even cap = 1 gives %.3g states (2^servers), more than max_states = %d; "+
			"exact solutions are for a few servers", servers, least, cfg.MaxStates)
	}
	if cfg.Cap > 0 {
		atCap := math.Pow(float64(cfg.Cap)+1, float64(servers))
		if atCap > float64(cfg.MaxStates) {
			return usageErr("cap = %d: the chain has at least %.3g states ((cap+1)^servers, servers = %d), more than "+
				"max_states = %d; lower cap or raise max_states (at most 2^31-1)", cfg.Cap, atCap, servers, cfg.MaxStates)
		}
		states, key = atCap, fmt.Sprintf("cap = %d (servers = %d)", cfg.Cap, servers)
	}
	return model.CheckMemory(key, states*(100+13*float64(2*servers+1)))
}
