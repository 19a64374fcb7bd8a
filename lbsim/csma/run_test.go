package csma

import (
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/modeltest"
)

// A result's JSON (its wall time fixed), its figures and its replications'
// (a sweep's columns) are byte for byte what they were (testdata/result.json,
// written by the JSON mirror before the result moved onto
// model.MarshalObject and before the figures were read by the keys of their
// fields): with the exact reference and its mixing time, and with one
// replication (null half-widths).
func TestResultBytes(t *testing.T) {
	var values []any
	for _, p := range []struct {
		keys map[string]any
		reps int
	}{
		{map[string]any{"conflict": "path:4", "targets": []float64{0.5, 0.3, 0.3, 0.5}, "windows": 60, "window_length": 20.0,
			"window_growth": 0.5}, 3},
		{map[string]any{"conflict": "ring:5", "targets": []float64{0.3, 0.3, 0.3, 0.3, 0.3}, "windows": 40, "window_length": 10.0}, 1},
	} {
		_, out, err := modeltest.Point(t, "csma", p.keys, 7, p.reps, 1)
		if err != nil {
			t.Fatal(err)
		}
		res := out.Result.(*pointResult).Result
		res.WallSeconds = 0.5 // the only figure that depends on the machine
		values = append(values, res, out.Figures, out.PerReplication)
	}
	modeltest.JSONBytes(t, "testdata/result.json", values...)
}
