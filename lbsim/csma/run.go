package csma

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/model"
)

// MaxExactSets bounds the independent sets Run enumerates for its exact
// reference.
const MaxExactSets = 1 << 16

// Options describe a run of the online algorithm on a CSMA network, with
// independent replications.
type Options struct {
	// Graph is the conflict graph; Conflict labels it in the result.
	Graph    *graph.Graph
	Conflict string
	// Objective is Targets or LogUtility.
	Objective Objective
	Schedule  Schedule
	Windows   int
	// Theta0 is the initial theta (nil: zeros).
	Theta0 []float64
	// Replications run on the streams mc.Source(Seed, r); Workers bounds
	// those run at once (0: all cores).
	Replications int
	Seed         uint64
	Workers      int
	// Trace keeps theta and the measured activities of every window.
	Trace bool
	// Progress, if not nil, is called with the fraction of windows done.
	Progress func(float64)
}

// Result is what a run produced: means over the replications with 95%
// half-widths (NaN for one replication). The fields are in the order of the
// JSON object lbsim csma has always written: the half-widths come last.
type Result struct {
	Conflict  string `json:"conflict"`
	Nodes     int    `json:"nodes"`
	Edges     int    `json:"edges"`
	Objective string `json:"objective"`
	Windows   int    `json:"windows"`
	// Time is the simulated time of each replication.
	Time float64 `json:"time"`
	// Theta is the final theta; Activity the activities measured over the
	// last ActivityWindows windows (a tenth of them, at least one).
	// Their half-widths are ThetaCI95 and ActivityCI95 (last).
	Theta           []float64 `json:"theta"`
	Activity        []float64 `json:"activity"`
	ActivityWindows int       `json:"activity_windows"`
	// Exact is the exact reference when the graph has at most MaxExactSets
	// independent sets.
	Exact       *Exact  `json:"exact,omitempty"`
	Events      int64   `json:"events"`
	WallSeconds float64 `json:"wall_seconds"`
	// PerReplication holds each replication's final theta, activities and
	// transitions.
	PerReplication []Replica `json:"per_replication"`
	// Trace holds, per replication, one row per window: theta after the
	// update, then the activities measured in the window (with Trace).
	Trace [][][]float64 `json:"-"`
	// WindowEnds are the end times of the windows.
	WindowEnds   []float64 `json:"-"`
	ThetaCI95    []float64 `json:"theta_ci95"`
	ActivityCI95 []float64 `json:"activity_ci95"`
}

// Replica is what one replication gave.
type Replica struct {
	Theta    []float64 `json:"theta"`
	Activity []float64 `json:"activity"`
	Events   int64     `json:"events"`
}

// Exact is the exact reference of a run on an enumerable graph.
type Exact struct {
	States int `json:"states"`
	// Theta is the exact optimum theta*, Activity s(theta*); ThetaError
	// is max_i |Theta_i - theta*_i| of the run's mean final theta, and
	// ActivityAtTheta the exact activities at that theta.
	Theta           []float64 `json:"theta"`
	Activity        []float64 `json:"activity"`
	ThetaError      float64   `json:"theta_error"`
	ActivityAtTheta []float64 `json:"activity_at_theta"`
	// Mixing is the spectral gap and the times it gives at theta* (with at
	// most MaxGapStates states).
	Mixing *Mixing `json:"mixing,omitempty"`
}

// Run runs the online algorithm, Replications times, and the exact
// reference when the graph is small enough. A replication whose theta
// diverges makes Run fail with ErrDiverged.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Graph == nil || o.Objective == nil || o.Windows < 1 || o.Replications < 1 {
		return nil, errors.New("csma: Run needs a graph, an objective, windows >= 1 and replications >= 1")
	}
	start := time.Now()
	n := o.Graph.N()
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	last := max(1, o.Windows/10)
	type rep struct {
		theta, activity []float64
		events          int64
		trace           [][]float64
		err             error
	}
	reps := make([]rep, o.Replications)
	var mu sync.Mutex
	done := 0
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for r := range o.Replications {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			w, err := NewNetwork(o.Graph, mc.Source(o.Seed, uint64(r)))
			if err != nil {
				reps[r].err = err
				return
			}
			on, err := NewOnline(w, o.Objective, o.Schedule, o.Theta0)
			if err != nil {
				reps[r].err = err
				return
			}
			act := make([]float64, n)
			span := 0.0
			err = on.Run(ctx, o.Windows, func(win *Window) {
				if win.M > o.Windows-last {
					for i, x := range win.Mean {
						act[i] += x * win.Time
					}
					span += win.Time
				}
				if o.Trace {
					row := append(append(make([]float64, 0, 2*n), win.Next...), win.Mean...)
					reps[r].trace = append(reps[r].trace, row)
				}
				if o.Progress != nil && win.M%max(1, o.Windows/100) == 0 {
					mu.Lock()
					done += max(1, o.Windows/100)
					o.Progress(math.Min(1, float64(done)/float64(o.Windows*o.Replications)))
					mu.Unlock()
				}
			})
			if err != nil {
				reps[r].err = fmt.Errorf("replication %d: %w", r, err)
				return
			}
			for i := range act {
				act[i] /= span
			}
			reps[r].theta, reps[r].activity, reps[r].events = on.Theta, act, on.Events
		}()
	}
	wg.Wait()
	res := &Result{Conflict: o.Conflict, Nodes: n, Edges: o.Graph.Edges(), Objective: o.Objective.String(),
		Windows: o.Windows, Time: o.Schedule.TotalTime(o.Windows), ActivityWindows: last,
		Theta: make([]float64, n), ThetaCI95: make([]float64, n), Activity: make([]float64, n), ActivityCI95: make([]float64, n)}
	for _, rp := range reps {
		if rp.err != nil {
			return nil, rp.err
		}
		res.Events += rp.events
		res.PerReplication = append(res.PerReplication, Replica{Theta: rp.theta, Activity: rp.activity, Events: rp.events})
		if o.Trace {
			res.Trace = append(res.Trace, rp.trace)
		}
	}
	xs := make([]float64, o.Replications)
	for i := range n {
		for r, rp := range reps {
			xs[r] = rp.theta[i]
		}
		res.Theta[i], res.ThetaCI95[i] = mc.MeanCI95(xs)
		for r, rp := range reps {
			xs[r] = rp.activity[i]
		}
		res.Activity[i], res.ActivityCI95[i] = mc.MeanCI95(xs)
	}
	if o.Trace {
		t := 0.0
		for m := 1; m <= o.Windows; m++ {
			t += o.Schedule.Length(m)
			res.WindowEnds = append(res.WindowEnds, t)
		}
	}
	if sets := exactSets(o.Graph); sets != nil {
		ex, err := exactReference(sets, o.Objective, res.Theta)
		if err != nil {
			return nil, err
		}
		res.Exact = ex
	}
	res.WallSeconds = time.Since(start).Seconds()
	if o.Progress != nil {
		o.Progress(1)
	}
	return res, nil
}

// exactSets returns the independent sets of g when Run computes the exact
// reference on it (at most MaxEnumNodes nodes and MaxExactSets sets), else
// nil.
func exactSets(g *graph.Graph) *IndependentSets {
	if g.N() > MaxEnumNodes {
		return nil
	}
	sets, err := Enumerate(g, MaxExactSets)
	if err != nil {
		return nil
	}
	return sets
}

func exactReference(sets *IndependentSets, obj Objective, theta []float64) (*Exact, error) {
	opt, err := obj.Optimum(sets)
	if err != nil {
		return nil, fmt.Errorf("exact optimum: %w", err)
	}
	ex := &Exact{States: len(sets.Sets), Theta: opt}
	if ex.Activity, err = sets.Activity(opt); err != nil {
		return nil, err
	}
	if ex.ActivityAtTheta, err = sets.Activity(theta); err != nil {
		return nil, err
	}
	for i, t := range theta {
		ex.ThetaError = math.Max(ex.ThetaError, math.Abs(t-opt[i]))
	}
	if len(sets.Sets) <= MaxGapStates {
		mix, err := sets.SpectralGap(opt)
		if err != nil {
			return nil, err
		}
		ex.Mixing = &mix
	}
	return ex, nil
}

// Figures are theta and activity (with half-widths), events, and with the
// exact reference exact_theta, theta_error, exact_activity and, when
// computed, spectral_gap and relaxation_time at theta*.
// Each is read by its JSON key (model.FigureOf), under that name unless
// said.
func (r *Result) Figures() []model.Figure {
	figs := []model.Figure{
		model.FigureOf(r, "theta").Padded(math.NaN()),
		model.FigureOf(r, "activity").Padded(math.NaN()),
		model.FigureOf(r, "events"),
	}
	if ex := r.Exact; ex != nil {
		figs = append(figs, model.FigureOf(ex, "theta").Named("exact_theta").Padded(math.NaN()),
			model.FigureOf(ex, "theta_error"),
			model.FigureOf(ex, "activity").Named("exact_activity").Padded(math.NaN()))
		if ex.Mixing != nil {
			figs = append(figs, model.FiguresOf(ex.Mixing, "spectral_gap", "relaxation_time")...)
		}
	}
	return figs
}

// Figures are a replication's theta, activity and events, read by their
// JSON keys (model.FigureOf).
func (r *Replica) Figures() []model.Figure {
	return []model.Figure{model.FigureOf(r, "theta").Padded(math.NaN()), model.FigureOf(r, "activity").Padded(math.NaN()),
		model.FigureOf(r, "events")}
}

// MarshalJSON writes the result with theta_ci95 and activity_ci95 (null
// entries for one replication; model.MarshalObject).
func (r *Result) MarshalJSON() ([]byte, error) { return model.MarshalObject(r) }
