package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
	"github.com/lbsim/notebooks/lbsim/sweep"
)

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A failure of a later output leaves no earlier one and no temporary file; a
// cancelled context at the end leaves nothing and writes nothing; a success
// replaces an existing regular file.
func TestOutputsStaged(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.html")
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	var o outputs
	if err := o.stage("trajectory", a, write("a")); err != nil {
		t.Fatal(err)
	}
	err := o.stage("plot", b, func(w io.Writer) error { return errors.New("disk full") })
	o.discard()
	if err == nil || !strings.Contains(err.Error(), `plot = "`+b+`": writing: disk full`) {
		t.Errorf("stage: %v", err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("a failed command left %v", names)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o = outputs{}
	if err := o.stage("trajectory", a, write("a")); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if err := o.commit(ctx, &stdout, []byte("{}\n")); !errors.Is(err, context.Canceled) || stdout.Len() != 0 {
		t.Errorf("commit after a signal: %v, stdout %q", err, stdout.String())
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("an interrupted command left %v", names)
	}

	if err := os.WriteFile(a, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	o = outputs{}
	if err := o.stage("trajectory", a, write("new")); err != nil {
		t.Fatal(err)
	}
	if err := o.commit(context.Background(), &stdout, []byte("{}\n")); err != nil || stdout.String() != "{}\n" {
		t.Fatalf("commit: %v, stdout %q", err, stdout.String())
	}
	if data, _ := os.ReadFile(a); string(data) != "new" {
		t.Errorf("the file holds %q, want new", data)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("left %v, want only a.csv", names)
	}
}

// An output path that is a device, a directory or a link is refused before
// the run and left alone (a failed write used to remove the path, which as
// root deleted /dev/full).
func TestOutputNotRegular(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "--servers", "5", "--lambda", "0.5", "--policy", "jsq", "--horizon", "10", "--grid", "1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(base, "--trajectory", "/dev/null"), `trajectory = "/dev/null": exists and is not a regular file (a device)`},
		{append(base, "--plot", empty), `exists and is not a regular file (a directory)`},
		{append(base, "--trajectory", link), `exists and is not a regular file (a symbolic link)`},
		{[]string{"meanfield", "--policy", "jsqd", "--lambda", "0.5", "--until", "1", "--trajectory", "/dev/null"},
			`trajectory = "/dev/null": exists and is not a regular file (a device)`},
	} {
		code, stdout, stderr := cli(t, context.Background(), c.args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q; want 1 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("/dev/null: %v, %v", st, err)
	}
	if st, err := os.Stat(empty); err != nil || !st.IsDir() {
		t.Errorf("the empty directory is gone: %v", err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("the link is gone: %v", err)
	}
	if names := entries(t, dir); len(names) != 2 {
		t.Errorf("left %v in the directory", names)
	}
}

// A signal that arrives once the run is done, during the encoding of its
// result, stops the command before it writes: exit 130, nothing on stdout.
func TestSignalDuringEncoding(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.csv")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	keys := param.NewSet("lbsim test-signal", "")
	keys.Add(model.SeedKey(), model.ReplicationsKey())
	model.MustRegister(&model.Model{Name: "test-signal", Command: "test-signal", Summary: "cancels its context when done",
		Keys: keys, Run: func(context.Context, *param.Values, int, func(float64)) (*model.Outcome, error) {
			cancel() // the signal, after the run
			return &model.Outcome{Figures: []model.Figure{model.Int("n", 1)}, Result: map[string]int{"n": 1},
				Files: []model.File{{Key: "trace", Path: trace, Write: func(w io.Writer) error { _, err := io.WriteString(w, "t\n"); return err }}}}, nil
		}})
	code, stdout, stderr := cli(t, ctx, "test-signal")
	if code != 130 || stdout != "" || !strings.Contains(stderr, "interrupted") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 130, nothing, interrupted", code, stdout, stderr)
	}
	if names, _ := os.ReadDir(filepath.Dir(trace)); len(names) != 0 {
		t.Errorf("the interrupted point left %v (its trace or a temporary file)", names)
	}
}

// Files lbsim does not own are never replaced: slurm and k8s --write refuse
// an existing file, merge refuses a FILE.provenance.json that is not a
// provenance file (it replaces only one a merge wrote), and a csma trace
// refuses an existing path; each with exit 2, one line, the file intact.
func TestFilesNeverReplaced(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, `{"seed": 1, "replications": 1, "base": {"servers": 10, "horizon": 20, "policy": "jsq"},
		"axes": [{"lambda": [0.5]}]}`)
	sweepOut := filepath.Join(dir, "run")
	jsonLine(t, "sweep", spec, "--out", sweepOut, "--quiet")
	mine := filepath.Join(dir, "mine.txt")
	csv := filepath.Join(dir, "m.csv")
	notes := sweep.ProvenancePath(csv)
	for _, c := range []struct {
		args []string
		file string
		want string
	}{
		{[]string{"slurm", spec, "--out", sweepOut, "--write", mine}, mine, `write = "` + mine + `": exists; lbsim does not replace it`},
		{[]string{"k8s", spec, "--image", "x", "--write", mine}, mine, `write = "` + mine + `": exists`},
		{[]string{"merge", sweepOut, "--out", csv}, notes, "is not a provenance file of lbsim merge"},
		{[]string{"csma", "--conflict", "path:4", "--utility", "log", "--windows", "5", "--theta-trace", mine}, mine, "theta_trace = "},
	} {
		if err := os.WriteFile(c.file, []byte("the user's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := cli(t, context.Background(), c.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("lbsim %v: exit %d, stdout %.80q, stderr %q; want 2 and one line with %q", c.args, code, stdout, stderr, c.want)
		}
		if data, _ := os.ReadFile(c.file); string(data) != "the user's\n" {
			t.Errorf("lbsim %v: replaced %s", c.args, c.file)
		}
		if _, err := os.Stat(csv); err == nil {
			t.Errorf("lbsim %v: wrote the CSV", c.args)
		}
		os.Remove(c.file)
	}
	// A provenance a merge wrote is replaced by the next merge.
	jsonLine(t, "merge", sweepOut, "--out", csv)
	jsonLine(t, "merge", sweepOut, "--out", csv, "--summary")
	if !sweep.IsProvenance(notes) {
		t.Error("the second merge did not write its provenance")
	}
}

// merge refuses an output inside the sweep directory (which once replaced a
// point with CSV), also through a symbolic link, and leaves the sweep intact;
// sweep --resume runs a truncated point again and says so.
func TestMergeIntoSweepAndResume(t *testing.T) {
	spec := writeSpec(t, `{"seed": 1, "replications": 2, "base": {"servers": 10, "horizon": 50, "policy": "jsq"},
		"axes": [{"lambda": [0.5, 0.7]}]}`)
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	jsonLine(t, "sweep", spec, "--out", out, "--quiet")
	point := sweep.PointFile(out, 0)
	before, err := os.ReadFile(point)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{point, filepath.Join(out, "m.csv"), filepath.Join(link, "points", "m.csv")} {
		code, stdout, stderr := cli(t, context.Background(), "merge", out, "--out", target)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "is inside the sweep directory") {
			t.Errorf("merge --out %s: exit %d, stdout %q, stderr %q", target, code, stdout, stderr)
		}
	}
	if after, _ := os.ReadFile(point); !bytes.Equal(after, before) {
		t.Error("merge changed a point file")
	}
	csvPath := filepath.Join(dir, "m.csv")
	jsonLine(t, "merge", out, "--out", csvPath)
	want, _ := os.ReadFile(csvPath)

	if err := os.WriteFile(point, before[:len(before)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, context.Background(), "sweep", spec, "--out", out, "--resume", "--quiet")
	if code != 0 || !strings.Contains(stdout, `"recomputed":1`) ||
		!strings.Contains(stderr, "lbsim sweep: point 0 (lambda=0.5): corrupt point file") {
		t.Errorf("resume: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	jsonLine(t, "merge", out, "--out", csvPath)
	if got, _ := os.ReadFile(csvPath); !bytes.Equal(got, want) {
		t.Error("the recomputed point changed the CSV")
	}
}
