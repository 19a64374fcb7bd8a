package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lbsim/notebooks/lbsim"
	"gonum.org/v1/gonum/stat/distuv"
)

// small is a sweep of 6 quick points (the occupancy engine).
const small = `{"name": "small", "seed": 11, "replications": 3,
	"base": {"servers": 50, "horizon": 300},
	"axes": [{"policy": ["random", "jsqd"]}, {"lambda": [0.5, 0.7, 0.9]}]}`

func runAll(t *testing.T, spec, dir string, opt Options) *Summary {
	t.Helper()
	opt.Out = dir
	sum, err := Run(context.Background(), mustParse(t, spec), opt)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum
}

func mergeCSV(t *testing.T, dir string, opt MergeOptions) *Merged {
	t.Helper()
	m, err := Merge(dir, opt)
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	return m
}

// Shards written into one directory, with any number of workers, merge to
// the same bytes as one local run; and every point equals lbsim.Run of its
// scenario with the point's seed.
func TestShardsMergeToSameBytes(t *testing.T) {
	local, sharded := t.TempDir(), t.TempDir()
	runAll(t, small, local, Options{Workers: 2})
	for i := range 4 {
		sum := runAll(t, small, sharded, Options{Shard: i, Shards: 4, Workers: 1})
		want := 0
		for p := range 6 {
			if p%4 == i {
				want++
			}
		}
		if sum.Ran != want || sum.InShard != want {
			t.Errorf("shard %d/4 ran %d points, want %d", i, sum.Ran, want)
		}
	}
	for _, summary := range []bool{false, true} {
		a := mergeCSV(t, local, MergeOptions{Summary: summary})
		b := mergeCSV(t, sharded, MergeOptions{Summary: summary})
		if !bytes.Equal(a.CSV, b.CSV) {
			t.Errorf("summary=%v: sharded CSV differs from the local one:\n%s\n%s", summary, a.CSV, b.CSV)
		}
		if b.Provenance.Shards == nil || len(b.Provenance.Shards) != 4 || b.Provenance.HostCount != 1 {
			t.Errorf("provenance shards %v, hosts %d", b.Provenance.Shards, b.Provenance.HostCount)
		}
	}

	// Point 4 (jsqd, lambda 0.7) reproduced by a plain run with its seed.
	pts := mustPoints(t, small)
	res := runPoint(t, pts[4])
	tab := csvTable(t, mergeCSV(t, local, MergeOptions{}).CSV).Where("point", "4")
	soj, _ := tab.Floats("mean_sojourn")
	q2, _ := tab.Floats("q2")
	for r, rr := range res.PerReplication {
		if soj[r] != rr.MeanSojourn || q2[r] != rr.Occupancy[1] {
			t.Errorf("replication %d: CSV (%v, %v) != lbsim.Run (%v, %v)", r, soj[r], q2[r], rr.MeanSojourn, rr.Occupancy[1])
		}
	}
}

func csvTable(t *testing.T, data []byte) *Table {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.csv")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := LoadCSV(p)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestResumeAndConflicts(t *testing.T) {
	dir, ref := t.TempDir(), t.TempDir()
	runAll(t, small, ref, Options{})
	want := mergeCSV(t, ref, MergeOptions{}).CSV

	runAll(t, small, dir, Options{})
	// Without --resume, finished points are an error and nothing is rewritten.
	_, err := Run(context.Background(), mustParse(t, small), Options{Out: dir})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("rerun without resume: %v", err)
	}
	// Lose point 2 and leave a torn temporary file as a killed writer would.
	before, _ := os.Stat(PointFile(dir, 0))
	if err := os.Remove(PointFile(dir, 2)); err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(dir, PointsDir, ".point-000002.json.tmp-123")
	if err := os.WriteFile(torn, []byte(`{"format": "lbsim-sw`), 0o644); err != nil {
		t.Fatal(err)
	}
	var ie *IncompleteError
	if _, err := Merge(dir, MergeOptions{}); !errors.As(err, &ie) || len(ie.Missing) != 1 || ie.Missing[0].Index != 2 ||
		!strings.Contains(err.Error(), "point 2 (policy=random, lambda=0.9)") {
		t.Errorf("merge with point 2 missing: %v", err)
	}
	m, err := Merge(dir, MergeOptions{AllowIncomplete: true})
	if err != nil || m.Provenance.Rows != 5*3 || !slices.Equal(m.Provenance.Missing, []int{2}) {
		t.Errorf("allow-incomplete: %v, rows %d, missing %v", err, m.Provenance.Rows, m.Provenance.Missing)
	}
	sum := runAll(t, small, dir, Options{Resume: true})
	if sum.Ran != 1 || sum.Skipped != 5 {
		t.Errorf("resume ran %d, skipped %d; want 1 and 5", sum.Ran, sum.Skipped)
	}
	if _, err := os.Stat(torn); !os.IsNotExist(err) {
		t.Errorf("torn temporary file not removed: %v", err)
	}
	after, _ := os.Stat(PointFile(dir, 0))
	if !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("resume rewrote a finished point")
	}
	if got := mergeCSV(t, dir, MergeOptions{}).CSV; !bytes.Equal(got, want) {
		t.Errorf("resumed sweep differs from an uninterrupted one")
	}

	// Another sweep in the same directory is refused.
	other := strings.Replace(small, `"seed": 11`, `"seed": 12`, 1)
	if _, err := Run(context.Background(), mustParse(t, other), Options{Out: dir, Resume: true}); !errors.Is(err, ErrConflict) {
		t.Errorf("another sweep in the same directory: %v", err)
	}
	// A point file of another scenario is refused by merge and resume.
	otherDir := t.TempDir()
	runAll(t, other, otherDir, Options{})
	data, _ := os.ReadFile(PointFile(otherDir, 1))
	if err := os.WriteFile(PointFile(dir, 1), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(dir, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "another scenario") {
		t.Errorf("merge with a foreign point: %v", err)
	}
	if _, err := Run(context.Background(), mustParse(t, small), Options{Out: dir, Resume: true}); !errors.Is(err, ErrConflict) {
		t.Errorf("resume with a foreign point: %v", err)
	}
}

func TestMixedVersions(t *testing.T) {
	dir := t.TempDir()
	runAll(t, small, dir, Options{})
	rec, err := ReadPoint(PointFile(dir, 3))
	if err != nil {
		t.Fatal(err)
	}
	rec.Version.Revision, rec.Version.Modified = "0123456789abcdef", false
	data, _ := json.Marshal(rec)
	if err := WriteFileAtomic(PointFile(dir, 3), data); err != nil {
		t.Fatal(err)
	}
	var me *MixedError
	if _, err := Merge(dir, MergeOptions{}); !errors.As(err, &me) || !strings.Contains(err.Error(), "points 3") ||
		!strings.Contains(err.Error(), "revision 0123456789abcdef") {
		t.Errorf("mixed versions: %v", err)
	}
	m, err := Merge(dir, MergeOptions{AllowMixed: true})
	if err != nil || len(m.Provenance.Versions) != 2 {
		t.Errorf("allow-mixed: %v", err)
	}
}

// A cancelled sweep keeps every finished point complete; resuming it gives
// the same bytes as an uninterrupted run.
func TestCancelThenResume(t *testing.T) {
	spec := `{"seed": 2, "replications": 2, "base": {"servers": 200, "policy": "jsqd", "horizon": 2000, "engine": "servers"},
		"axes": [{"lambda": [0.5, 0.6, 0.7, 0.8, 0.9, 0.95]}]}`
	dir, ref := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	sw := mustParse(t, spec)
	opt := Options{Out: dir, Workers: 1, Progress: func(p Progress) {
		if p.Done >= 2 {
			cancel()
		}
	}}
	_, err := Run(ctx, sw, opt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, PointsDir, "*"))
	if len(files) < 2 || len(files) >= 6 {
		t.Fatalf("after cancellation: files %v, want 2..5 finished points", files)
	}
	for _, f := range files {
		if _, err := ReadPoint(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := Run(context.Background(), sw, Options{Out: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	runAll(t, spec, ref, Options{})
	if a, b := mergeCSV(t, dir, MergeOptions{}).CSV, mergeCSV(t, ref, MergeOptions{}).CSV; !bytes.Equal(a, b) {
		t.Errorf("cancelled and resumed sweep differs from an uninterrupted one")
	}
}

// The merged numbers against closed forms. Random routing splits the Poisson
// stream into N independent M/M/1 queues of load lambda: mean sojourn
// 1/(1-lambda), q_1 = lambda, q_2 = lambda^2. The summary rows are the means
// of the per-replication rows, with Student-t half-widths.
func TestMergedAgainstMM1(t *testing.T) {
	spec := `{"seed": 4, "replications": 8, "base": {"servers": 100, "policy": "random", "horizon": 3000},
		"axes": [{"lambda": [0.3, 0.5, 0.7]}]}`
	dir := t.TempDir()
	runAll(t, spec, dir, Options{})
	per := csvTable(t, mergeCSV(t, dir, MergeOptions{}).CSV)
	sum := csvTable(t, mergeCSV(t, dir, MergeOptions{Summary: true}).CSV)
	if per.Len() != 3*8 || sum.Len() != 3 {
		t.Fatalf("rows: %d per replication, %d summary", per.Len(), sum.Len())
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 7}.Quantile(0.975)
	for _, lam := range []float64{0.3, 0.5, 0.7} {
		l := strconv.FormatFloat(lam, 'g', -1, 64)
		rows, s := per.Where("lambda", l), sum.Where("lambda", l)
		for _, c := range []struct {
			col  string
			want float64
		}{{"mean_sojourn", 1 / (1 - lam)}, {"q1", lam}, {"q2", lam * lam}} {
			xs, _ := rows.Floats(c.col)
			mean, half := lbsim.MeanCI95(xs)
			got, _ := s.Floats(c.col)
			ci, _ := s.Floats(c.col + "_ci95")
			if got[0] != mean || ci[0] != half {
				t.Errorf("lambda %v %s: summary (%v +- %v) != mean of the replications (%v +- %v)", lam, c.col, got[0], ci[0], mean, half)
			}
			// 4 standard errors (half/t_{0.975,7}): a fixed seed, and a
			// false alarm would have probability below 1e-4 per check.
			if se := half / tq; math.Abs(mean-c.want) > 4*se {
				t.Errorf("lambda %v %s = %v +- %v, want %v (M/M/1)", lam, c.col, mean, se, c.want)
			}
		}
	}
}

func TestLoadCSVAndProvenance(t *testing.T) {
	dir := t.TempDir()
	runAll(t, small, dir, Options{Command: []string{"lbsim", "sweep", "small.json"}})
	out := filepath.Join(t.TempDir(), "small.csv")
	m := mergeCSV(t, dir, MergeOptions{Command: []string{"lbsim", "merge"}})
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	tab, err := LoadCSV(out)
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := tab.Distinct("policy")
	if !slices.Equal(pol, []string{"random", "jsqd"}) || tab.Len() != 18 {
		t.Errorf("policies %v, rows %d", pol, tab.Len())
	}
	if n := tab.Where("policy", "jsqd").Where("lambda", "0.90").Len(); n != 3 {
		t.Errorf("Where(jsqd, 0.90): %d rows, want 3", n)
	}
	if _, err := tab.Floats("nope"); err == nil {
		t.Errorf("unknown column: no error")
	}
	if _, err := tab.Floats("policy"); err == nil {
		t.Errorf("non-numeric column: no error")
	}
	p, err := LoadProvenance(out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != ProvenanceFormat || p.Points != 6 || p.Rows != 18 || p.Sweep.Name != "small" ||
		len(p.Versions) != 1 || p.HostCount != 1 || !slices.Equal(p.SweepCommands[0], []string{"lbsim", "sweep", "small.json"}) ||
		p.Timings.PointSeconds <= 0 || p.Timings.LastFinish.Before(p.Timings.FirstStart) ||
		time.Since(p.Created) > time.Hour {
		t.Errorf("provenance: %+v", p)
	}
}

// Points run costliest first (the dispatch model's cost grows with N), ties in
// point order: with one worker, the start times follow N = 200, 80, 80, 20
// (points 1, 2, 3, 0), and the merged bytes are those of any other order
// (TestShardsMergeToSameBytes runs the points in other orders through shards).
func TestCostliestPointsFirst(t *testing.T) {
	const spec = `{"name": "order", "seed": 3, "replications": 1,
		"base": {"policy": "random", "lambda": 0.5, "horizon": 20},
		"axes": [{"servers": [20, 200, 80, 80]}]}`
	dir := t.TempDir()
	runAll(t, spec, dir, Options{Workers: 1})
	started := make([]time.Time, 4)
	for i := range started {
		rec, err := ReadPoint(PointFile(dir, i))
		if err != nil {
			t.Fatal(err)
		}
		started[i] = rec.Started
	}
	order := []int{0, 1, 2, 3}
	slices.SortStableFunc(order, func(a, b int) int { return started[a].Compare(started[b]) })
	if !slices.Equal(order, []int{1, 2, 3, 0}) {
		t.Errorf("points started in the order %v, want [1 2 3 0] (costliest first, ties in point order)", order)
	}
}
