package lbsim

import (
	"encoding/json"

	"github.com/lbsim/notebooks/lbsim/model"
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
			"occupancy":             model.JSONNumbers(rr.Occupancy),
			"mean_tasks_per_server": model.JSONNumber(rr.MeanTasksPerServer),
			"mean_sojourn":          model.JSONNumber(rr.MeanSojourn),
			"wait_probability":      model.JSONNumber(rr.WaitProbability),
			"max_queue_length":      rr.MaxQueueLength,
		}
	}
	quantiles := make([]map[string]any, len(r.SojournQuantiles))
	for k, q := range r.SojournQuantiles {
		quantiles[k] = map[string]any{"p": q.P, "value": model.JSONNumber(q.Value)}
	}
	out := map[string]any{
		"scenario":                   scenario,
		"policy":                     r.Policy,
		"engine":                     r.Engine,
		"replications":               r.Replications,
		"events":                     r.Events,
		"wall_seconds":               model.JSONNumber(r.WallSeconds),
		"events_per_second":          model.JSONNumber(r.EventsPerSecond),
		"occupancy":                  model.JSONNumbers(r.Occupancy),
		"occupancy_ci95":             model.JSONNumbers(r.OccupancyCI95),
		"mean_tasks_per_server":      model.JSONNumber(r.MeanTasksPerServer),
		"mean_tasks_per_server_ci95": model.JSONNumber(r.MeanTasksPerServerCI95),
		"mean_sojourn":               model.JSONNumber(r.MeanSojourn),
		"mean_sojourn_ci95":          model.JSONNumber(r.MeanSojournCI95),
		"wait_probability":           model.JSONNumber(r.WaitProbability),
		"wait_probability_ci95":      model.JSONNumber(r.WaitProbabilityCI95),
		"sojourn_quantiles":          quantiles,
		"max_queue_length":           r.MaxQueueLength,
		"per_replication":            per,
	}
	if note != "" {
		out["scenario_note"] = note
	}
	return json.Marshal(out)
}
