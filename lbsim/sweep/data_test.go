package sweep

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
)

// The dataset data/01-jsqd-finite-n.csv: made from its spec, reproducible
// from it, and in line with the mean-field limit of JSQ(2).
func TestDataJSQdFiniteN(t *testing.T) {
	const csvPath = "../../data/01-jsqd-finite-n.csv"
	tab, err := LoadCSV(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	prov, err := LoadProvenance(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ReadSpec("../../data/specs/01-jsqd-finite-n.json")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(spec)
	b, _ := json.Marshal(prov.Sweep)
	if string(a) != string(b) || !prov.Summary || prov.Rows != 24 || tab.Len() != 24 || len(prov.Missing) != 0 {
		t.Fatalf("the CSV's provenance does not match data/specs/01-jsqd-finite-n.json:\n%s\n%s", a, b)
	}

	// Same seed, same bytes: point 0 (N = 10, lambda = 0.5) recomputed.
	pts, err := spec.Points()
	if err != nil {
		t.Fatal(err)
	}
	res, err := lbsim.RunSpec(context.Background(), pts[0].Spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	row := tab.Where("point", "0")
	for col, x := range map[string]float64{"mean_sojourn": res.MeanSojourn, "q2": res.Occupancy[1],
		"wait_probability_ci95": res.WaitProbabilityCI95} {
		s, _ := row.Strings(col)
		if want := strconv.FormatFloat(x, 'g', -1, 64); s[0] != want {
			t.Errorf("point 0 %s: the CSV has %s, a run of its scenario gives %s: the data is stale; regenerate it "+
				"with the commands in data/README.md", col, s[0], want)
		}
	}

	// T_2(lambda) = sum_i lambda^(2^i - 2), the mean sojourn in the
	// mean-field limit (MODELS.md: T_2(0.9) = 2.6141, T_2(0.5) = 1.2657).
	t2 := func(l float64) float64 {
		s := 0.0
		for i := 1; i < 60; i++ {
			s += math.Pow(l, math.Pow(2, float64(i))-2)
		}
		return s
	}
	if math.Abs(t2(0.9)-2.6141) > 1e-4 || math.Abs(t2(0.5)-1.2657) > 1e-4 {
		t.Fatalf("T_2: %v %v", t2(0.9), t2(0.5))
	}
	for _, l := range []string{"0.5", "0.7", "0.9", "0.95"} {
		lam, _ := strconv.ParseFloat(l, 64)
		rows := tab.Where("lambda", l)
		ns, _ := rows.Floats("servers")
		soj, _ := rows.Floats("mean_sojourn")
		ci, _ := rows.Floats("mean_sojourn_ci95")
		limit := t2(lam)
		for k := range ns {
			// Finite N sits above the limit, up to noise: 3 half-widths
			// (about 4.5 standard errors) below it would be a failure.
			if soj[k] < limit-3*ci[k] {
				t.Errorf("lambda %s, N %v: mean sojourn %v +- %v below the limit T_2 = %v", l, ns[k], soj[k], ci[k], limit)
			}
			// The gap shrinks like 1/N: at N = 1000 it is below 1% of
			// the limit (N * gap is about 0.2 to 9 here).
			if ns[k] == 1000 && soj[k]-limit > 0.01*limit {
				t.Errorf("lambda %s, N = 1000: mean sojourn %v, more than 1%% above T_2 = %v", l, soj[k], limit)
			}
			// Larger systems are faster: N = 10 < 20 < 50 < ... beyond the CIs
			// (the gaps are c/N - c/N' with c >= 0.2, above the summed half-widths).
			if k > 0 && ns[k] <= 100 && soj[k] > soj[k-1]-ci[k]-ci[k-1] {
				t.Errorf("lambda %s: mean sojourn at N = %v (%v +- %v) not below N = %v (%v +- %v)",
					l, ns[k], soj[k], ci[k], ns[k-1], soj[k-1], ci[k-1])
			}
		}
	}
}
