package lbsim

import (
	"encoding/json"
	"math"

	"github.com/lbsim/notebooks/lbsim/model"
)

// MarshalJSON writes the result with snake_case keys (its json tags), the
// ones `lbsim run` prints, in sorted order (model.MarshalSorted: the order
// they have always had). Values that are not numbers (a confidence
// half-width from a single replication) are written as null. The trajectory
// is not included: write it with Trajectory.WriteCSV.
func (r *Result) MarshalJSON() ([]byte, error) {
	// The scenario file of the run; a policy built in Go from a value that
	// has no keys (a graph made in Go, a type of your own) has none.
	extra := []model.Field{{Key: "scenario"}, {Key: "sojourn_quantiles", Value: orEmpty(r.SojournQuantiles)},
		{Key: "per_replication", Value: orEmpty(r.PerReplication)}}
	if v, err := r.Scenario.fileValues(); err != nil {
		extra = append(extra, model.Field{Key: "scenario_note", Value: err.Error()})
	} else {
		extra[0].Value = v
	}
	return model.MarshalSorted(r, extra...)
}

// MarshalJSON writes the figures of a replication under their json tags,
// sorted as in a Result, NaN (no arrival) as null (model.MarshalSorted).
func (rr ReplicationResult) MarshalJSON() ([]byte, error) { return model.MarshalSorted(rr) }

// MarshalJSON writes p and value, a NaN value as null (model.MarshalObject).
func (q Quantile) MarshalJSON() ([]byte, error) { return model.MarshalObject(q) }

// orEmpty is xs, or an empty list for nil (written [] rather than null).
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// nullableFloat is a JSON number or null (NaN).
type nullableFloat float64

func (x *nullableFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*x = nullableFloat(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*x = nullableFloat(f)
	return nil
}

func floats(xs []nullableFloat) []float64 {
	if xs == nil {
		return nil
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// UnmarshalJSON reads back what MarshalJSON writes (kh.Keep and kh.Recall
// carry results from cell to cell this way): every figure, null as NaN, and
// the replications' own figures, so that estimates (kh.Occ, kh.Sojourn) can
// be made from a recalled result, and the scenario (Scenario.UnmarshalJSON,
// from its scenario file; zero when the result had none). The trajectory is
// not in the JSON form.
func (r *Result) UnmarshalJSON(b []byte) error {
	var in struct {
		Scenario               json.RawMessage `json:"scenario"`
		Policy                 string          `json:"policy"`
		Engine                 Engine          `json:"engine"`
		Replications           int             `json:"replications"`
		Events                 int64           `json:"events"`
		WallSeconds            nullableFloat   `json:"wall_seconds"`
		EventsPerSecond        nullableFloat   `json:"events_per_second"`
		Occupancy              []nullableFloat `json:"occupancy"`
		OccupancyCI95          []nullableFloat `json:"occupancy_ci95"`
		MeanTasksPerServer     nullableFloat   `json:"mean_tasks_per_server"`
		MeanTasksPerServerCI95 nullableFloat   `json:"mean_tasks_per_server_ci95"`
		MeanSojourn            nullableFloat   `json:"mean_sojourn"`
		MeanSojournCI95        nullableFloat   `json:"mean_sojourn_ci95"`
		WaitProbability        nullableFloat   `json:"wait_probability"`
		WaitProbabilityCI95    nullableFloat   `json:"wait_probability_ci95"`
		MaxQueueLength         int             `json:"max_queue_length"`
		SojournQuantiles       []struct {
			P     float64       `json:"p"`
			Value nullableFloat `json:"value"`
		} `json:"sojourn_quantiles"`
		PerReplication []struct {
			Events             int64           `json:"events"`
			Occupancy          []nullableFloat `json:"occupancy"`
			MeanTasksPerServer nullableFloat   `json:"mean_tasks_per_server"`
			MeanSojourn        nullableFloat   `json:"mean_sojourn"`
			WaitProbability    nullableFloat   `json:"wait_probability"`
			MaxQueueLength     int             `json:"max_queue_length"`
		} `json:"per_replication"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = Result{
		Policy: in.Policy, Engine: in.Engine, Replications: in.Replications, Events: in.Events,
		WallSeconds: float64(in.WallSeconds), EventsPerSecond: float64(in.EventsPerSecond),
		Occupancy: floats(in.Occupancy), OccupancyCI95: floats(in.OccupancyCI95),
		MeanTasksPerServer: float64(in.MeanTasksPerServer), MeanTasksPerServerCI95: float64(in.MeanTasksPerServerCI95),
		MeanSojourn: float64(in.MeanSojourn), MeanSojournCI95: float64(in.MeanSojournCI95),
		WaitProbability: float64(in.WaitProbability), WaitProbabilityCI95: float64(in.WaitProbabilityCI95),
		MaxQueueLength: in.MaxQueueLength,
	}
	for _, q := range in.SojournQuantiles {
		r.SojournQuantiles = append(r.SojournQuantiles, Quantile{P: q.P, Value: float64(q.Value)})
	}
	for _, rr := range in.PerReplication {
		r.PerReplication = append(r.PerReplication, ReplicationResult{
			Events: rr.Events, Occupancy: floats(rr.Occupancy), MeanTasksPerServer: float64(rr.MeanTasksPerServer),
			MeanSojourn: float64(rr.MeanSojourn), WaitProbability: float64(rr.WaitProbability), MaxQueueLength: rr.MaxQueueLength})
	}
	if len(in.Scenario) > 0 && string(in.Scenario) != "null" {
		return json.Unmarshal(in.Scenario, &r.Scenario)
	}
	return nil
}
