package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
)

// loadDataset loads data/NAME.csv and checks it against its spec,
// data/specs/NAME.json: the provenance records that sweep, a complete summary
// merge with one row per point, and point 0, recomputed from the spec, has the
// same numbers to the last digit (same seed, same bytes).
func loadDataset(t *testing.T, name string) *Table {
	t.Helper()
	csvPath := "../../data/" + name + ".csv"
	tab, err := LoadCSV(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	prov, err := LoadProvenance(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ReadSpec("../../data/specs/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(spec)
	b, _ := json.Marshal(prov.Sweep)
	n := spec.NumPoints()
	if string(a) != string(b) || !prov.Summary || prov.Rows != n || tab.Len() != n || len(prov.Missing) != 0 {
		t.Fatalf("the provenance of %s does not match data/specs/%s.json (%d points, summary, none missing):\n%s\n%s",
			csvPath, name, n, a, b)
	}

	desc := prov.Describe()
	want := fmt.Sprintf("%d points × %d replications", n, spec.Replications)
	if !strings.Contains(desc, want) || !strings.Contains(desc, "sweep: ") || !strings.Contains(desc, "merge: ") {
		t.Errorf("Describe of %s: %q, want the commands and %q", csvPath, desc, want)
	}

	pts, err := spec.Points()
	if err != nil {
		t.Fatal(err)
	}
	res := runPoint(t, pts[0])
	row := tab.Where("point", "0")
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for col, want := range map[string]string{"mean_sojourn": g(res.MeanSojourn), "q2": g(res.Occupancy[1]),
		"q2_ci95": g(res.OccupancyCI95[1]), "wait_probability_ci95": g(res.WaitProbabilityCI95),
		"events": strconv.FormatInt(res.Events, 10)} {
		if s, err := row.Strings(col); err != nil || len(s) != 1 || s[0] != want {
			t.Errorf("%s, %s, %s: the CSV has %s, a run of its scenario gives %s: the data is stale; "+
				"regenerate it with the commands in data/README.md", name, pts[0], col, s, want)
		}
	}
	return tab
}

// The dataset data/01-jsqd-finite-n.csv: made from its spec, reproducible
// from it, and in line with the mean-field limit of JSQ(2).
func TestDataJSQdFiniteN(t *testing.T) {
	tab := loadDataset(t, "01-jsqd-finite-n")

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
			// (about 6 standard errors with 20 replications) below it would be a failure.
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

// The dataset data/02-er-scaling.csv (neighbour JSQ on Erdős-Rényi graphs and
// the clique, notebook 02): made from its spec, reproducible from it (point 0,
// N = 300, is recomputed), and consistent with two exact laws at every point.
func TestDataERScaling(t *testing.T) {
	checkBalance(t, loadDataset(t, "02-er-scaling"), 0.002, 0)
}

// The dataset data/02-inside-region.csv (neighbour JSQ on implicit
// Erdős-Rényi graphs of mean degree N^(3/4) and on the clique, N = 300 to
// 3·10^5, λ = 1 − 1/√N): reproducible (point 0 is recomputed), balanced, √N
// q_2 of the order of the clique's (below 3 at every point; d = √N gives 6 to
// 63 in 02-er-scaling), and the clique's √N q_2 at the Eschenfeldt-Gamarnik
// diffusion limit E[Q̄₂] = 0.82 at β = 1 (meanfield.JSQDiffusionStationary)
// from N = 1000 on, within 2 half-widths plus 0.15 for the finite-N
// corrections (measured: at most 0.08 off).
func TestDataInsideRegion(t *testing.T) {
	tab := loadDataset(t, "02-inside-region")
	checkBalance(t, tab, 0.002, 0)
	n, q2, ci := floats(t, tab, "servers"), floats(t, tab, "q2"), floats(t, tab, "q2_ci95")
	topology, err := tab.Strings("topology")
	if err != nil {
		t.Fatal(err)
	}
	for k := range n {
		s, h := math.Sqrt(n[k])*q2[k], math.Sqrt(n[k])*ci[k]
		if s > 3 {
			t.Errorf("row %d (N = %v, %s): √N q_2 = %v, want below 3", k, n[k], topology[k], s)
		}
		if topology[k] == "complete" && n[k] >= 1000 && math.Abs(s-0.82) > 2*h+0.15 {
			t.Errorf("row %d (N = %v, clique): √N q_2 = %v ± %v, want 0.82 within 2 half-widths + 0.15", k, n[k], s, h)
		}
	}
}

// The dataset data/02-log-degree.csv (mean degree ln N and 10 at N = 10^5 to
// 10^6, λ = 0.9): reproducible, balanced (the shorter warmup of 20 leaves
// more of the transient: 0.003), and q_2 falls with N for ln N while it stays
// above 0.3 for d = 10.
func TestDataLogDegree(t *testing.T) {
	tab := loadDataset(t, "02-log-degree")
	checkBalance(t, tab, 0.003, 0.9) // lambda = 0.9 is in the base, not a column
	n, d, q2 := floats(t, tab, "servers"), floats(t, tab, "degree"), floats(t, tab, "q2")
	prev := 1.0
	for k := range n {
		switch {
		case d[k] == 10 && q2[k] < 0.3:
			t.Errorf("row %d (N = %v, d = 10): q_2 = %v, want above 0.3", k, n[k], q2[k])
		case d[k] != 10:
			if q2[k] >= prev {
				t.Errorf("row %d (N = %v, d = ln N = %v): q_2 = %v does not fall (%v before)", k, n[k], d[k], q2[k], prev)
			}
			prev = q2[k]
		}
	}
}

// floats returns column name of tab.
func floats(t *testing.T, tab *Table, name string) []float64 {
	t.Helper()
	x, err := tab.Floats(name)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// checkBalance checks the rows of a dispatch dataset of unit-rate servers
// against two identities a wrong simulator breaks: the fraction of busy
// servers is lambda (within 4 half-widths, about 13 standard errors with 4
// replications whose own spread is uncertain, plus slack for what is left of
// the transient from the empty start after the warmup; measured in
// 02-er-scaling: |q1 - lambda| <= 0.0026, at most 1.6 half-widths), and
// Little's law, tasks per server = lambda * mean sojourn, within 1% (the
// sojourns are those of the tasks that leave in the measured window, which
// differ from the time average by the tasks present at its ends, a relative
// edge effect of order (tasks per server) / (lambda * window), below 0.5%
// here; measured: at most 0.3%). lambda is the column of that name, or the
// sweep's single value lambda0 when it has none.
func checkBalance(t *testing.T, tab *Table, slack, lambda0 float64) {
	t.Helper()
	n, q1, q1ci := floats(t, tab, "servers"), floats(t, tab, "q1"), floats(t, tab, "q1_ci95")
	lam := make([]float64, len(n))
	if lambda0 > 0 {
		for k := range lam {
			lam[k] = lambda0
		}
	} else {
		lam = floats(t, tab, "lambda")
	}
	tasks, soj := floats(t, tab, "mean_tasks_per_server"), floats(t, tab, "mean_sojourn")
	for k := range lam {
		if d := math.Abs(q1[k] - lam[k]); d > 4*q1ci[k]+slack {
			t.Errorf("row %d (N = %v, lambda = %v): q1 = %v +- %v, want lambda", k, n[k], lam[k], q1[k], q1ci[k])
		}
		if math.Abs(tasks[k]-lam[k]*soj[k]) > 0.01*tasks[k] {
			t.Errorf("row %d (N = %v, lambda = %v): %v tasks per server, lambda * sojourn = %v", k, n[k], lam[k], tasks[k], lam[k]*soj[k])
		}
	}
}

// runPoint runs a point of a dispatch sweep with lbsim.Run.
func runPoint(t *testing.T, pt Point) *lbsim.Result {
	t.Helper()
	sc, err := lbsim.ScenarioFromValues(pt.Values)
	if err != nil {
		t.Fatal(err)
	}
	res, err := lbsim.Run(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The dataset data/03-hw-diffusion.csv (JSQ, JSQ(d(N)), JIQ and JIQ(d) in the
// Halfin-Whitt regime lambda = 1 - beta/sqrt(N), N = 10^3 .. 10^6, notebook
// 03, sections 4 and 6) and its per-replication twin
// 03-hw-diffusion-replications.csv: made from their spec, reproducible from
// it (point 0, JSQ at N = 1000, is recomputed), consistent with Little's law
// and rate conservation at every point, and JSQ at beta = 1 near the
// diffusion limit.
func TestDataHWDiffusion(t *testing.T) {
	tab := loadDataset(t, "03-hw-diffusion")
	// Unit-rate servers: E[q_1] = lambda within 4 half-widths plus 0.0002
	// for what is left of the transient after the warmup; Little's law
	// within 1%.
	checkBalance(t, tab, 0.0002, 0)
	policy, err := tab.Strings("policy")
	if err != nil {
		t.Fatal(err)
	}
	n, lam, q2, q2ci := floats(t, tab, "servers"), floats(t, tab, "lambda"), floats(t, tab, "q2"), floats(t, tab, "q2_ci95")
	jsq := 0
	for k := range n {
		// JSQ at beta = 1: sqrt(N) q_2 near E[Qbar_2] = 0.81406 of the
		// diffusion limit (meanfield.JSQDiffusionLawLimit) within 4
		// half-widths (about 8 standard errors with 16 replications) plus
		// 6/sqrt(N) for the finite-N gap.
		s := math.Sqrt(n[k])
		if policy[k] == "jsq" && lam[k] == 1-1/s {
			jsq++
			if d := math.Abs(s*q2[k] - 0.81406); d > 4*s*q2ci[k]+6/s {
				t.Errorf("JSQ, N = %v: sqrt(N) q2 = %v +- %v, the diffusion limit 0.81406", n[k], s*q2[k], s*q2ci[k])
			}
		}
	}
	if jsq != 4 {
		t.Errorf("%d JSQ rows at beta = 1, want 4 (N = 10^3 .. 10^6)", jsq)
	}
	// The per-replication file: the same sweep, every replication of every
	// point, and the law columns.
	reps, err := LoadCSV("../../data/03-hw-diffusion-replications.csv")
	if err != nil {
		t.Fatal(err)
	}
	prov, err := LoadProvenance("../../data/03-hw-diffusion-replications.csv")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ReadSpec("../../data/specs/03-hw-diffusion.json")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(spec)
	b, _ := json.Marshal(prov.Sweep)
	if want := spec.NumPoints() * spec.Replications; string(a) != string(b) || prov.Summary || reps.Len() != want || len(prov.Missing) != 0 {
		t.Fatalf("03-hw-diffusion-replications.csv: %d rows (want %d), summary %v, or its provenance's sweep differs from the spec",
			reps.Len(), want, prov.Summary)
	}
	// A replication's quantiles of q_2 average to the summary's.
	for _, p := range []string{"10", "50", "90"} {
		col := "q2_quantile" + p
		mean := floats(t, tab.Where("point", "0"), col)[0]
		xs := floats(t, reps.Where("point", "0"), col)
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		if got := sum / float64(len(xs)); math.Abs(got-mean) > 1e-12 {
			t.Errorf("point 0, %s: replications average %v, summary %v", col, got, mean)
		}
	}
}
