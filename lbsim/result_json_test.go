package lbsim_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/internal/modeltest"
)

// A result written as JSON and read back keeps every figure, the
// half-widths (NaN as null) and the replications' own figures: what
// notebooks carry from cell to cell with kh.Keep and kh.Recall.
func TestResultJSONRoundTrip(t *testing.T) {
	res, err := lbsim.Run(context.Background(), lbsim.Scenario{Servers: 10, Lambda: 0.7, Policy: lbsim.JSQd(2), Horizon: 200, Replications: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	res.WaitProbabilityCI95 = math.NaN()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back lbsim.Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	want := *res
	want.Trajectory = nil
	if back.Scenario.Servers != 10 || back.Scenario.Policy.Name() != res.Scenario.Policy.Name() {
		t.Errorf("scenario read back as %+v", back.Scenario)
	}
	back.Scenario, want.Scenario = lbsim.Scenario{}, lbsim.Scenario{}
	if !math.IsNaN(back.WaitProbabilityCI95) {
		t.Errorf("null half-width read back as %v", back.WaitProbabilityCI95)
	}
	back.WaitProbabilityCI95, want.WaitProbabilityCI95 = 0, 0
	if !reflect.DeepEqual(back, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", back, want)
	}
}

// The JSON of a result is byte for byte what lbsim run has always written
// (testdata/result.json, written by the encoding before it moved onto
// model.MarshalSorted): keys sorted, NaN and infinities as null, an empty
// list for missing quantiles and replications, and scenario_note where the
// scenario has no file.
func TestResultJSONBytes(t *testing.T) {
	run := func(reps int) *lbsim.Result {
		res, err := lbsim.Run(context.Background(), lbsim.Scenario{Servers: 10, Lambda: 0.7, Policy: lbsim.JSQd(2), Horizon: 200,
			Replications: reps, Seed: 4, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		res.WallSeconds, res.EventsPerSecond = 0.25, 1e6 // the only figures that depend on the machine
		return res
	}
	three, one := run(3), run(1)
	three.WaitProbabilityCI95 = math.Inf(1)
	bare := &lbsim.Result{Policy: "mine", Engine: lbsim.EngineServers, Replications: 1, Events: 7, WallSeconds: math.NaN(),
		Occupancy: []float64{0.5, math.NaN()}, MeanSojourn: 1.5, MeanSojournCI95: math.NaN()}
	modeltest.JSONBytes(t, "testdata/result.json", three, one, bare)
}

// What MarshalJSON wrote reads back to a result that writes the same bytes
// again: NaN from null, the replications, the quantiles, empty lists and a
// missing scenario file.
func TestResultJSONReadBack(t *testing.T) {
	data, err := os.ReadFile("testdata/result.json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, line := range lines {
		var r lbsim.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		again, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != line {
			t.Errorf("line %d read back and written again:\n%s\nwant\n%s", i+1, again, line)
		}
	}
	if len(lines) != 3 {
		t.Errorf("%d results in testdata/result.json, want 3", len(lines))
	}
}
