package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/lbsim/notebooks/lbsim/meanfield"
)

// meanfieldConfig is what `lbsim meanfield` reads from a file and its flags.
type meanfieldConfig struct {
	Policy     string    `json:"policy"`
	Lambda     float64   `json:"lambda"`
	D          int       `json:"d,omitempty"`
	Sampling   string    `json:"sampling,omitempty"`
	Servers    int       `json:"servers,omitempty"`
	Init       []float64 `json:"init,omitempty"`
	Until      float64   `json:"until"`
	Grid       float64   `json:"grid,omitempty"`
	Tol        float64   `json:"tol,omitempty"`
	Levels     int       `json:"levels,omitempty"`
	Trajectory string    `json:"trajectory,omitempty"`
}

// meanfieldPolicies are the policies with a mean-field drift, in help order.
var meanfieldPolicies = []string{"random", "jsqd", "jsq", "jiq", "jiqd"}

const meanfieldDefaultTol = 1e-12

func meanfieldFlags(c *meanfieldConfig) *flags {
	f := newFlags("meanfield")
	f.add("policy", "NAME", "random, jsqd, jsq (also JSQ(d(N)) with d(N) -> infinity), jiq or jiqd (required)",
		stringValue(&c.Policy))
	f.add("lambda", "X", "arrival rate per server, in (0, 1) (required)", floatValue(&c.Lambda))
	f.add("d", "D", "servers sampled per task by jsqd and jiqd (>= 1; default 2)", intValue(&c.D))
	f.add("sampling", "with|without", "jsqd samples with replacement (the N -> infinity limit; default) or "+
		"without, which needs --servers N and uses the exact finite-N sampling probabilities", stringValue(&c.Sampling))
	f.add("servers", "N", "number of servers for --sampling without (>= d)", intValue(&c.Servers))
	f.add("init", "LIST", "initial occupancy q_1,q_2,... with 1 >= q_1 >= q_2 >= ... >= 0 (default empty "+
		"system); same syntax as lbsim run --rates", floatList(&c.Init))
	f.add("until", "T", "integrate the ODE from time 0 to T (> 0; required)", floatValue(&c.Until))
	f.add("grid", "DT", "report q(t) every DT time units (> 0, until/DT at most 1e6; default until/100)",
		floatValue(&c.Grid))
	f.add("tol", "X", fmt.Sprintf("truncation tolerance: the ODE keeps the levels whose fixed-point tail mass "+
		"is at least X, plus 3 (in (0, 0.1]; default %g)", meanfieldDefaultTol), floatValue(&c.Tol))
	f.add("levels", "K", "truncation level K instead of the automatic one (1 to 100000)", intValue(&c.Levels))
	f.add("trajectory", "FILE.csv", "also write the occupancy trajectory to FILE.csv (columns time,q1,...,qK)",
		stringValue(&c.Trajectory))
	return f
}

func meanfieldHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: lbsim meanfield [FILE.json | -] [flags]

Integrates the mean-field (N -> infinity) ODE of the occupancy q_i(t), the
fraction of servers with at least i tasks, for unit-rate servers and arrival
rate lambda per server, and finds its fixed point. Prints one JSON object on
stdout. The configuration comes from flags or a JSON file with the keys named
like the flags (_ for -); flags override the file.

Drifts (package lbsim/meanfield): random and jsqd (JSQ(d) of Vvedenskaya et
al. and Mitzenmacher; jsqd --sampling without --servers N: the exact finite-N
sampling probabilities), jsq (the JSQ fluid limit: arrivals to the shortest
queues, with the boundary q_i = 1 handled exactly), jiq and jiqd (idle
server first, else random or shortest of d).

Flags:
`)
	meanfieldFlags(&meanfieldConfig{}).printFlags(w)
	fmt.Fprint(w, `
Output keys: scenario (the configuration after defaults), times, occupancy
(for each time, q_1 ... q_K), levels (K), neglected_mass (fixed-point mass
beyond K), top_level_max (largest q_K along the path: mass near the
truncation), order_violation, steps, fixed_point (q_1 ... q_K of the
truncated ODE), fixed_point_residual, mean_tasks, mean_sojourn and
wait_probability at the fixed point.

Examples:
  lbsim meanfield --policy jsqd --d 2 --lambda 0.9 --until 20 --grid 0.1
  lbsim meanfield --policy jsq --lambda 0.9 --init 1,1,1 --until 30
  lbsim meanfield --policy jsqd --lambda 0.9 --sampling without --servers 100 --until 50

Exit status: 0 success, 1 runtime failure (integration or fixed point failed,
unwritable trajectory file), 2 invalid input, 130 interrupted.
`)
}

// meanfieldScenario is the configuration as printed.
type meanfieldScenario struct {
	Policy   string    `json:"policy"`
	Lambda   float64   `json:"lambda"`
	D        int       `json:"d,omitempty"`
	Sampling string    `json:"sampling,omitempty"`
	Servers  int       `json:"servers,omitempty"`
	Init     []float64 `json:"init,omitempty"`
	Until    float64   `json:"until"`
	Grid     float64   `json:"grid"`
	Tol      float64   `json:"tol"`
	Levels   int       `json:"levels,omitempty"`
}

func meanfieldCommand(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) error {
	var cfg, fromFlags meanfieldConfig
	given, err := meanfieldFlags(&fromFlags).configure(args, stdin, &cfg, &fromFlags)
	if err != nil {
		return err
	}
	usesD := cfg.Policy == "jsqd" || cfg.Policy == "jiqd"
	switch {
	case cfg.Policy == "" && !given["policy"]:
		return usageErr("policy: missing; give --policy NAME, one of random, jsqd, jsq, jiq, jiqd")
	case !contains(meanfieldPolicies, cfg.Policy):
		return usageErr("policy = %q: unknown; must be one of random, jsqd, jsq, jiq, jiqd", cfg.Policy)
	case cfg.Lambda == 0 && !given["lambda"]:
		return usageErr("lambda: missing; give --lambda X in (0, 1)")
	case !(cfg.Lambda > 0 && cfg.Lambda < 1):
		return usageErr("lambda = %v: must be in (0, 1)", cfg.Lambda)
	case given["d"] && !usesD:
		return usageErr("d = %d: only jsqd and jiqd take d (policy = %q)", cfg.D, cfg.Policy)
	case given["d"] && (cfg.D < 1 || cfg.D > 1000):
		return usageErr("d = %d: must be between 1 and 1000", cfg.D)
	case given["sampling"] && cfg.Policy != "jsqd":
		return usageErr("sampling = %q: only jsqd takes sampling (policy = %q)", cfg.Sampling, cfg.Policy)
	case cfg.Sampling != "" && cfg.Sampling != "with" && cfg.Sampling != "without":
		return usageErr("sampling = %q: must be with or without", cfg.Sampling)
	case cfg.Until == 0 && !given["until"]:
		return usageErr("until: missing; give --until T (a time > 0)")
	case !(cfg.Until > 0) || math.IsInf(cfg.Until, 0):
		return usageErr("until = %v: must be a finite time > 0", cfg.Until)
	case given["grid"] && (!(cfg.Grid > 0) || cfg.Until/cfg.Grid > 1e6):
		return usageErr("grid = %v: must be > 0 with until/grid at most 1e6 (until = %v)", cfg.Grid, cfg.Until)
	case given["tol"] && !(cfg.Tol > 0 && cfg.Tol <= 0.1):
		return usageErr("tol = %v: must be in (0, 0.1]", cfg.Tol)
	case given["levels"] && (cfg.Levels < 1 || cfg.Levels > 100000):
		return usageErr("levels = %d: must be between 1 and 100000", cfg.Levels)
	}
	if usesD && cfg.D == 0 {
		cfg.D = 2
	}
	if cfg.Policy == "jsqd" && cfg.Sampling == "" {
		cfg.Sampling = "with"
	}
	without := cfg.Sampling == "without"
	switch {
	case without && !given["servers"]:
		return usageErr("servers: missing; --sampling without needs --servers N (an integer >= d = %d)", cfg.D)
	case without && (cfg.Servers < cfg.D || cfg.Servers > 1<<40):
		return usageErr("servers = %d: must be between d = %d and 2^40", cfg.Servers, cfg.D)
	case given["servers"] && !without:
		return usageErr("servers = %d: only used with --policy jsqd --sampling without", cfg.Servers)
	}
	prev := 1.0
	for i, v := range cfg.Init {
		if math.IsNaN(v) || v < 0 || v > prev {
			return usageErr("init[%d] = %v: the initial occupancy must satisfy 1 >= init[0] >= init[1] >= ... >= 0", i, v)
		}
		prev = v
	}
	if cfg.Grid == 0 {
		cfg.Grid = cfg.Until / 100
	}
	if cfg.Tol == 0 {
		cfg.Tol = meanfieldDefaultTol
	}
	if cfg.Trajectory != "" {
		if st, err := os.Stat(filepath.Dir(cfg.Trajectory)); err != nil || !st.IsDir() {
			return failure(fmt.Errorf("trajectory = %q: its directory does not exist", cfg.Trajectory))
		}
	}

	// The drift, the truncation level and a first guess of the fixed point.
	var drift meanfield.System
	levelD := cfg.D // the JSQ(d) whose fixed-point tail sets the level
	exactTail := false
	switch cfg.Policy {
	case "random":
		drift, err = meanfield.RandomDrift(cfg.Lambda)
		levelD, exactTail = 1, true
	case "jsqd":
		if without {
			drift, err = meanfield.JSQdWithoutReplacementDrift(cfg.Lambda, cfg.D, cfg.Servers)
		} else {
			drift, err = meanfield.JSQdDrift(cfg.Lambda, cfg.D)
			exactTail = true
		}
	case "jsq":
		drift, err = meanfield.JSQDrift(cfg.Lambda)
		levelD = 2 // JSQ's transient is dominated by JSQ(2)'s
	case "jiq":
		drift, err = meanfield.JIQDrift(cfg.Lambda)
		levelD = 1 // the excess is routed at random
	case "jiqd":
		drift, err = meanfield.JIQdDrift(cfg.Lambda, cfg.D)
	}
	if err != nil {
		return usageErr("%v", err)
	}
	K, neglected, err := meanfield.Levels(cfg.Lambda, levelD, cfg.Tol, cfg.Init)
	if err != nil {
		return usageErr("%v", err)
	}
	if cfg.Levels > 0 {
		K = cfg.Levels
	}
	guess := make([]float64, K)
	if exactTail || cfg.Policy == "jsqd" {
		fp, _, _ := meanfield.JSQdFixedPoint(cfg.Lambda, levelD, 1e-300)
		copy(guess, fp)
		if cfg.Levels > 0 {
			neglected = 0
			for _, v := range fp[min(K, len(fp)):] {
				neglected += v
			}
		}
	} else {
		guess[0] = cfg.Lambda
		neglected = 0 // the fluid fixed point is (lambda, 0, 0, ...)
	}

	n := int(math.Floor(cfg.Until/cfg.Grid+1e-9)) + 1
	times := make([]float64, n, n+1)
	for j := range times {
		times[j] = float64(j) * cfg.Grid
	}
	if times[n-1] < cfg.Until*(1-1e-12) {
		times = append(times, cfg.Until)
	}
	path, err := meanfield.Trajectory(ctx, drift, cfg.Init, times, K, meanfield.Options{})
	if err != nil {
		return err
	}
	fixed, residual, err := meanfield.FixedPoint(ctx, drift, K, guess)
	if err != nil {
		return err
	}
	topMax := 0.0
	for _, q := range path.Y {
		topMax = math.Max(topMax, q[K-1])
	}
	var wait float64
	switch {
	case cfg.Policy == "random":
		wait = fixed[0]
	case cfg.Policy == "jsqd" && !without:
		wait = meanfield.WaitProbability(fixed, cfg.D)
	case cfg.Policy == "jsqd":
		wait = 1.0
		N := float64(cfg.Servers)
		for k := 0; k < cfg.D; k++ {
			wait *= math.Max(N*fixed[0]-float64(k), 0) / (N - float64(k))
		}
	default: // jsq, jiq, jiqd: every task finds an idle server while q_1 < 1
		if fixed[0] >= 1 {
			wait = 1
		}
	}

	sc := meanfieldScenario{Policy: cfg.Policy, Lambda: cfg.Lambda, D: cfg.D, Sampling: cfg.Sampling,
		Servers: cfg.Servers, Init: cfg.Init, Until: cfg.Until, Grid: cfg.Grid, Tol: cfg.Tol, Levels: cfg.Levels}
	out := map[string]any{
		"scenario":             sc,
		"times":                path.Times,
		"occupancy":            numRows(path.Y),
		"levels":               K,
		"neglected_mass":       neglected,
		"top_level_max":        topMax,
		"order_violation":      num(path.OrderViolation),
		"steps":                path.Steps,
		"fixed_point":          nums(fixed),
		"fixed_point_residual": num(residual),
		"mean_tasks":           num(meanfield.MeanTasks(fixed)),
		"mean_sojourn":         num(meanfield.MeanSojourn(fixed, cfg.Lambda)),
		"wait_probability":     num(wait),
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return failure(fmt.Errorf("encoding the result: %w", err))
	}
	if cfg.Trajectory != "" {
		if err := writeMeanfieldCSV(cfg.Trajectory, path); err != nil {
			return failure(err)
		}
	}
	if _, err := stdout.Write(append(data, '\n')); err != nil {
		return failure(err)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// writeMeanfieldCSV writes time,q1..qK rows, removing the file on failure.
func writeMeanfieldCSV(name string, p *meanfield.Path) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("trajectory: %w", err)
	}
	w := csv.NewWriter(f)
	row := make([]string, p.Levels+1)
	row[0] = "time"
	for i := 1; i <= p.Levels; i++ {
		row[i] = "q" + strconv.Itoa(i)
	}
	werr := w.Write(row)
	for j, t := range p.Times {
		if werr != nil {
			break
		}
		row[0] = strconv.FormatFloat(t, 'g', -1, 64)
		for i, v := range p.Y[j] {
			row[i+1] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		werr = w.Write(row)
	}
	w.Flush()
	err = errors.Join(werr, w.Error(), f.Close())
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("trajectory: writing %s: %w", name, err)
	}
	return nil
}
