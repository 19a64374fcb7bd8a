package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
	"github.com/lbsim/notebooks/lbsim/sweep"
)

// dieModel is a toy model declared only here: the mean of rolls of a fair
// die with the given number of faces. Its command line, sweep and merge come
// from its declarations alone.
func init() {
	keys := param.NewSet("lbsim die", "")
	keys.Add(
		param.Key{Name: "faces", Kind: param.Int, Arg: "F", Required: true, Range: "2 to 1000", Doc: "faces of the die",
			Check: param.IntBetween(2, 1000)},
		param.Key{Name: "rolls", Kind: param.Int, Arg: "R", Doc: "rolls per replication", DefaultDoc: "10000",
			Default: param.Constant(10000), Check: param.IntBetween(1, 1e8)},
		param.Key{Name: "replications", Kind: param.Int, Arg: "R", Doc: "replications", DefaultDoc: "1",
			Default: param.Constant(1), Check: param.IntAtLeast(1)},
		param.Key{Name: "seed", Kind: param.Uint, Arg: "S", Doc: "root seed", DefaultDoc: "0", Default: param.Constant(uint64(0))},
	)
	model.MustRegister(&model.Model{Name: "die", Command: "die", Summary: "rolls of a fair die", Keys: keys,
		Run: func(ctx context.Context, v *param.Values, _ int, progress func(float64)) (*model.Outcome, error) {
			f, n, reps := v.Int("faces"), v.Int("rolls"), v.Int("replications")
			means := make([]float64, reps)
			out := &model.Outcome{}
			for r := range reps {
				rng := mc.Stream(v.Uint("seed"), uint64(r))
				sum := 0
				for range n {
					sum += 1 + rng.IntN(f)
				}
				means[r] = float64(sum) / float64(n)
				out.PerReplication = append(out.PerReplication, []model.Figure{model.Float("mean", means[r])})
				if progress != nil {
					progress(float64(r+1) / float64(reps))
				}
			}
			m, ci := mc.MeanCI95(means)
			out.Figures = []model.Figure{model.FloatCI("mean", m, ci)}
			out.Result = map[string]any{"means": means}
			return out, nil
		}})
}

func TestModelSubcommand(t *testing.T) {
	m := jsonLine(t, "die", "--faces", "6", "--replications", "5", "--seed", "3")
	figs := m["figures"].(map[string]any)
	mean, ci := figs["mean"].(float64), figs["mean_ci95"].(float64)
	// E = 3.5; 4 half-widths of a t-interval over 5 replications.
	if math.Abs(mean-3.5) > 4*ci || ci <= 0 {
		t.Errorf("mean %v ± %v, want 3.5", mean, ci)
	}
	sc := m["scenario"].(map[string]any)
	if sc["rolls"].(float64) != 10000 || sc["faces"].(float64) != 6 || sc["seed"].(float64) != 3 {
		t.Errorf("scenario %v", sc)
	}
	// The printed scenario, as a file, gives the same output.
	file := writeFile(t, "die.json", `{"faces": 6, "rolls": 10000, "replications": 5, "seed": 3}`)
	again := jsonLine(t, "die", file)
	if again["figures"].(map[string]any)["mean"] != mean {
		t.Error("the scenario file did not reproduce the run")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"die"}, "faces: missing"},
		{[]string{"die", "--faces", "1"}, "faces = 1: must be between 2 and 1000"},
		{[]string{"die", "--faces", "6", "--lambda", "0.5"}, "flag provided but not defined: -lambda"},
	} {
		code, stdout, stderr := cli(t, context.Background(), c.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
	_, help, _ := cli(t, context.Background(), "help")
	_, dieHelp, _ := cli(t, context.Background(), "die", "-h")
	if !strings.Contains(help, "die") || !strings.Contains(dieHelp, "--faces F") {
		t.Errorf("help does not list the model:\n%s\n%s", help, dieHelp)
	}
}

// A sweep of the toy model by name, merged into a CSV that LoadCSV reads.
func TestModelSweep(t *testing.T) {
	spec := writeSpec(t, `{"model": "die", "seed": 1, "replications": 3, "base": {"rolls": 4000},
		"axes": [{"faces": [2, 6, 20]}]}`)
	out := filepath.Join(t.TempDir(), "die")
	if code, _, stderr := cli(t, context.Background(), "sweep", spec, "--out", out); code != 0 {
		t.Fatalf("sweep: exit %d, %s", code, stderr)
	}
	csvPath := filepath.Join(t.TempDir(), "die.csv")
	if code, _, stderr := cli(t, context.Background(), "merge", out, "--out", csvPath, "--summary"); code != 0 {
		t.Fatalf("merge: exit %d, %s", code, stderr)
	}
	tab, err := sweep.LoadCSV(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	faces, _ := tab.Floats("faces")
	means, _ := tab.Floats("mean")
	cis, _ := tab.Floats("mean_ci95")
	if len(means) != 3 {
		t.Fatalf("rows %d, want 3", len(means))
	}
	for i, f := range faces {
		if e := (f + 1) / 2; math.Abs(means[i]-e) > 4*cis[i] {
			t.Errorf("faces %v: mean %v ± %v, want %v", f, means[i], cis[i], e)
		}
	}
	if _, err := os.Stat(sweep.ProvenancePath(csvPath)); err != nil {
		t.Error(err)
	}
}

// A sweep whose points are computed, not sampled (admission without
// simulation: no replications of their own), merges into one row per point
// with an empty replication cell, in both forms of the CSV.
func TestMergeComputedPoints(t *testing.T) {
	spec := writeSpec(t, `{"model": "admission", "seed": 1, "replications": 1, "base": {"servers": 20},
		"axes": [{"beta": [0.5, 1]}]}`)
	out := filepath.Join(t.TempDir(), "adm")
	if code, _, stderr := cli(t, context.Background(), "sweep", spec, "--out", out); code != 0 {
		t.Fatalf("sweep: exit %d, %s", code, stderr)
	}
	for _, extra := range [][]string{nil, {"--summary"}} {
		csvPath := filepath.Join(t.TempDir(), "adm.csv")
		if code, _, stderr := cli(t, context.Background(), append([]string{"merge", out, "--out", csvPath}, extra...)...); code != 0 {
			t.Fatalf("merge %v: exit %d, %s", extra, code, stderr)
		}
		tab, err := sweep.LoadCSV(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		thr, err := tab.Floats("optimal_threshold")
		if err != nil || len(thr) != 2 || thr[0] != 3 || thr[1] != 4 {
			t.Errorf("merge %v: optimal_threshold %v, %v; want [3 4]", extra, thr, err)
		}
	}
}
