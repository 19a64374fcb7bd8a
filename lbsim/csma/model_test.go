package csma

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/modeltest"
	"github.com/lbsim/notebooks/lbsim/model"
)

func point(t *testing.T, set map[string]any, seed uint64, reps int) (*model.Model, *model.Outcome, error) {
	t.Helper()
	return modeltest.Point(t, "csma", set, seed, reps, 0)
}

// The registered model runs a point: its figures are the run's, the
// trace file has one row per replication and window, the same seed gives
// the same bytes, and an existing trace file is refused, never replaced.
func TestModelThroughRegistry(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "theta.csv")
	set := map[string]any{"conflict": "path:4", "targets": []float64{0.5, 0.3, 0.3, 0.5}, "windows": 300,
		"window_length": 20.0, "window_growth": 0.5, "theta_trace": trace}
	_, out, err := point(t, set, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.PerReplication) != 3 {
		t.Errorf("%d replications of figures, want 3 (lbsim merge needs one per replication)", len(out.PerReplication))
	}
	res := out.Result.(*pointResult)
	if res.Exact == nil || res.Exact.ThetaError > 0.15 {
		t.Errorf("exact reference %+v: want theta within 0.15 of theta*", res.Exact)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 1+3*300 || lines[0] != "replication,window,time,theta_0,theta_1,theta_2,theta_3,activity_0,activity_1,activity_2,activity_3" {
		t.Fatalf("trace: %d lines, header %q", len(lines), lines[0])
	}
	if !strings.HasPrefix(lines[1], "0,1,20,") || !strings.HasPrefix(lines[len(lines)-1], "2,300,") {
		t.Errorf("trace rows %q ... %q", lines[1], lines[len(lines)-1])
	}
	// The last row's theta is replication 2's final theta; the mean of the
	// three final rows is the theta figure.
	a, _ := json.Marshal(out.Figures)
	set["theta_trace"] = filepath.Join(dir, "again.csv")
	_, out2, err := point(t, set, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out2.Figures)
	if string(a) != string(b) {
		t.Errorf("same seed, different figures:\n%s\n%s", a, b)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "again.csv"))
	if string(again) != string(data) {
		t.Error("same seed, different trace files")
	}
	set["theta_trace"] = trace
	if _, _, err := point(t, set, 5, 3); err == nil || !strings.Contains(err.Error(), "theta_trace") {
		t.Errorf("an existing trace file: %v", err)
	}
	if after, _ := os.ReadFile(trace); string(after) != string(data) {
		t.Error("the existing trace file was changed")
	}
	// The JSON result has the keys the command prints.
	js, _ := json.Marshal(out.Result)
	for _, k := range []string{`"theta":`, `"activity":`, `"theta_ci95":`, `"events":`, `"wall_seconds":`, `"theta_trace":`, `"spectral_gap":`} {
		if !strings.Contains(string(js), k) {
			t.Errorf("result JSON lacks %s: %.300s", k, js)
		}
	}
}

// A diverging theta is an error, not numbers. The 9x9 torus is too large
// for the LP, so targets 0.49 everywhere pass the checks (the edge
// inequalities) though they violate the odd-cycle inequalities of its rows
// (a 9-cycle has at most 4 active nodes, and 9 x 0.49 > 4): theta grows
// without bound. Targets 0.4 (inside: a mixture of the empty set and the
// 36-node independent sets of density 4/9) do not diverge.
func TestModelDiverges(t *testing.T) {
	set := map[string]any{"conflict": "torus:9", "targets": fill(81, 0.49), "windows": 2000, "window_length": 10.0, "step": "0.5"}
	_, _, err := point(t, set, 1, 1)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "replication 0: theta diverged at window") {
		t.Errorf("got %v, want ErrDiverged", err)
	}
	set["targets"] = fill(81, 0.4)
	if _, _, err := point(t, set, 1, 1); err != nil {
		t.Errorf("targets 0.4: %v", err)
	}
}

// Bad input is an error naming the key, from Complete or Validate.
func TestModelErrors(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "x.csv")
	os.WriteFile(existing, []byte("mine\n"), 0o644)
	edges := filepath.Join(dir, "g.txt")
	os.WriteFile(edges, []byte("0 1\n1 7\n"), 0o644)
	path4 := []float64{0.5, 0.3, 0.3, 0.5}
	for _, c := range []struct {
		set  map[string]any
		want string
	}{
		{map[string]any{"targets": path4}, "conflict: missing"},
		{map[string]any{"conflict": "path:4"}, "targets: missing"},
		{map[string]any{"conflict": "path:4", "targets": []float64{0.5, 0.3}}, "targets = [0.5,0.3]: got 2 values, want one per node of the conflict graph (4)"},
		{map[string]any{"conflict": "path:4", "targets": []float64{0.5, 0.6, 0.3, 0.5}}, "targets[0] + targets[1] = 1.1"},
		{map[string]any{"conflict": "ring:5", "targets": fill(5, 0.45)}, "outside the capacity region"},
		{map[string]any{"conflict": "path:4", "targets": path4, "utility": "log"}, "utility = \"log\": give targets or utility, not both"},
		{map[string]any{"conflict": "path:4", "utility": "sqrt"}, "utility = \"sqrt\": must be one of log"},
		{map[string]any{"conflict": "path:4", "targets": path4, "step": "-0.5/m"}, "step = \"-0.5/m\": A = -0.5: the step must be a finite number > 0"},
		{map[string]any{"conflict": "path:4", "targets": path4, "window_length": 0.0}, "window_length = 0: must be"},
		{map[string]any{"conflict": "path:4", "targets": path4, "windows": 0}, "windows = 0: must be between 1"},
		{map[string]any{"conflict": "path:4", "targets": path4, "window_growth": 3.0}, "window_growth = 3: must be in [0, 2]"},
		{map[string]any{"conflict": "path:4", "targets": path4, "theta0": []float64{0, 0, 0}}, "theta0 = [0,0,0]: got 3 values"},
		{map[string]any{"conflict": "path:4", "targets": path4, "theta0": []float64{0, 40, 0, 0}}, "theta0[1] = 40: must be in [-30, 30]"},
		{map[string]any{"conflict": "path:4", "targets": path4, "utility_weight": 2.0}, "utility_weight = 2: only utility takes a weight"},
		{map[string]any{"conflict": "path:4", "utility": "log", "utility_weight": -1.0}, "utility_weight = -1: must be"},
		{map[string]any{"conflict": "hexagon:4", "targets": path4}, "conflict = \"hexagon:4\": no such file"},
		{map[string]any{"conflict": "grid:3", "targets": path4}, "conflict = \"grid:3\": grid"},
		{map[string]any{"conflict": "ring:2", "targets": path4}, "conflict = \"ring:2\": ring: size \"2\""},
		{map[string]any{"conflict": edges, "targets": path4}, "line 2"},
		{map[string]any{"conflict": "path:4", "targets": path4, "theta_trace": existing}, "the file exists"},
		{map[string]any{"conflict": "path:4", "targets": path4, "theta_trace": filepath.Join(dir, "no", "t.csv")}, "does not exist"},
		{map[string]any{"conflict": "path:100", "targets": fill(100, 0.4), "windows": 100000, "theta_trace": filepath.Join(dir, "big.csv")}, "more than 16777216"},
		{map[string]any{"conflict": "torus:50", "utility": "log"}, "utility (covariance gradients) takes at most 2048"},
	} {
		_, _, err := point(t, c.set, 0, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.set, err, c.want)
		}
	}
}
