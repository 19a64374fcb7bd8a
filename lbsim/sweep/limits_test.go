package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/model"
)

// bytesPerPoint bounds the memory an expanded point holds, measured here as
// the live heap after Points on 5000 points of the dispatch model.
func TestPointsMemory(t *testing.T) {
	sw := mustParse(t, `{"seed": 1, "replications": 2, "base": {"servers": 100, "policy": "jsqd", "horizon": 10},
		"axes": [{"lambda": {"from": 0.1, "to": 0.9, "count": 50}}, {"d": {"from": 1, "to": 100, "count": 100}}]}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	pts, err := sw.Points()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(pts))
	t.Logf("%d points: %.0f bytes per point", len(pts), per)
	if per > bytesPerPoint {
		t.Errorf("%.0f bytes per point, above bytesPerPoint = %d", per, bytesPerPoint)
	}
	runtime.KeepAlive(pts)
}

// A sweep whose points would not fit the memory limit, and a point above a
// resource limit, are refused before anything is built or run.
func TestPointsLimits(t *testing.T) {
	model.SetMemoryLimit(1 << 20)
	defer model.SetMemoryLimit(0)
	sw := mustParse(t, `{"seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"},
		"axes": [{"lambda": {"from": 0.1, "to": 0.9, "count": 1000}}]}`)
	if _, err := sw.Points(); err == nil || !strings.Contains(err.Error(), "axes (1000 points): needs about 2.05 MB") {
		t.Errorf("Points: %v, want a refusal naming the axes", err)
	}
	model.SetMemoryLimit(1 << 30)
	sw = mustParse(t, `{"seed": 1, "replications": 1, "base": {"policy": "jsq", "lambda": 0.5, "engine": "servers"},
		"axes": [{"servers": [10, 100000000]}]}`)
	if _, err := sw.Points(); err == nil || !strings.Contains(err.Error(), "servers = 100000000: needs about") {
		t.Errorf("Points: %v, want a refusal naming servers", err)
	}
	model.SetEventLimit(1e9)
	defer model.SetEventLimit(0)
	sw = mustParse(t, `{"seed": 1, "replications": 1, "base": {"policy": "jsq", "lambda": 0.5, "servers": 1000},
		"axes": [{"horizon": [10, 1e7]}]}`)
	if _, err := sw.Points(); err == nil || !strings.Contains(err.Error(), "horizon = 1e+07: expects about 1e+10 events") {
		t.Errorf("Points: %v, want a refusal naming the horizon", err)
	}
}

// A truncated point file is run again by a resumed sweep, which says so
// (and refused without resume); a point file edited after it was written
// fails its checksum, so merge refuses it, naming it.
func TestCorruptPoints(t *testing.T) {
	dir, ref := t.TempDir(), t.TempDir()
	runAll(t, small, ref, Options{})
	want := mergeCSV(t, ref, MergeOptions{}).CSV
	runAll(t, small, dir, Options{})

	data, err := os.ReadFile(PointFile(dir, 3))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(PointFile(dir, 3), data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(dir, MergeOptions{}); !errors.Is(err, ErrCorruptPoint) || !strings.Contains(err.Error(), "is truncated") {
		t.Errorf("merge of a truncated point: %v", err)
	}
	if _, err := Run(context.Background(), mustParse(t, small), Options{Out: dir}); !errors.Is(err, ErrConflict) ||
		!strings.Contains(err.Error(), "--resume") {
		t.Errorf("rerun without resume: %v", err)
	}
	var logged []string
	sum := runAll(t, small, dir, Options{Resume: true, Log: func(m string) { logged = append(logged, m) }})
	if sum.Ran != 1 || sum.Recomputed != 1 || sum.Skipped != 5 || len(logged) != 1 ||
		!strings.Contains(logged[0], "point 3 (policy=jsqd, lambda=0.5): corrupt point file") ||
		!strings.HasSuffix(logged[0], "running it again") {
		t.Errorf("resume: ran %d, recomputed %d, skipped %d, log %q", sum.Ran, sum.Recomputed, sum.Skipped, logged)
	}
	if got := mergeCSV(t, dir, MergeOptions{}).CSV; !bytes.Equal(got, want) {
		t.Error("the recomputed sweep differs from an uninterrupted one")
	}

	// An edit that keeps valid JSON: a figure changed.
	data, _ = os.ReadFile(PointFile(dir, 4))
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	rec["figures"].([]any)[3].(map[string]any)["value"] = "0.123"
	edited, _ := json.MarshalIndent(rec, "", " ")
	if err := os.WriteFile(PointFile(dir, 4), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(dir, MergeOptions{}); !errors.Is(err, ErrCorruptPoint) ||
		!strings.Contains(err.Error(), "point-000004.json\" was edited after it was written") {
		t.Errorf("merge of an edited point: %v", err)
	}
}
