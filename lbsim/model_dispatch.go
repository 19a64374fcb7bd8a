package lbsim

import (
	"context"
	"strconv"

	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
)

// Dispatch is the dispatch simulator as a model of the experiment layer
// (package model): the keys of Keys, one point run by Run, and the figures
// a sweep's CSV holds. `lbsim run` runs one point of it.
var Dispatch = &model.Model{
	Name:    "dispatch",
	Command: "run",
	Summary: "N parallel servers under a dispatching policy (JSQ, JSQ(d), JIQ, graph, compatibility and walk policies)",
	Keys:    Keys,
	Run:     runDispatchPoint,
	Validate: func(v *param.Values) error {
		_, err := scenarioFromCompleted(v.Clone())
		return err
	},
	Memory: dispatchMemory,
	Cost: func(v *param.Values) float64 {
		return 1 + expectedEvents(v.Float(keyLambda), v.Int(keyServers), v.Float(keyHorizon), v.Int(keyReplications))
	},
}

func init() { model.MustRegister(Dispatch) }

func runDispatchPoint(ctx context.Context, v *param.Values, workers int, progress func(float64)) (*model.Outcome, error) {
	sc, err := scenarioFromCompleted(v.Clone()) // completed by Model.Point
	if err != nil {
		return nil, err
	}
	sc.Workers = workers
	if progress != nil {
		sc.Progress = func(p Progress) { progress(p.Fraction) }
	}
	res, err := Run(ctx, sc)
	if err != nil {
		return nil, err
	}
	return &model.Outcome{Figures: res.Figures(), PerReplication: res.ReplicationFigures(), Result: res}, nil
}

// Figures returns the result's summary figures, the columns of a sweep's
// summary CSV: replications, engine_used (the JSON's engine), events, mean
// tasks per server, mean sojourn and wait probability with their 95%
// half-widths, the largest queue, the sojourn quantiles (sojourn_p50, ...)
// and the occupancy q1, q2, ... with q1_ci95, .... Each is read by its JSON
// key (model.FigureOf), under that name unless said.
func (r *Result) Figures() []model.Figure {
	figs := append(model.FiguresOf(r, "replications"), model.FigureOf(r, "engine").Named("engine_used"))
	figs = append(figs, model.FiguresOf(r, "events", "mean_tasks_per_server", "mean_sojourn", "wait_probability",
		"max_queue_length")...)
	for _, q := range r.SojournQuantiles {
		figs = append(figs, model.Float("sojourn_p"+strconv.FormatFloat(100*q.P, 'g', -1, 64), q.Value))
	}
	figs = append(figs, model.FigureOf(r, "occupancy").Named("q"))
	for _, law := range r.LevelLaws {
		figs = append(figs, model.FigureOf(&law, "quantiles").Named(lawColumn(law.Level)))
	}
	return figs
}

// lawColumn names the columns of the quantiles of q_L: qL_quantileK is the
// K/100-quantile.
func lawColumn(level int) string { return "q" + strconv.Itoa(level) + "_quantile" }

// ReplicationFigures returns each replication's figures, the columns of a
// sweep's per-replication CSV: those of Figures that a replication has.
func (r *Result) ReplicationFigures() [][]model.Figure {
	out := make([][]model.Figure, len(r.PerReplication))
	for k, rr := range r.PerReplication {
		out[k] = append([]model.Figure{model.FigureOf(r, "engine").Named("engine_used")},
			model.FiguresOf(rr, "events", "mean_tasks_per_server", "mean_sojourn", "wait_probability", "max_queue_length")...)
		out[k] = append(out[k], model.FigureOf(rr, "occupancy").Named("q"))
		for _, law := range r.LevelLaws {
			out[k] = append(out[k], model.Vector(lawColumn(law.Level), law.PerReplication[k], nil, 0))
		}
	}
	return out
}
