package csma

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
)

// The keys of the csma model.
const (
	keyConflict      = "conflict"
	keyTargets       = "targets"
	keyUtility       = "utility"
	keyUtilityWeight = "utility_weight"
	keyWindows       = "windows"
	keyWindowLength  = "window_length"
	keyWindowGrowth  = "window_growth"
	keyStep          = "step"
	keyTheta0        = "theta0"
	keyThetaTrace    = "theta_trace"
)

// MaxWindows bounds the windows of a run; MaxTraceValues the numbers a
// theta trace holds (replications x windows x 2 nodes; 8 bytes each in
// memory).
const (
	MaxWindows     = 100_000_000
	MaxTraceValues = 1 << 24
)

// Keys declares the parameters of the csma model: `lbsim csma` flags,
// scenario-file keys and sweep axes.
var Keys = newKeys()

func newKeys() *param.Set {
	s := param.NewSet("lbsim csma", "")
	s.Add(
		param.Key{Name: keyConflict, Kind: param.String, Arg: "SPEC", Required: true,
			Range: "path:N, ring:N, grid:RxC, torus:L, complete:N or an edge-list file",
			Doc: "conflict graph (nodes joined by an edge never transmit together): ring needs N >= 3; grid has 4 " +
				"neighbours and no wrap-around; torus needs L >= 3; a FILE is an edge list (\"u v\" per line, 0-based) on " +
				"as many nodes as targets, else the largest id plus one",
			Check: func(x any, _ *param.Values) string {
				if x.(string) == "" {
					return "must name a conflict graph"
				}
				return ""
			}},
		param.Key{Name: keyTargets, Kind: param.Floats, Arg: "LIST", DefaultDoc: "none",
			Range: "one per node, in the interior of the capacity region; with every |theta*_i| <= 30 where the exact optimum is computed",
			Doc:   "target activities gamma_i (fraction of time node i transmits); give targets or utility"},
		param.Key{Name: keyUtility, Kind: param.String, Arg: "U", DefaultDoc: "none", Enum: []string{"log"},
			Doc: "maximise utility_weight * sum_i log s_i + the entropy of the schedule instead of reaching targets"},
		param.Key{Name: keyUtilityWeight, Kind: param.Float, Arg: "V", DefaultDoc: "1", Range: fmt.Sprintf("in (0, %v)", MaxTheta),
			Doc: "weight V of the utility against the entropy (the optimum has theta_i = V/s_i)",
			// theta*_i = V/s_i > V (s_i < 1): a weight of MaxTheta or more puts
			// the optimum beyond MaxTheta on every graph.
			Check: func(x any, _ *param.Values) string {
				if w := x.(float64); !(w > 0 && w < MaxTheta) {
					return fmt.Sprintf("must be in (0, %v): the optimum has theta_i = V/s_i > V, and |theta_i| is at most %v", MaxTheta, MaxTheta)
				}
				return ""
			}},
		param.Key{Name: keyWindows, Kind: param.Int, Arg: "M", DefaultDoc: "1000", Default: param.Constant(1000),
			Doc: "measurement windows (theta is updated after each)", Check: param.IntBetween(1, MaxWindows)},
		param.Key{Name: keyWindowLength, Kind: param.Float, Arg: "T", DefaultDoc: "100", Default: param.Constant(100.0),
			Doc: "length T_0 of the first window, in mean transmission times", Check: param.Positive("time")},
		param.Key{Name: keyWindowGrowth, Kind: param.Float, Arg: "P", DefaultDoc: "0", Default: param.Constant(0.0),
			Range: "in [0, 2]", Doc: "windows grow as T_m = T_0 m^P (0: all alike)",
			Check: func(x any, _ *param.Values) string {
				if p := x.(float64); !(p >= 0 && p <= 2) {
					return "must be in [0, 2]"
				}
				return ""
			}},
		param.Key{Name: keyStep, Kind: param.String, Arg: "A[/m[^P]]", DefaultDoc: "5/m^0.7", Default: param.Constant("5/m^0.7"),
			Range: "A, A/m or A/m^P with A > 0 and P in (0, 1]",
			Doc:   "step size a_m of the update after window m: constant A, A/m or A/m^P",
			Check: func(x any, _ *param.Values) string {
				if _, err := ParseStep(x.(string)); err != nil {
					return err.Error()
				}
				return ""
			}},
		param.Key{Name: keyTheta0, Kind: param.Floats, Arg: "LIST", DefaultDoc: "all 0",
			Range: fmt.Sprintf("one per node, each in [-%v, %v]", MaxTheta, MaxTheta),
			Doc:   "initial theta_i (activation rate e^theta_i)",
			Check: func(x any, _ *param.Values) string {
				for i, t := range x.([]float64) {
					if !(math.Abs(t) <= MaxTheta) {
						return fmt.Sprintf("%s[%d] = %v: must be in [-%v, %v]", keyTheta0, i, t, MaxTheta, MaxTheta)
					}
				}
				return ""
			}},
		param.Key{Name: keyThetaTrace, Kind: param.String, Arg: "FILE.csv", DefaultDoc: "none",
			Range: "a new file in an existing directory",
			Doc:   "write theta and the measured activities after every window to this CSV file (never overwritten: it must not exist)"},
	)
	s.Add(model.ReplicationsKey(), model.SeedKey())
	return s
}

// setup is a point's run, built from its keys.
type setup struct {
	opt   Options
	trace string
	check string // how the targets were found in the capacity region
}

// build reads completed values: the graph (reading a file), the objective
// and the schedule, checking what depends on several keys. Errors name the
// key.
func build(v *param.Values) (*setup, error) {
	spec := v.String(keyConflict)
	targets := v.Floats(keyTargets)
	g, err := Conflict(spec, len(targets))
	if err != nil {
		return nil, fmt.Errorf("%s = %q: %v", keyConflict, spec, err)
	}
	n := g.N()
	hasTargets, hasUtility := v.Has(keyTargets), v.Has(keyUtility)
	var obj Objective
	check := ""
	switch {
	case hasTargets && hasUtility:
		return nil, fmt.Errorf("%s = %q: give targets or utility, not both", keyUtility, v.String(keyUtility))
	case !hasTargets && !hasUtility:
		return nil, fmt.Errorf("%s: missing; give --targets LIST (one per node, %d here) or --utility log", keyTargets, n)
	case hasTargets:
		how, err := CheckTargets(g, targets)
		if err != nil {
			return nil, fmt.Errorf("%s = %s: %v", keyTargets, param.Format(targets), err)
		}
		obj, check = Targets(targets), "interior (proved)"
		if how == Unchecked {
			check = "unchecked: the edge inequalities hold, but the graph is neither bipartite nor small enough for the LP"
		}
	default:
		if n > MaxCovarianceNodes {
			return nil, fmt.Errorf("%s = %q: %d nodes; utility (covariance gradients) takes at most %d", keyConflict, spec, n, MaxCovarianceNodes)
		}
		weight := 1.0
		if v.Has(keyUtilityWeight) {
			weight = v.Float(keyUtilityWeight)
		}
		obj = LogUtility{V: weight}
	}
	if v.Has(keyUtilityWeight) && hasTargets {
		return nil, fmt.Errorf("%s = %v: only utility takes a weight", keyUtilityWeight, v.Float(keyUtilityWeight))
	}
	// The exact optimum that Run reports as the reference on a graph small
	// enough must be one it can state (within MaxTheta, resolved): checked
	// here, so that such a point is invalid input, refused before it runs.
	if sets := exactSets(g); sets != nil {
		if _, err := obj.Optimum(sets); err != nil {
			what, hint := fmt.Sprintf("%s = %s", keyTargets, param.Format(targets)), "move the targets away from 0 and from the boundary of the capacity region"
			if !hasTargets {
				what, hint = fmt.Sprintf("%s = %v", keyUtilityWeight, obj.(LogUtility).V), "lower utility_weight"
			}
			return nil, fmt.Errorf("%s: the exact optimum theta* (over the %d independent sets): %v; %s", what, len(sets.Sets), err, hint)
		}
	} else if hasTargets {
		// Too large to solve exactly: bounds on theta* that need no
		// solution refuse targets whose optimum surely lies beyond MaxTheta,
		// which the online algorithm would find only at run time (diverged).
		if err := checkThetaBounds(g, targets); err != nil {
			return nil, fmt.Errorf("%s = %s: %v; move the targets away from 0 and from the boundary of the capacity region",
				keyTargets, param.Format(targets), err)
		}
	}
	var theta0 []float64
	if v.Has(keyTheta0) {
		if theta0 = v.Floats(keyTheta0); len(theta0) != n {
			return nil, fmt.Errorf("%s = %s: got %d values, want one per node (%d)", keyTheta0, param.Format(theta0), len(theta0), n)
		}
	}
	step, _ := ParseStep(v.String(keyStep))
	windows, reps := v.Int(keyWindows), v.Int(model.KeyReplications)
	su := &setup{check: check, opt: Options{Graph: g, Conflict: spec, Objective: obj, Windows: windows, Theta0: theta0,
		Schedule:     Schedule{Step: step, Window: v.Float(keyWindowLength), Growth: v.Float(keyWindowGrowth)},
		Replications: reps, Seed: v.Uint(model.KeySeed)}}
	if v.Has(keyThetaTrace) {
		path := v.String(keyThetaTrace)
		if vals := float64(reps) * float64(windows) * float64(2*n+3); vals > MaxTraceValues {
			return nil, fmt.Errorf("%s = %q: the trace would hold %.3g numbers, more than %d; lower windows or replications",
				keyThetaTrace, path, vals, MaxTraceValues)
		}
		if err := checkNewFile(path); err != nil {
			return nil, fmt.Errorf("%s = %q: %v", keyThetaTrace, path, err)
		}
		su.trace, su.opt.Trace = path, true
	}
	return su, nil
}

// checkThetaBounds returns an error wrapping ErrBeyondMaxTheta when the
// bounds on the optimum theta* of the targets gamma prove a |theta*_i| above
// MaxTheta. In the product form, P(i active) = e^theta_i P(i and its
// neighbours N(i) inactive), and the union bound gives 1 - gamma_i -
// sum_{j in N(i)} gamma_j <= P(i and N(i) inactive) <= 1, so at the
// optimum (activities = targets)
//
//	log gamma_i <= theta*_i <= log(gamma_i / (1 - gamma_i - sum_{j in N(i)} gamma_j))
//
// (the right side when the slack is positive). Targets of 1e-20 beside one
// of 0.5 have theta*_i <= -45, say.
func checkThetaBounds(g *graph.Graph, gamma []float64) error {
	for i, x := range gamma {
		if lo := math.Log(x); lo > MaxTheta {
			return fmt.Errorf("node %d: theta*_%d >= log(%v) = %.4g: %w", i, i, x, lo, ErrBeyondMaxTheta)
		}
		slack := 1 - x
		for _, j := range g.Neighbors(i) {
			slack -= gamma[j]
		}
		if slack > 0 {
			if hi := math.Log(x / slack); hi < -MaxTheta {
				return fmt.Errorf("node %d: theta*_%d <= log(%v / %.4g) = %.4g: %w", i, i, x, slack, hi, ErrBeyondMaxTheta)
			}
		}
	}
	return nil
}

// conflictNodes is the number of nodes of the conflict graph, from the keys
// alone, for the estimates: one per target, the size of a family (path:N,
// ...), or for a file the largest number of ids it can name.
func conflictNodes(v *param.Values) float64 {
	if v.Has(keyTargets) {
		return float64(len(v.Floats(keyTargets)))
	}
	spec := v.String(keyConflict)
	if name, arg, ok := strings.Cut(spec, ":"); ok {
		size := func(s string) float64 {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > MaxNodes {
				return 0
			}
			return float64(n)
		}
		switch name {
		case "path", "ring", "complete":
			return size(arg)
		case "torus":
			return math.Min(size(arg)*size(arg), MaxNodes)
		case "grid":
			if r, c, ok := strings.Cut(arg, "x"); ok {
				return math.Min(size(r)*size(c), MaxNodes)
			}
		}
	}
	return MaxNodes
}

// Bytes per node that memory counts: measured peak resident memory of
// `lbsim csma --conflict path:N --targets 0.3xN --windows 3`: 178 MB at N =
// 10^5, 1.84 GB at 10^6 (1.8 KB a node), and 384 MB at 10^5 with 4
// replications (about 690 bytes a node for each replication more: its
// theta, activities and their figures); the live heap of the whole command
// peaks at 58.5 MB at N = 2*10^4 (2.9 KB a node, TestModelMemoryEstimates).
const (
	bytesPerNode            = 3000
	bytesPerNodeReplication = 800
	bytesPerTraceValue      = 32 // a float64 kept, and its CSV text
)

// memory is Model.Memory: the nodes, per replication, and the theta trace.
func memory(v *param.Values) (float64, string) {
	n, reps := conflictNodes(v), float64(v.Int(model.KeyReplications))
	bytes, key := n*(bytesPerNode+bytesPerNodeReplication*reps), keyConflict
	if bytesPerNodeReplication*reps > bytesPerNode {
		key = model.KeyReplications
	}
	if v.Has(keyThetaTrace) {
		if t := bytesPerTraceValue * reps * float64(v.Int(keyWindows)) * (2*n + 3); t > bytes {
			key = keyThetaTrace
			bytes += t
		}
	}
	return bytes, key
}

// checkNewFile refuses an existing path (lbsim never overwrites a file it
// did not create) and a path whose directory does not exist.
func checkNewFile(path string) error {
	if path == "" {
		return fmt.Errorf("must name a file")
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("the file exists; lbsim never overwrites a file, give a new path")
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return fmt.Errorf("the directory %s does not exist", filepath.Dir(path))
	}
	return nil
}

func validate(v *param.Values) error {
	_, err := build(v)
	return err
}

// Model is the csma model of the experiment layer: `lbsim csma` runs one
// point of it.
var Model = &model.Model{
	Name:     "csma",
	Command:  "csma",
	Summary:  "online gradient optimisation of a CSMA network on a conflict graph: theta reaching target activities or maximising a utility",
	Keys:     Keys,
	Run:      runPoint,
	Validate: validate,
	Memory:   memory,
	Cost: func(v *param.Values) float64 {
		// Transitions are at most 2 per node per unit time; the windows
		// sum to about T_0 M^(P+1)/(P+1).
		p := v.Float(keyWindowGrowth)
		t := v.Float(keyWindowLength) * math.Pow(float64(v.Int(keyWindows)), p+1) / (p + 1)
		return 1 + 2*conflictNodes(v)*t*float64(v.Int(model.KeyReplications))
	},
	CostKey: func(*param.Values) string { return keyWindows },
}

func init() { model.MustRegister(Model) }

func runPoint(ctx context.Context, v *param.Values, workers int, progress func(float64)) (*model.Outcome, error) {
	su, err := build(v)
	if err != nil {
		return nil, err
	}
	su.opt.Workers, su.opt.Progress = workers, progress
	res, err := Run(ctx, su.opt)
	if err != nil {
		return nil, err
	}
	out := &model.Outcome{Figures: res.Figures(), Result: &pointResult{res, su.trace, su.check}}
	if su.trace != "" { // written by the caller once the point has succeeded
		out.Files = append(out.Files, model.File{Key: keyThetaTrace, Path: su.trace,
			Write: func(w io.Writer) error { return EncodeTrace(w, res) }})
	}
	for _, r := range res.PerReplication {
		out.PerReplication = append(out.PerReplication, r.Figures())
	}
	return out, nil
}

// pointResult is the JSON result of a point: the run's, with the trace
// file and how the targets were checked.
type pointResult struct {
	*Result
	ThetaTrace    string
	CapacityCheck string
}

func (p *pointResult) MarshalJSON() ([]byte, error) {
	data, err := p.Result.MarshalJSON()
	if err != nil {
		return nil, err
	}
	for _, kv := range [][2]string{{"theta_trace", p.ThetaTrace}, {"capacity_check", p.CapacityCheck}} {
		if kv[1] != "" {
			v, _ := json.Marshal(kv[1])
			data = append(append(append(data[:len(data)-1], `,"`+kv[0]+`":`...), v...), '}')
		}
	}
	return data, nil
}
