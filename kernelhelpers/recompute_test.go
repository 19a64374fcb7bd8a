package kernelhelpers

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/sweep"
)

// A tiny sweep merged as `lbsim sweep` and `lbsim merge --summary` do:
// recomputing some of its points gives the CSV's rows, and a changed cell
// is reported as a difference.
func TestRecomputeSweep(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "tiny.json")
	const text = `{"name": "tiny", "seed": 5, "replications": 2,
 "base": {"policy": "neighbour-jsq", "horizon": 50},
 "axes": [{"servers": [20, 40]}, {"lambda": [0.5, 0.8], "topology": ["er", "complete"], "degree": [3, null]}]}`
	if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sw, err := sweep.ReadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sweep.Run(context.Background(), sw, sweep.Options{Out: filepath.Join(dir, "runs")}); err != nil {
		t.Fatal(err)
	}
	m, err := sweep.Merge(filepath.Join(dir, "runs"), sweep.MergeOptions{Summary: true})
	if err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(dir, "tiny.csv")
	if err := m.Write(csv); err != nil {
		t.Fatal(err)
	}
	odd := func(p sweep.Point) bool { return p.Index%2 == 1 } // points 1 and 3: the complete graph (JSQ)
	points, diffs, err := RecomputeSweep(spec, csv, odd)
	if err != nil || len(points) != 2 || len(diffs) != 0 {
		t.Fatalf("recomputed %q, differences %q, err %v; want 2 points, no difference", points, diffs, err)
	}

	// Change point 3's mean sojourn in the CSV: one difference, naming it.
	raw, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := sweep.LoadCSV(csv)
	if err != nil {
		t.Fatal(err)
	}
	soj, err := tab.Where("point", "3").Strings("mean_sojourn")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(csv, []byte(strings.Replace(string(raw), ","+soj[0]+",", ",1.5,", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diffs, err = RecomputeSweep(spec, csv, odd)
	if err != nil || len(diffs) != 1 || !strings.Contains(diffs[0], "point 3, mean_sojourn: CSV [1.5]") {
		t.Fatalf("differences %q, err %v; want one, in point 3's mean_sojourn", diffs, err)
	}
	if _, _, err := RecomputeSweep(spec, csv, func(sweep.Point) bool { return false }); err == nil {
		t.Fatal("no point selected: no error")
	}
}
