package lbsim

import (
	"encoding/json"
	"math"
)

// MarshalJSON writes the result with snake_case keys, the ones `lbsim run`
// prints. Values that are not numbers (a confidence half-width from a single
// replication) are written as null. The trajectory is not included: write it
// with Trajectory.WriteCSV.
func (r *Result) MarshalJSON() ([]byte, error) {
	// The scenario file of the run; a policy built in Go from a value that
	// has no keys (a graph made in Go, a type of your own) has none.
	var scenario any
	note := ""
	if v, err := r.Scenario.fileValues(); err != nil {
		note = err.Error()
	} else {
		scenario = v
	}
	per := make([]map[string]any, len(r.PerReplication))
	for k, rr := range r.PerReplication {
		per[k] = map[string]any{
			"events":                rr.Events,
			"occupancy":             nums(rr.Occupancy),
			"mean_tasks_per_server": num(rr.MeanTasksPerServer),
			"mean_sojourn":          num(rr.MeanSojourn),
			"wait_probability":      num(rr.WaitProbability),
			"max_queue_length":      rr.MaxQueueLength,
		}
	}
	quantiles := make([]map[string]any, len(r.SojournQuantiles))
	for k, q := range r.SojournQuantiles {
		quantiles[k] = map[string]any{"p": q.P, "value": num(q.Value)}
	}
	out := map[string]any{
		"scenario":                   scenario,
		"policy":                     r.Policy,
		"engine":                     r.Engine,
		"replications":               r.Replications,
		"events":                     r.Events,
		"wall_seconds":               num(r.WallSeconds),
		"events_per_second":          num(r.EventsPerSecond),
		"occupancy":                  nums(r.Occupancy),
		"occupancy_ci95":             nums(r.OccupancyCI95),
		"mean_tasks_per_server":      num(r.MeanTasksPerServer),
		"mean_tasks_per_server_ci95": num(r.MeanTasksPerServerCI95),
		"mean_sojourn":               num(r.MeanSojourn),
		"mean_sojourn_ci95":          num(r.MeanSojournCI95),
		"wait_probability":           num(r.WaitProbability),
		"wait_probability_ci95":      num(r.WaitProbabilityCI95),
		"sojourn_quantiles":          quantiles,
		"max_queue_length":           r.MaxQueueLength,
		"per_replication":            per,
	}
	if note != "" {
		out["scenario_note"] = note
	}
	return json.Marshal(out)
}

// num returns x, or nil (JSON null) when x is NaN or infinite.
func num(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

func nums(xs []float64) []any {
	if xs == nil {
		return nil
	}
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = num(x)
	}
	return out
}
