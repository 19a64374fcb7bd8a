package redundancy

import (
	"time"

	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/model"
)

// Result is what Simulate measured: means over the replications with their
// 95% half-widths (Student t over replications; NaN with one replication).
type Result struct {
	Servers      int     `json:"servers"`
	Lambda       float64 `json:"lambda"`
	D            int     `json:"d"`
	Pairs        string  `json:"pairs"`
	Horizon      float64 `json:"horizon"`
	Warmup       float64 `json:"warmup"`
	Replications int     `json:"replications"`
	Seed         uint64  `json:"seed"`
	// Events counts replica events over all replications: d per arrival
	// (replicas placed), one per completion, d-1 per completion
	// (cancelled replicas); EventsPerSecond divides it by the wall time.
	Events          int64   `json:"events"`
	Arrivals        int64   `json:"arrivals"`
	EventsPerSecond float64 `json:"events_per_second"`
	Seconds         float64 `json:"seconds"`
	// TasksDistribution[n] is the time-average P(N = n) over
	// [Warmup, Horizon].
	TasksDistribution     []float64 `json:"tasks_distribution"`
	TasksDistributionCI95 []float64 `json:"tasks_distribution_ci95"`
	MeanTasks             float64   `json:"mean_tasks"`
	MeanTasksCI95         float64   `json:"mean_tasks_ci95"`
	// MeanResponse is the mean sojourn of the tasks arriving in
	// [Warmup, Horizon); ResponseQuantiles the quantiles of
	// ResponseProbabilities (each the mean over replications of the
	// replication's quantile, within a relative 2^-7 by the histogram).
	MeanResponse          float64   `json:"mean_response"`
	MeanResponseCI95      float64   `json:"mean_response_ci95"`
	ResponseProbabilities []float64 `json:"response_probabilities"`
	ResponseQuantiles     []float64 `json:"response_quantiles"`
	ResponseQuantilesCI95 []float64 `json:"response_quantiles_ci95"`
	// Occupancy[i-1] is q_i, the time-average fraction of servers holding
	// at least i replicas.
	Occupancy     []float64 `json:"occupancy"`
	OccupancyCI95 []float64 `json:"occupancy_ci95"`
	// Busy[j] is the fraction of time server j is busy.
	Busy           []float64   `json:"busy"`
	BusyCI95       []float64   `json:"busy_ci95"`
	PerReplication []RepResult `json:"per_replication"`
}

func aggregate(o *Options, quantiles []float64, out []RepResult, elapsed time.Duration) *Result {
	reps := len(out)
	res := &Result{Servers: o.Servers, Lambda: o.Lambda, D: o.Dist.D(), Pairs: o.Dist.String(), Horizon: o.Horizon,
		Warmup: o.Warmup, Replications: reps, Seed: o.Seed, PerReplication: out,
		ResponseProbabilities: quantiles, Seconds: elapsed.Seconds()}
	for _, rr := range out {
		res.Events += rr.Events
		res.Arrivals += rr.Arrivals
	}
	res.EventsPerSecond = float64(res.Events) / elapsed.Seconds()
	res.MeanTasks, res.MeanTasksCI95 = mc.MeanCI95Of(reps, func(r int) float64 { return out[r].MeanTasks })
	res.MeanResponse, res.MeanResponseCI95 = mc.MeanCI95Of(reps, func(r int) float64 { return out[r].MeanResponse })
	res.TasksDistribution, res.TasksDistributionCI95 = mc.VectorMeanCI95(reps, func(r int) []float64 { return out[r].TasksDistribution })
	res.Occupancy, res.OccupancyCI95 = mc.VectorMeanCI95(reps, func(r int) []float64 { return out[r].Occupancy })
	res.ResponseQuantiles, res.ResponseQuantilesCI95 = mc.VectorMeanCI95(reps, func(r int) []float64 { return out[r].ResponseQuantiles })
	res.Busy, res.BusyCI95 = mc.VectorMeanCI95(reps, func(r int) []float64 { return out[r].busy })
	return res
}

// MarshalJSON writes NaN and infinite numbers (a half-width of one
// replication) as null (model.MarshalObject).
func (r RepResult) MarshalJSON() ([]byte, error) { return model.MarshalObject(r) }

// MarshalJSON writes NaN and infinite numbers (half-widths of one
// replication) as null, keys in snake case (model.MarshalObject), followed
// by the names lbsim run gives the same figures.
func (r *Result) MarshalJSON() ([]byte, error) {
	return model.MarshalObject(r,
		model.Field{Key: "mean_sojourn", Value: r.MeanResponse},
		model.Field{Key: "mean_sojourn_ci95", Value: r.MeanResponseCI95},
		model.Field{Key: "mean_tasks_per_server", Value: r.MeanTasks / float64(r.Servers)},
		model.Field{Key: "mean_tasks_per_server_ci95", Value: r.MeanTasksCI95 / float64(r.Servers)},
		model.Field{Key: "sojourn_quantiles", Value: r.sojournQuantiles()})
}

// quantile is a point of the response-time distribution, as lbsim run
// writes its sojourn quantiles.
type quantile struct {
	P     float64 `json:"p"`
	Value any     `json:"value"`
}

func (r *Result) sojournQuantiles() []quantile {
	out := make([]quantile, len(r.ResponseProbabilities))
	for i, p := range r.ResponseProbabilities {
		out[i] = quantile{P: p, Value: model.JSONNumber(r.ResponseQuantiles[i])}
	}
	return out
}
