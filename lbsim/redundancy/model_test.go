package redundancy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/modeltest"
	"github.com/lbsim/notebooks/lbsim/model"
)

func point(t *testing.T, kv map[string]any) (*model.Model, *model.Outcome, error) {
	t.Helper()
	return modeltest.Point(t, "redundancy", kv, 1, 2, 1)
}

func figure(out *model.Outcome, name string) *model.Figure { return modeltest.Figure(out, name) }

// The registered model runs a simulation and an exact point; the exact
// point's figures are Exact's.
func TestModel(t *testing.T) {
	_, out, err := point(t, map[string]any{"servers": 4, "lambda": 0.5, "pairs": "ring", "degree": 2.0, "horizon": 200.0})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"replications", "events", "mean_tasks", "mean_response", "p_tasks", "q", "response_p50"} {
		if figure(out, name) == nil {
			t.Errorf("simulation: no figure %q", name)
		}
	}
	if f := figure(out, "p_tasks"); f == nil || f.VectorCI95 == nil {
		t.Errorf("p_tasks without half-widths: %+v", f)
	}
	if len(out.PerReplication) != 2 {
		t.Errorf("%d replications", len(out.PerReplication))
	}
	if data, err := json.Marshal(out.Result); err != nil || !strings.Contains(string(data), `"tasks_distribution"`) {
		t.Errorf("result JSON: %v", err)
	}

	_, out, err = point(t, map[string]any{"servers": 4, "lambda": 0.5, "exact": true})
	if err != nil {
		t.Fatal(err)
	}
	want := mustExact(t, mustUniform(t, 4, 2), 0.5, nil)
	if f := figure(out, "mean_tasks"); f == nil || f.Value != model.FormatFloat(want.MeanTasks) {
		t.Errorf("exact mean_tasks %+v, want %v", f, want.MeanTasks)
	}

	// A weighted edge-list file.
	file := filepath.Join(t.TempDir(), "pairs.txt")
	if err := os.WriteFile(file, []byte("0 1 3\n1 2\n2 3 0.5\n0 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := point(t, map[string]any{"servers": 4, "lambda": 0.4, "pairs": file, "exact": true}); err != nil {
		t.Error(err)
	}
}

// Bad points are refused with the key named.
func TestModelBadInput(t *testing.T) {
	for _, c := range []struct {
		kv   map[string]any
		want string
	}{
		{map[string]any{"servers": 4, "lambda": 1.0}, "lambda = 1: unstable"},
		{map[string]any{"servers": 4, "lambda": 0.5, "rates": []float64{1, 2}}, "rates = [1,2]: got 2 values"},
		{map[string]any{"servers": 4, "lambda": 0.5, "d": 3, "pairs": "ring"}, "d must be 2"},
		{map[string]any{"servers": 30, "lambda": 0.5, "exact": true}, "servers = 30: exact takes at most 20"},
		{map[string]any{"servers": 4, "lambda": 0.5, "horizon": 10.0, "warmup": 10.0}, "warmup = 10"},
		{map[string]any{"servers": 4, "lambda": 0.5, "pairs": "nonesuch"}, "pairs = \"nonesuch\""},
	} {
		_, _, err := point(t, c.kv)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.kv, err, c.want)
		}
	}
}

// The figures of a simulated point, of its replications and of an exact
// point (a sweep's columns) are byte for byte what they were
// (testdata/figures.json, written before the figures were read by the keys
// of their fields).
func TestFiguresBytes(t *testing.T) {
	_, sim, err := point(t, map[string]any{"servers": 4, "lambda": 0.5, "pairs": "ring", "degree": 2.0, "horizon": 200.0})
	if err != nil {
		t.Fatal(err)
	}
	_, one, err := modeltest.Point(t, "redundancy", map[string]any{"servers": 3, "lambda": 0.4, "horizon": 100.0}, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, ex, err := point(t, map[string]any{"servers": 4, "lambda": 0.5, "exact": true})
	if err != nil {
		t.Fatal(err)
	}
	modeltest.JSONBytes(t, "testdata/figures.json", sim.Figures, sim.PerReplication, one.Figures, one.PerReplication, ex.Figures)
}
