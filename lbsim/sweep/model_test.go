package sweep

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
)

// coinModel is a toy model, defined here and nowhere else, that the sweep
// layer runs by name like the dispatch simulator: n tosses of a coin with
// bias p per replication; figures: the frequency of heads with its 95% CI,
// the count of tosses, a label and a vector (the frequencies of 1, 2, ...
// heads in a row ending a run, padded with 0).
var coinModel = func() *model.Model {
	keys := param.NewSet("coin", "")
	keys.Add(
		param.Key{Name: "p", Kind: param.Float, Required: true, Doc: "probability of heads",
			Check: func(x any, _ *param.Values) string {
				if p := x.(float64); !(p >= 0 && p <= 1) {
					return "must be a probability in [0, 1]"
				}
				return ""
			}},
		param.Key{Name: "tosses", Kind: param.Int, Doc: "tosses per replication", DefaultDoc: "1000",
			Default: param.Constant(1000), Check: param.IntBetween(1, 1e7)},
		param.Key{Name: "replications", Kind: param.Int, Doc: "replications", Default: param.Constant(1), Check: param.IntAtLeast(1)},
		param.Key{Name: "seed", Kind: param.Uint, Doc: "root seed", Default: param.Constant(uint64(0))},
	)
	return &model.Model{Name: "coin-test", Command: "coin", Summary: "a biased coin", Keys: keys,
		Run: func(ctx context.Context, v *param.Values, _ int, progress func(float64)) (*model.Outcome, error) {
			p, n, reps := v.Float("p"), v.Int("tosses"), v.Int("replications")
			freq := make([]float64, reps)
			out := &model.Outcome{}
			for r := range reps {
				rng := mc.Stream(v.Uint("seed"), uint64(r))
				heads, run, longest := 0, 0, 0
				for range n {
					if rng.Float64() < p {
						heads++
						run++
						longest = max(longest, run)
					} else {
						run = 0
					}
				}
				freq[r] = float64(heads) / float64(n)
				out.PerReplication = append(out.PerReplication, []model.Figure{
					model.Float("heads", freq[r]), model.Int("longest_run", int64(longest))})
			}
			mean, ci := mc.MeanCI95(freq)
			out.Figures = []model.Figure{model.Text("label", "coin"), model.Int("tosses", int64(n*reps)),
				model.FloatCI("heads", mean, ci), model.Vector("v", []float64{p, p * p}[:1+int(p*10)%2], nil, 0)}
			out.Result = map[string]any{"heads": mean}
			return out, nil
		}}
}()

func init() { model.MustRegister(coinModel) }

// A model defined outside lbsim goes through sweep -> merge -> LoadCSV by
// name, with seeds derived per point, and its numbers are right: the
// frequency of heads is within its confidence interval of p.
func TestToyModelSweep(t *testing.T) {
	sw, err := ParseSpec([]byte(`{"model": "coin-test", "seed": 5, "replications": 4,
		"base": {"tosses": 20000}, "axes": [{"p": [0.1, 0.25, 0.5, 0.9]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseSpec([]byte(`{"model": "coin-test", "seed": 5, "replications": 4, "axes": [{"lambda": [0.5]}]}`)); err == nil {
		t.Error("a key of another model was accepted")
	}
	dir := filepath.Join(t.TempDir(), "coin")
	if _, err := Run(context.Background(), sw, Options{Out: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	m, err := Merge(dir, MergeOptions{Summary: true})
	if err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(t.TempDir(), "coin.csv")
	if err := m.Write(csvPath); err != nil {
		t.Fatal(err)
	}
	tab, err := LoadCSV(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"point", "p", "seed", "label", "tosses", "heads", "heads_ci95", "v1", "v2"}
	if len(tab.Columns) != len(want) {
		t.Fatalf("columns %v, want %v", tab.Columns, want)
	}
	for i := range want {
		if tab.Columns[i] != want[i] {
			t.Fatalf("columns %v, want %v", tab.Columns, want)
		}
	}
	ps, _ := tab.Floats("p")
	heads, _ := tab.Floats("heads")
	cis, _ := tab.Floats("heads_ci95")
	seeds, _ := tab.Strings("seed")
	v2, _ := tab.Strings("v2")
	for i, p := range ps {
		// 4 half-widths: the t-interval over 4 replications of 20000
		// tosses; a wrong stream or a mixed-up column fails this.
		if math.Abs(heads[i]-p) > 4*cis[i]+1e-12 || cis[i] <= 0 && p != 0 {
			t.Errorf("p = %v: heads %v ± %v", p, heads[i], cis[i])
		}
		if i > 0 && seeds[i] == seeds[i-1] {
			t.Errorf("points %d and %d have the same seed", i-1, i)
		}
		// v has 1 + int(10p)%2 entries: 2 for p = 0.1, 0.9; padded with 0 otherwise.
		wantV2 := "0"
		if int(p*10)%2 == 1 {
			wantV2 = strconv.FormatFloat(p*p, 'g', -1, 64)
		}
		if v2[i] != wantV2 {
			t.Errorf("p = %v: v2 = %s, want %s", p, v2[i], wantV2)
		}
	}
	per, err := Merge(dir, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := per.Provenance.Columns; len(got) != 6 || got[4] != "heads" || got[5] != "longest_run" {
		t.Errorf("per-replication columns %v", got)
	}
	if per.Provenance.Rows != 16 {
		t.Errorf("per-replication rows %d, want 16", per.Provenance.Rows)
	}
}
