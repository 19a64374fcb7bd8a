package lbsim_test

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
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
