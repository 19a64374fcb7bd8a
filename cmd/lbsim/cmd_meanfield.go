package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/lbsim/notebooks/lbsim/cavity"
	"github.com/lbsim/notebooks/lbsim/meanfield"
	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
	"github.com/lbsim/notebooks/lbsim/service"
)

// meanfieldKeys declares the configuration of `lbsim meanfield`; the
// trajectory file is an option of the command (meanfieldConfig).
var meanfieldKeys = newMeanfieldKeys()

// meanfieldConfig is what `lbsim meanfield` reads besides its keys.
type meanfieldConfig struct {
	Trajectory string `json:"trajectory,omitempty"`
}

// meanfieldPolicies are the policies with a mean-field drift, in help order.
var meanfieldPolicies = []string{"random", "jsqd", "jsq", "jiq", "jiqd"}

const meanfieldDefaultTol = 1e-12

func newMeanfieldKeys() *param.Set {
	s := param.NewSet("lbsim meanfield", "policy")
	s.Add(
		param.Key{Name: "policy", Kind: param.String, Arg: "NAME", Required: true, Enum: meanfieldPolicies,
			Doc: "the drift: random, jsqd, jsq (also JSQ(d(N)) with d(N) -> infinity), jiq or jiqd"},
		param.Key{Name: "lambda", Kind: param.Float, Arg: "X", Required: true, Range: "in (0, 1)",
			Doc: "arrival rate per server", Check: func(x any, _ *param.Values) string {
				if l := x.(float64); !(l > 0 && l < 1) {
					return "must be in (0, 1)"
				}
				return ""
			}},
		param.Key{Name: "d", Kind: param.Int, Arg: "D", For: []string{"jsqd", "jiqd"}, DefaultDoc: "2",
			Default: param.Constant(2), Doc: "servers sampled per task by jsqd and jiqd", Check: param.IntBetween(1, 1000)},
		param.Key{Name: "sampling", Kind: param.String, Arg: "with|without", For: []string{"jsqd"},
			Enum: []string{"with", "without"}, DefaultDoc: "with", Default: param.Constant("with"),
			Doc: "jsqd samples with replacement (the N -> infinity limit) or without, which needs servers and uses " +
				"the exact finite-N sampling probabilities"},
		param.Key{Name: "servers", Kind: param.Int, Arg: "N", For: []string{"jsqd"}, Range: "d to 2^40",
			Doc: "number of servers for sampling without, and where --refined is evaluated", Check: func(x any, v *param.Values) string {
				n, d := x.(int), v.Int("d")
				if v.String("sampling") != "without" && !v.Bool("refined") {
					return "only used with --policy jsqd and --sampling without or --refined"
				}
				if n < d || n > 1<<40 {
					return fmt.Sprintf("must be between d = %d and 2^40", d)
				}
				return ""
			}},
		param.Key{Name: "refined", Kind: param.Bool, For: []string{"jsqd"}, DefaultDoc: "false", Default: param.Constant(false),
			Doc: fmt.Sprintf("also compute the refined mean field of Gast and Van Houdt, E[q_i(N)] = q_i + c_i/N + O(1/N^2), "+
				"at most %d levels; with --servers N also its value at N", meanfield.MaxRefinedLevels)},
		param.Key{Name: "init", Kind: param.Floats, Arg: "LIST", DefaultDoc: "empty system",
			Doc: "initial occupancy q_1,q_2,... with 1 >= q_1 >= q_2 >= ... >= 0, in the syntax of lbsim run --rates",
			Check: func(x any, _ *param.Values) string {
				prev := 1.0
				for i, q := range x.([]float64) {
					if math.IsNaN(q) || q < 0 || q > prev {
						return fmt.Sprintf("init[%d] = %v: the initial occupancy must satisfy 1 >= init[0] >= init[1] >= ... >= 0", i, q)
					}
					prev = q
				}
				return ""
			}},
		param.Key{Name: "until", Kind: param.Float, Arg: "T", Required: true, Range: "a time > 0",
			Doc: "integrate the ODE from time 0 to T", Check: param.Positive("time")},
		param.Key{Name: "grid", Kind: param.Float, Arg: "DT", DefaultDoc: "until/100",
			Default: func(v *param.Values) (any, bool) { return v.Float("until") / 100, v.Has("until") },
			Doc:     "report q(t) every DT time units (> 0, until/DT at most 1e6)",
			Check: func(x any, v *param.Values) string {
				if g := x.(float64); !(g > 0) || v.Float("until")/g > 1e6 {
					return fmt.Sprintf("must be > 0 with until/grid at most 1e6 (until = %v)", v.Float("until"))
				}
				return ""
			}},
		param.Key{Name: "tol", Kind: param.Float, Arg: "X", DefaultDoc: fmt.Sprint(meanfieldDefaultTol),
			Default: param.Constant(meanfieldDefaultTol),
			Doc:     "truncation tolerance: the ODE keeps the levels whose fixed-point tail mass is at least X, plus 3 (in (0, 0.1])",
			Check: func(x any, _ *param.Values) string {
				if t := x.(float64); !(t > 0 && t <= 0.1) {
					return "must be in (0, 0.1]"
				}
				return ""
			}},
		param.Key{Name: "levels", Kind: param.Int, Arg: "K", Doc: "truncation level K instead of the automatic one",
			Check: param.IntBetween(1, 100000)},
		param.Key{Name: "beta", Kind: param.Float, Arg: "B", For: []string{"jsq", "jiq", "jiqd"}, Range: "in [0.5, 20]",
			Doc: "also compute the stationary law of the Halfin-Whitt diffusion limit (lambda(N) = 1 - B/sqrt(N); " +
				"JSQ's, which JIQ and JIQ(d) share) by the lattice chain extrapolated in h",
			Check: func(x any, _ *param.Values) string {
				if b := x.(float64); !(b >= 0.5 && b <= 20) {
					return "must be in [0.5, 20]"
				}
				return ""
			}},
		param.Key{Name: "diffusion_levels", Kind: param.Int, Arg: "K", For: []string{"jsq", "jiq", "jiqd"},
			DefaultDoc: "4", Doc: "with --beta: lattice spacings 0.1, 0.05, ..., 0.1/2^(K-1) of the extrapolation (2 to 5)",
			Check: func(x any, v *param.Values) string {
				if !v.Has("beta") {
					return "only used with --beta"
				}
				return param.IntBetween(2, 5)(x, v)
			}},
		param.Key{Name: "cavity", Kind: param.String, Arg: "SPEC", For: []string{"jsqd"},
			Doc: "also print the exact cavity fixed point of FIFO JSQ(d) (samples with replacement) with this service law, " +
				"in the syntax of lbsim run --service (mean 1 unless mean= is given): object cavity, computed without " +
				"simulation by lbsim/cavity with its stated accuracy",
			Check: func(x any, v *param.Values) string {
				d, err := service.Parse(x.(string))
				if err != nil {
					return strings.TrimPrefix(err.Error(), "service: ")
				}
				if m := d.Mean(); !(m > 0) || math.IsInf(m, 0) {
					return "must have a finite mean > 0"
				}
				if rho := v.Float("lambda") * d.Mean(); !(rho < 1) {
					return fmt.Sprintf("the load lambda*E[S] = %v must be below 1", rho)
				}
				return ""
			}},
	)
	return s
}

func meanfieldFlags(c *meanfieldConfig) *flags {
	f := newFlags("meanfield")
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
	meanfieldKeys.PrintFlags(w, nil)
	meanfieldFlags(&meanfieldConfig{}).printFlags(w)
	fmt.Fprint(w, `
Output keys: scenario (the configuration after defaults), times, occupancy
(for each time, q_1 ... q_K), levels (K), neglected_mass (fixed-point mass
beyond K), top_level_max (largest q_K along the path: mass near the
truncation), order_violation, steps, fixed_point (q_1 ... q_K of the
truncated ODE), fixed_point_residual, mean_tasks, mean_sojourn and
wait_probability at the fixed point. With --refined (jsqd only), refined:
the 1/N coefficients c (E[q_i(N)] = q_i + c_i/N + O(1/N^2)), sampling_c
(their part due to sampling without replacement), variance (N Var q_i(N)),
mean_sojourn_c, levels, truncation_error (how much c moves with 4 more
levels), neglected_mass and, with --servers N, occupancy and mean_sojourn
at N. With --beta B (jsq, jiq, jiqd), diffusion: the stationary law of the
Halfin-Whitt diffusion limit (Qbar_1 = -(idle servers)/sqrt(N), Qbar_2 =
(servers with >= 2 tasks)/sqrt(N)) from the lattice chain extrapolated in
h: beta, method, h, box, mean1, mean2, var1, var2, cov12, points1/cdf1
(P(Qbar_1 <= x)), points2/cdf2 (P(Qbar_2 <= x)), each {value, error}
(error: discretisation plus truncation), residual, edge_mass.

Examples:
  lbsim meanfield --policy jsqd --d 2 --lambda 0.9 --until 20 --grid 0.1
  lbsim meanfield --policy jsq --lambda 0.9 --init 1,1,1 --until 30
  lbsim meanfield --policy jsqd --lambda 0.9 --sampling without --servers 100 --until 50
  lbsim meanfield --policy jsqd --lambda 0.9 --until 1 --refined --servers 10
  lbsim meanfield --policy jsq --lambda 0.99 --until 1 --beta 1
  lbsim meanfield --policy jsqd --lambda 0.9 --until 1 --cavity pareto:alpha=3

Exit status: 0 success, 1 runtime failure (integration or fixed point failed,
unwritable trajectory file), 2 invalid input, 130 interrupted.
`)
}

func meanfieldCommand(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) error {
	var cfg, fromFlags meanfieldConfig
	v, err := meanfieldFlags(&fromFlags).configure(args, stdin, meanfieldKeys, nil, &cfg, &fromFlags)
	if err != nil {
		return err
	}
	if err := meanfieldKeys.Complete(v); err != nil {
		return usageErr("%v", err)
	}
	policy, lambda, d, servers := v.String("policy"), v.Float("lambda"), v.Int("d"), v.Int("servers")
	init, until, grid, tol, levels := v.Floats("init"), v.Float("until"), v.Float("grid"), v.Float("tol"), v.Int("levels")
	without := v.String("sampling") == "without"
	if without && !v.Has("servers") {
		return usageErr("servers: missing; --sampling without needs --servers N (an integer >= d = %d)", d)
	}
	refined := v.Bool("refined")
	if refined && levels > meanfield.MaxRefinedLevels {
		return usageErr("levels = %d: --refined takes at most %d levels", levels, meanfield.MaxRefinedLevels)
	}
	if cfg.Trajectory != "" {
		if err := checkOutputPath("trajectory", cfg.Trajectory); err != nil {
			return err
		}
	}

	// The drift, the truncation level and a first guess of the fixed point.
	var drift meanfield.System
	levelD := d // the JSQ(d) whose fixed-point tail sets the level
	exactTail := false
	switch policy {
	case "random":
		drift, err = meanfield.RandomDrift(lambda)
		levelD, exactTail = 1, true
	case "jsqd":
		if without {
			drift, err = meanfield.JSQdWithoutReplacementDrift(lambda, d, servers)
		} else {
			drift, err = meanfield.JSQdDrift(lambda, d)
			exactTail = true
		}
	case "jsq":
		drift, err = meanfield.JSQDrift(lambda)
		levelD = 2 // JSQ's transient is dominated by JSQ(2)'s
	case "jiq":
		drift, err = meanfield.JIQDrift(lambda)
		levelD = 1 // the excess is routed at random
	case "jiqd":
		drift, err = meanfield.JIQdDrift(lambda, d)
	}
	if err != nil {
		return usageErr("%v", err)
	}
	K, neglected, err := meanfield.Levels(lambda, levelD, tol, init)
	if err != nil {
		return usageErr("%v", err)
	}
	if levels > 0 {
		K = levels
	}
	guess := make([]float64, K)
	if exactTail || policy == "jsqd" {
		fp, _, _ := meanfield.JSQdFixedPoint(lambda, levelD, 1e-300)
		copy(guess, fp)
		if levels > 0 {
			neglected = 0
			for _, v := range fp[min(K, len(fp)):] {
				neglected += v
			}
		}
	} else {
		guess[0] = lambda
		neglected = 0 // the fluid fixed point is (lambda, 0, 0, ...)
	}

	n := int(math.Floor(until/grid+1e-9)) + 1
	if err := checkMeanfieldMemory(v, K, n); err != nil {
		return err
	}
	times := make([]float64, n, n+1)
	for j := range times {
		times[j] = float64(j) * grid
	}
	if times[n-1] < until*(1-1e-12) {
		times = append(times, until)
	}
	path, err := meanfield.Trajectory(ctx, drift, init, times, K, meanfield.Options{})
	if errors.Is(err, meanfield.ErrStepLimit) {
		return usageErr("until = %v: %v; integrate to a shorter time (the fixed point is computed separately)", until, err)
	}
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
	case policy == "random":
		wait = fixed[0]
	case policy == "jsqd" && !without:
		wait = meanfield.WaitProbability(fixed, d)
	case policy == "jsqd":
		wait = 1.0
		N := float64(servers)
		for k := 0; k < d; k++ {
			wait *= math.Max(N*fixed[0]-float64(k), 0) / (N - float64(k))
		}
	default: // jsq, jiq, jiqd: every task finds an idle server while q_1 < 1
		if fixed[0] >= 1 {
			wait = 1
		}
	}

	out := map[string]any{
		"scenario":             v,
		"times":                path.Times,
		"occupancy":            numRows(path.Y),
		"levels":               K,
		"neglected_mass":       neglected,
		"top_level_max":        topMax,
		"order_violation":      model.JSONNumber(path.OrderViolation),
		"steps":                path.Steps,
		"fixed_point":          model.JSONNumbers(fixed),
		"fixed_point_residual": model.JSONNumber(residual),
		"mean_tasks":           model.JSONNumber(meanfield.MeanTasks(fixed)),
		"mean_sojourn":         model.JSONNumber(meanfield.MeanSojourn(fixed, lambda)),
		"wait_probability":     model.JSONNumber(wait),
	}
	if v.Has("beta") {
		levels := 4
		if v.Has("diffusion_levels") {
			levels = v.Int("diffusion_levels")
		}
		d, err := diffusionOutput(ctx, v.Float("beta"), levels)
		if err != nil {
			return err
		}
		out["diffusion"] = d
	}
	if v.Has("cavity") {
		dist, err := service.Parse(v.String("cavity"))
		if err != nil {
			return usageErr("cavity = %q: %v", v.String("cavity"), err)
		}
		p, err := cavity.Predict(ctx, lambda, d, dist, cavity.Options{})
		if err != nil {
			return err
		}
		out["cavity"] = map[string]any{
			"service":         dist.String(),
			"u":               model.JSONNumbers(p.U),
			"levels":          p.Levels,
			"iterations":      p.Iterations,
			"residual":        model.JSONNumber(p.Residual),
			"iteration_error": model.JSONNumber(p.IterationError),
			"truncation":      model.JSONNumber(p.Truncation),
			"quadrature":      model.JSONNumber(p.Quadrature),
			"accuracy":        model.JSONNumber(p.Accuracy),
			"mean_tasks":      model.JSONNumber(p.MeanLength),
			"mean_sojourn":    model.JSONNumber(p.MeanLength / lambda),
		}
	}
	if refined {
		r, err := meanfield.JSQdRefined(lambda, d, without, levels)
		if err != nil {
			return usageErr("%v", err)
		}
		out["refined"] = refinedOutput(r, servers)
	}
	data, err := encodeResult(ctx, func() any { return out })
	if err != nil {
		return err
	}
	var files outputs
	defer files.discard()
	if cfg.Trajectory != "" {
		err := files.stage("trajectory", cfg.Trajectory, func(w io.Writer) error { return writeMeanfieldCSV(w, path) })
		if err != nil {
			return err
		}
	}
	return files.commit(ctx, stdout, data)
}

// diffusionPoints1 and diffusionPoints2 are where the "diffusion" object
// gives the distribution functions of Qbar_1 and Qbar_2.
var diffusionPoints1, diffusionPoints2 = steps(-4, -0.25, 0.25), steps(0.25, 6, 0.25)

func steps(from, to, by float64) []float64 {
	var xs []float64
	for k := 0; from+float64(k)*by <= to+1e-9; k++ {
		xs = append(xs, from+float64(k)*by)
	}
	return xs
}

// diffusionOutput is the "diffusion" object of lbsim meanfield --beta: the
// stationary law of the Eschenfeldt-Gamarnik diffusion from
// meanfield.JSQDiffusionLawLimit, each figure {value, error}.
func diffusionOutput(ctx context.Context, beta float64, levels int) (map[string]any, error) {
	l, err := meanfield.JSQDiffusionLawLimit(ctx, meanfield.DiffusionLimitOptions{Beta: beta, Levels: levels,
		Points1: diffusionPoints1, Points2: diffusionPoints2})
	if err != nil {
		return nil, err
	}
	est := func(e meanfield.Estimate) map[string]any {
		return map[string]any{"value": model.JSONNumber(e.Value), "error": model.JSONNumber(e.Numerical)}
	}
	ests := func(es []meanfield.Estimate) []any {
		out := make([]any, len(es))
		for k, e := range es {
			out[k] = est(e)
		}
		return out
	}
	return map[string]any{
		"beta":      beta,
		"method":    "lattice chain (Kushner-Dupuis) extrapolated in h (Richardson)",
		"h":         l.H,
		"box":       []float64{l.L1, l.L2},
		"mean1":     est(l.Mean1),
		"mean2":     est(l.Mean2),
		"var1":      est(l.Var1),
		"var2":      est(l.Var2),
		"cov12":     est(l.Cov12),
		"points1":   l.Points1,
		"cdf1":      ests(l.CDF1),
		"points2":   l.Points2,
		"cdf2":      ests(l.CDF2),
		"residual":  model.JSONNumber(l.Residual),
		"edge_mass": model.JSONNumber(l.EdgeMass),
	}, nil
}

// refinedOutput is the "refined" object of lbsim meanfield --refined: the
// coefficients, their truncation check, the variances W_ii (N Var q_i(N) ->
// W_ii) and, for n > 0 servers, the approximation at n.
func refinedOutput(r *meanfield.Refined, n int) map[string]any {
	variance := make([]float64, r.Levels)
	for i := range variance {
		variance[i] = r.Covariance[i][i]
	}
	o := map[string]any{
		"levels":           r.Levels,
		"fixed_point":      model.JSONNumbers(r.FixedPoint),
		"c":                model.JSONNumbers(r.C),
		"sampling_c":       model.JSONNumbers(r.SamplingC),
		"variance":         model.JSONNumbers(variance),
		"mean_sojourn_c":   model.JSONNumber(meanfield.MeanTasks(r.C) / r.Lambda),
		"truncation_error": model.JSONNumber(r.TruncationError),
		"neglected_mass":   model.JSONNumber(r.NeglectedMass),
	}
	if n > 0 {
		o["servers"] = n
		o["occupancy"] = model.JSONNumbers(r.At(n))
		o["mean_sojourn"] = model.JSONNumber(r.MeanSojourn(n))
	}
	return o
}

// writeMeanfieldCSV writes time,q1..qK rows.
func writeMeanfieldCSV(out io.Writer, p *meanfield.Path) error {
	w := csv.NewWriter(out)
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
	return errors.Join(werr, w.Error())
}

// checkMeanfieldMemory refuses, naming the key, a truncation whose memory is
// above the limit: the fixed point's Newton steps hold a dense K x K Jacobian
// and its factorisation (16 K^2 bytes), the path K numbers per reported time
// (8 bytes each, and about 24 more in the JSON printed).
func checkMeanfieldMemory(v *param.Values, levels, times int) error {
	k := float64(levels)
	key := fmt.Sprintf("levels = %d", levels)
	switch {
	case v.Has("levels"):
	case len(v.Floats("init"))+3 >= levels:
		key = fmt.Sprintf("init (%d levels)", len(v.Floats("init")))
	default:
		key = fmt.Sprintf("tol = %g (%d levels)", v.Float("tol"), levels)
	}
	path := 32 * k * float64(times)
	if path > 16*k*k {
		key = fmt.Sprintf("grid = %g (%d times, %d levels)", v.Float("grid"), times, levels)
	}
	return model.CheckMemory(key, 16*k*k+path)
}
