package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/sweep"
	"sigs.k8s.io/yaml"
)

const cliSweep = `{"name": "cli", "seed": 3, "replications": 2,
 "base": {"servers": 30, "horizon": 200},
 "axes": [{"policy": ["jsq", "jsqd"]}, {"lambda": [0.5, 0.7, 0.9]}]}`

func writeSpec(t *testing.T, spec string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(p, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// jsonLine runs args, which must succeed, and decodes the one JSON object printed.
func jsonLine(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, stdout, stderr := cli(t, context.Background(), args...)
	if code != 0 {
		t.Fatalf("lbsim %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("stdout %q: %v", stdout, err)
	}
	return m
}

func TestSweepMergeCommands(t *testing.T) {
	spec := writeSpec(t, cliSweep)
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	sum := jsonLine(t, "sweep", spec, "--out", out, "--workers", "2")
	if sum["ran"] != 6.0 || sum["points"] != 6.0 || sum["shard"] != "0/1" {
		t.Errorf("sweep summary %v", sum)
	}
	// Progress: one line per finished point when stderr is not a terminal.
	code, _, stderr := cli(t, context.Background(), "sweep", spec, "--out", filepath.Join(dir, "again"), "--workers", "1")
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != 0 || len(lines) != 7 ||
		!strings.HasPrefix(lines[6], "lbsim sweep 0/1 (all points) [##############################] 100.0% 6/6 points, elapsed") {
		t.Errorf("progress: exit %d\n%s", code, stderr)
	}
	code, _, stderr = cli(t, context.Background(), "sweep", spec, "--out", out)
	if code != exitUsage || !strings.Contains(stderr, "--resume") {
		t.Errorf("rerun without --resume: exit %d, %q", code, stderr)
	}
	if sum := jsonLine(t, "sweep", spec, "--out", out, "--resume", "--quiet"); sum["ran"] != 0.0 || sum["skipped"] != 6.0 {
		t.Errorf("resume summary %v", sum)
	}
	csvPath := filepath.Join(dir, "m.csv")
	m := jsonLine(t, "merge", out, "--out", csvPath)
	if m["rows"] != 12.0 || m["missing"] != 0.0 {
		t.Errorf("merge %v", m)
	}
	tab, err := sweep.LoadCSV(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 12 || tab.Columns[2] != "policy" || tab.Columns[3] != "lambda" {
		t.Errorf("CSV columns %v, %d rows", tab.Columns, tab.Len())
	}
	if _, err := sweep.LoadProvenance(csvPath); err != nil {
		t.Error(err)
	}

	// --list prints the points without running.
	code, stdout, _ := cli(t, context.Background(), "sweep", spec, "--list")
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); code != 0 || len(lines) != 6 ||
		!strings.Contains(lines[5], `"params":{"lambda":0.9,"policy":"jsqd"}`) {
		t.Errorf("--list: exit %d\n%s", code, stdout)
	}

	// Shards from the environment of a Slurm array task and of a Kubernetes indexed Job.
	sharded := filepath.Join(dir, "sharded")
	for i := range 3 {
		t.Setenv("SLURM_ARRAY_TASK_ID", []string{"0", "1", ""}[i])
		t.Setenv("SLURM_ARRAY_TASK_COUNT", "3")
		t.Setenv("SLURM_ARRAY_TASK_MIN", "0")
		args := []string{"sweep", spec, "--out", sharded, "--quiet"}
		if i == 2 {
			t.Setenv("JOB_COMPLETION_INDEX", "2")
			args = append(args, "--shards", "3")
		}
		if s := jsonLine(t, args...); s["shard"] != []string{"0/3", "1/3", "2/3"}[i] || s["ran"] != 2.0 {
			t.Errorf("environment shard %d: %v", i, s)
		}
	}
	t.Setenv("JOB_COMPLETION_INDEX", "")
	csv2 := filepath.Join(dir, "m2.csv")
	jsonLine(t, "merge", sharded, "--out", csv2)
	a, _ := os.ReadFile(csvPath)
	b, _ := os.ReadFile(csv2)
	if !bytes.Equal(a, b) {
		t.Errorf("sharded CSV differs from the local one")
	}

	// A missing point: merge refuses and names it; nothing is written.
	if err := os.Remove(sweep.PointFile(sharded, 4)); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, context.Background(), "merge", sharded, "--out", filepath.Join(dir, "m3.csv"))
	if code != exitUsage || !strings.Contains(stderr, "point 4 (policy=jsqd, lambda=0.7)") {
		t.Errorf("incomplete merge: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "m3.csv")); !os.IsNotExist(err) {
		t.Errorf("incomplete merge wrote its CSV")
	}
}

func TestSweepBadInput(t *testing.T) {
	dir := t.TempDir()
	count := newTally(t)
	for _, tc := range []struct {
		spec string
		args []string
		want string
	}{
		{`{"seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"}, "axes": [{"lamda": [0.5]}]}`,
			nil, `unknown parameter "lamda"`},
		{`{"seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"}, "axes": [{"lambda": []}]}`,
			nil, "empty list"},
		{`{"seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"}, "axes": [{"lambda": [0.5, -1]}]}`,
			nil, "point 1 (lambda=-1): lambda = -1"},
		{cliSweep, []string{"--shard", "3/3"}, `shard = "3/3"`},
		{cliSweep, []string{"--shards", "2"}, "only with JOB_COMPLETION_INDEX"},
		{cliSweep, []string{"--workers", "-1"}, "workers = -1"},
		// A name goes into file names, scripts and manifests: letters, digits, '.', '_', '-' only.
		{`{"name": "a\rkind: Pod", "seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"}, "axes": [{"lambda": [0.5]}]}`,
			nil, `name = "a\rkind: Pod": must be 1 to 100 letters`},
		{`{"name": "a\u2028b", "seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"}, "axes": [{"lambda": [0.5]}]}`,
			nil, "must be 1 to 100 letters"},
		{`{"name": "-x", "seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"}, "axes": [{"lambda": [0.5]}]}`,
			nil, "starting with a letter or digit"},
		{`{"name": "a'b", "seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"}, "axes": [{"lambda": [0.5]}]}`,
			nil, "must be 1 to 100 letters"},
		{`{"seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"}, "axes": [{"lambda": [0.5]}]}`,
			[]string{"--workers", "1", "--workers", "2"}, "--workers given twice"},
		// Found at validation, before any point runs (trickle opened "" at run time, exit 1 after point 0).
		{`{"model": "trickle", "seed": 1, "replications": 1, "base": {"nodes": 10, "graph": ""}, "axes": [{"k": [1, 2]}]}`,
			nil, `point 0 (k=1): graph = "": must name an edge-list file`},
		{`{"model": "trickle", "seed": 1, "replications": 1, "base": {"nodes": 10}, "axes": [{"horizon": [100, 0.5]}]}`,
			nil, "point 1 (horizon=0.5): horizon = 0.5 (warmup = 0.05): the measurement window horizon - warmup = 0.45 is shorter than one interval"},
		{`{"model": "csma", "seed": 1, "replications": 1, "base": {"conflict": "path:4", "utility": "log"}, "axes": [{"utility_weight": [1, 20]}]}`,
			nil, "point 1 (utility_weight=20): utility_weight = 20: the exact optimum theta*"},
		{`{"model": "admission", "seed": 1, "replications": 1, "base": {"servers": 20, "horizon": 50}, "axes": [{"beta": [0.5, 1]}]}`,
			nil, "point 0 (beta=0.5): horizon = 50: unused without simulate"},
		{`{"model": "redundancy", "seed": 1, "replications": 1, "base": {"servers": 100, "pairs": "er", "degree": 1, "horizon": 10}, "axes": [{"lambda": [0.5, 0.6]}]}`,
			nil, `point 0 (lambda=0.5): pairs = "er": server 3 (and 39 others) is in no pair`},
		{`{"model": "admission", "seed": 1, "replications": 1, "base": {"servers": 100, "beta": 0.5}, "axes": [{"revenue": ["linear:a=1,b=1", "linear:a=1,b=1e-300"]}]}`,
			nil, `point 1 (revenue=linear:a=1,b=1e-300): revenue = "linear:a=1,b=1e-300": no finite optimal threshold`},
		// Sizes and bounds checked at validation: the sweep refuses before its first point runs.
		{`{"model": "redundancy", "seed": 1, "replications": 1, "base": {"servers": 16, "lambda": 0.5, "exact": true}, "axes": [{"d": [2, 8]}]}`,
			nil, "point 1 (d=8): servers = 16: redundancy: the exact solution is too large: at least 12871 reachable unions"},
		{`{"model": "admission", "seed": 1, "replications": 1, "base": {"servers": 100, "beta": 0.5}, "axes": [{"revenue": ["linear:a=1,b=1", "linear:a=0,b=0"]}]}`,
			nil, `point 1 (revenue=linear:a=0,b=0): revenue = "linear:a=0,b=0": a = b = 0 makes the revenue rate constant`},
		{`{"model": "csma", "seed": 1, "replications": 1, "base": {"conflict": "path:70"}, "axes": [{"targets": [[` +
			strings.Repeat("0.3, ", 69) + `0.3], [0.5, 1e-20, ` + strings.Repeat("0.3, ", 67) + `0.3]]}]}`,
			nil, "node 1: theta*_1 <= log(1e-20 / 0.2) = -44.44: the optimum lies beyond |theta_i| = 30"},
		{`{"model": "flows", "seed": 1, "replications": 1, "base": {"servers": 1000, "lambda": 0.8, "policy": "bins", "bins": 10000000}, "axes": [{"horizon": [10]}]}`,
			[]string{"--max-memory", "10MB"}, "point 0 (horizon=10): bins = 10000000: needs about"},
	} {
		out := filepath.Join(dir, "never")
		args := append([]string{"sweep", writeSpec(t, tc.spec), "--out", out}, tc.args...)
		count.add(args)
		code, stdout, stderr := cli(t, context.Background(), args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("lbsim %v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", tc.args, code, stdout, stderr, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("lbsim %v: created %s although the input is invalid", tc.args, out)
		}
	}
	// YAML: a key given twice is refused, at the top and inside the base.
	for _, y := range []string{
		"seed: 1\nseed: 2\nreplications: 1\nbase: {servers: 10, policy: jsq}\naxes: [{lambda: [0.5]}]\n",
		"seed: 1\nreplications: 1\nbase: {servers: 10, policy: jsq, servers: 20}\naxes: [{lambda: [0.5]}]\n",
	} {
		p := filepath.Join(t.TempDir(), "dup.yaml")
		if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
		count.add([]string{"sweep"})
		code, stdout, stderr := cli(t, context.Background(), "sweep", p, "--out", filepath.Join(dir, "never"))
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "given twice (give each key once)") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("YAML %q: exit %d, stdout %q, stderr %q; want exit 2 and one line: given twice", y, code, stdout, stderr)
		}
	}
	// YAML 1.1 reads 010 as 8, 0x10 as 16, 1_000 as 1000 and yes as true: refused, naming the key (the
	// sweep ran with them reinterpreted, as --seed 010 did before it was refused).
	for _, c := range []struct{ yaml, want string }{
		{"seed: 0x10\nreplications: 1\nbase: {servers: 10, policy: jsq}\naxes: [{lambda: [0.5]}]\n", `seed: "0x10": YAML reads it as 16`},
		{"seed: 1\nreplications: 1\nbase: {servers: 010, policy: jsq}\naxes: [{lambda: [0.5]}]\n", `base.servers: "010": YAML reads it as 8`},
		{"seed: 1\nreplications: 1\nbase: {servers: 1_000, policy: jsq}\naxes: [{lambda: [0.5]}]\n", `base.servers: "1_000": YAML reads it as 1000`},
		{"seed: 1\nreplications: 0b1\nbase: {servers: 10, policy: jsq}\naxes: [{lambda: [0.5]}]\n", `replications: "0b1": YAML reads it as 1`},
		{"seed: 1\nreplications: 1\nbase: {servers: 10, policy: jsq}\naxes: [{lambda: [0.5, +0.6]}]\n", `axes[0].lambda[1]: "+0.6": YAML reads it as 0.6`},
		{"model: admission\nseed: 1\nreplications: 1\nbase: {servers: 10, simulate: yes}\naxes: [{beta: [0.5]}]\n", `base.simulate: "yes": YAML reads it as true; want true or false`},
	} {
		p := filepath.Join(t.TempDir(), "base.yml")
		if err := os.WriteFile(p, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		count.add([]string{"sweep"})
		code, stdout, stderr := cli(t, context.Background(), "sweep", p, "--out", filepath.Join(dir, "never"))
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("YAML %q: exit %d, stdout %q, stderr %q; want exit 2 and one line: %s", c.yaml, code, stdout, stderr, c.want)
		}
	}
	if code, _, stderr := cli(t, context.Background(), "sweep", writeSpec(t, cliSweep)); code != exitUsage ||
		!strings.Contains(stderr, "out: missing") {
		t.Errorf("no --out: exit %d, %q", code, stderr)
	}
	if code, _, stderr := cli(t, context.Background(), "merge", dir, "--out", filepath.Join(dir, "x.csv")); code != exitUsage ||
		!strings.Contains(stderr, "not a sweep output directory") {
		t.Errorf("merge of a non-sweep directory: exit %d, %q", code, stderr)
	}
}

// The Slurm script is valid bash and, run against a stand-in sbatch that
// records its arguments and script, submits the array and then the merge job
// depending on it.
func TestSlurmScript(t *testing.T) {
	spec := writeSpec(t, cliSweep)
	dir := t.TempDir()
	code, script, stderr := cli(t, context.Background(), "slurm", spec, "--out", filepath.Join(dir, "run"),
		"--shards", "4", "--cpus-per-task", "2", "--time", "00:20:00", "--partition", "short", "--max-running", "2",
		"--merge-out", filepath.Join(dir, "data", "x.csv"), "--summary", "--lbsim", "/opt/lbsim")
	if code != 0 {
		t.Fatalf("lbsim slurm: exit %d, %q", code, stderr)
	}
	for _, want := range []string{
		"#SBATCH --array=0-3%2\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --time=00:20:00\n", "#SBATCH --partition=short\n",
		"exec /opt/lbsim sweep " + spec + " --out " + filepath.Join(dir, "run") + " --resume",
		"--dependency=afterok:\"$array_job\" --kill-on-invalid-dep=yes",
		"exec /opt/lbsim merge " + filepath.Join(dir, "run") + " --out " + filepath.Join(dir, "data", "x.csv") + " --summary\n",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	bin := t.TempDir()
	fake := `#!/bin/bash
n=$(( $(ls "$LOG" 2>/dev/null | wc -l) + 1 ))
{ echo "ARGS: $*"; cat; } > "$LOG/$n"
echo "$((100 + n));cluster"
`
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	logDir := t.TempDir()
	cmd := exec.Command("bash", "-s")
	cmd.Stdin = strings.NewReader(script)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "LOG="+logDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running the script: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "submitted: array job 101 (4 tasks), merge job 102") {
		t.Errorf("script output %q", out)
	}
	first, _ := os.ReadFile(filepath.Join(logDir, "1"))
	second, _ := os.ReadFile(filepath.Join(logDir, "2"))
	if !strings.HasPrefix(string(first), "ARGS: --parsable\n#!/bin/bash\n") || !strings.Contains(string(first), "--array=0-3%2") {
		t.Errorf("first sbatch:\n%s", first)
	}
	if !strings.HasPrefix(string(second), "ARGS: --parsable --dependency=afterok:101 --kill-on-invalid-dep=yes\n") ||
		!strings.Contains(string(second), "merge") {
		t.Errorf("second sbatch:\n%s", second)
	}
	if _, err := os.Stat(filepath.Join(dir, "run", "logs")); err != nil {
		t.Errorf("the script did not create the log directory: %v", err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shards", "7"}, "shards = 7: must be between 1 and the number of points (6)"},
		{[]string{"--time", "1h"}, `time = "1h"`},
		{[]string{"--cpus-per-task", "0"}, "cpus-per-task = 0"},
		{[]string{"--sbatch", "qos=x"}, "must start with -"},
	} {
		args := append([]string{"slurm", spec, "--out", dir}, tc.args...)
		if code, _, stderr := cli(t, context.Background(), args...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("lbsim slurm %v: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
	if code, _, stderr := cli(t, context.Background(), "slurm", spec); code != exitUsage || !strings.Contains(stderr, "out: missing") {
		t.Errorf("slurm without --out: exit %d, %q", code, stderr)
	}
}

// The Kubernetes manifest is a ConfigMap holding the sweep and an indexed Job;
// running the Job's command once per completion index (as Kubernetes would,
// with JOB_COMPLETION_INDEX set) gives the same CSV as a local run.
func TestK8sManifest(t *testing.T) {
	spec := writeSpec(t, cliSweep)
	code, manifest, stderr := cli(t, context.Background(), "k8s", spec, "--image", "registry.example/lbsim:1",
		"--shards", "3", "--cpu", "2", "--pvc", "results", "--namespace", "research")
	if code != 0 {
		t.Fatalf("lbsim k8s: exit %d, %q", code, stderr)
	}
	docs := strings.Split(manifest, "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("%d YAML documents, want 2:\n%s", len(docs), manifest)
	}
	var cm, job map[string]any
	if err := yaml.Unmarshal([]byte(docs[0]), &cm); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(docs[1]), &job); err != nil {
		t.Fatal(err)
	}
	get := func(m any, path ...any) any {
		for _, p := range path {
			switch k := p.(type) {
			case string:
				m = m.(map[string]any)[k]
			case int:
				m = m.([]any)[k]
			}
		}
		return m
	}
	if cm["kind"] != "ConfigMap" || get(cm, "metadata", "name") != "lbsim-cli-spec" || get(cm, "metadata", "namespace") != "research" {
		t.Errorf("ConfigMap %v", cm)
	}
	if job["kind"] != "Job" || job["apiVersion"] != "batch/v1" || get(job, "metadata", "name") != "lbsim-cli" ||
		get(job, "spec", "completionMode") != "Indexed" || get(job, "spec", "completions") != 3.0 ||
		get(job, "spec", "parallelism") != 3.0 || get(job, "spec", "template", "spec", "restartPolicy") != "Never" {
		t.Errorf("Job spec %v", job["spec"])
	}
	ctr := get(job, "spec", "template", "spec", "containers", 0)
	if get(ctr, "image") != "registry.example/lbsim:1" || get(ctr, "resources", "requests", "cpu") != "2" ||
		get(job, "spec", "template", "spec", "volumes", 0, "persistentVolumeClaim", "claimName") != "results" ||
		get(job, "spec", "template", "spec", "volumes", 1, "configMap", "name") != "lbsim-cli-spec" {
		t.Errorf("container or volumes: %v", get(job, "spec", "template", "spec"))
	}

	// Emulate the Job: the sweep from the ConfigMap at /spec, the claim at /data.
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "spec"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "spec", "sweep.json"), []byte(get(cm, "data", "sweep.json").(string)), 0o644); err != nil {
		t.Fatal(err)
	}
	var command []string
	for _, a := range get(ctr, "command").([]any) {
		a := a.(string)
		if strings.HasPrefix(a, "/spec/") || strings.HasPrefix(a, "/data/") {
			a = filepath.Join(root, a)
		}
		command = append(command, a)
	}
	if command[0] != "lbsim" || command[1] != "sweep" {
		t.Fatalf("command %v", command)
	}
	for i := range 3 {
		t.Setenv("JOB_COMPLETION_INDEX", []string{"0", "1", "2"}[i])
		jsonLine(t, append(command[1:], "--quiet")...)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "")
	local := filepath.Join(root, "local")
	jsonLine(t, "sweep", spec, "--out", local, "--quiet")
	jsonLine(t, "merge", local, "--out", filepath.Join(root, "local.csv"))
	jsonLine(t, "merge", filepath.Join(root, "data", "sweeps", "cli"), "--out", filepath.Join(root, "k8s.csv"))
	a, _ := os.ReadFile(filepath.Join(root, "local.csv"))
	b, _ := os.ReadFile(filepath.Join(root, "k8s.csv"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("indexed-Job CSV differs from the local one")
	}

	if code, _, stderr := cli(t, context.Background(), "k8s", spec); code != exitUsage || !strings.Contains(stderr, "image: missing") {
		t.Errorf("k8s without --image: exit %d, %q", code, stderr)
	}
	if code, _, stderr := cli(t, context.Background(), "k8s", spec, "--image", "x", "--name", "Bad_Name"); code != exitUsage ||
		!strings.Contains(stderr, "DNS label") {
		t.Errorf("k8s bad name: exit %d, %q", code, stderr)
	}
}
