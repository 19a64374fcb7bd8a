package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/param"
)

// cli runs the command line in-process.
func cli(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(ctx, args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// runJSON runs args, which must succeed, and decodes the JSON printed.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, stdout, stderr := cli(t, context.Background(), args...)
	if code != 0 {
		t.Fatalf("lbsim %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value:\n%s", stdout)
	}
	if !strings.HasPrefix(stdout, "{\n  \"") || !strings.HasSuffix(stdout, "}\n") {
		t.Errorf("stdout is not indented by 2 spaces and newline-terminated:\n%.200s", stdout)
	}
	return m
}

func TestRunSmall(t *testing.T) {
	m := runJSON(t, "run", "--servers", "10", "--lambda", "0.7", "--policy", "jsqd", "--horizon", "200", "--replications", "3")
	for _, key := range []string{"scenario", "policy", "engine", "events", "wall_seconds", "events_per_second",
		"occupancy", "occupancy_ci95", "mean_tasks_per_server", "mean_tasks_per_server_ci95", "mean_sojourn",
		"mean_sojourn_ci95", "wait_probability", "wait_probability_ci95", "replications", "per_replication"} {
		if _, ok := m[key]; !ok {
			t.Errorf("result has no key %q", key)
		}
	}
	want := map[string]any{
		"servers": 10.0, "lambda": 0.7, "policy": "jsqd", "d": 2.0, "sampling": "without",
		"horizon": 200.0, "warmup": 20.0, "replications": 3.0, "seed": 0.0, "engine": "auto", "discipline": "fifo",
	}
	if got := m["scenario"]; !reflect.DeepEqual(got, want) {
		t.Errorf("scenario = %v, want %v", got, want)
	}
	q := m["occupancy"].([]any)
	if q1 := q[0].(float64); math.Abs(q1-0.7) > 0.1 {
		t.Errorf("q_1 = %v, want about lambda = 0.7", q1)
	}
}

// stripWall removes the fields that depend on the wall clock.
func stripWall(t *testing.T, stdout string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "wall_seconds")
	delete(m, "events_per_second")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunDeterministic(t *testing.T) {
	args := []string{"run", "--servers", "50", "--lambda", "0.9", "--policy", "jsqd", "--engine", "servers",
		"--horizon", "100", "--replications", "4", "--seed", "7"}
	var outs []string
	for _, workers := range []string{"1", "4", "0"} {
		code, stdout, stderr := cli(t, context.Background(), append(args, "--workers", workers)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		outs = append(outs, stripWall(t, stdout))
	}
	for _, o := range outs[1:] {
		if o != outs[0] {
			t.Fatalf("same seed, different results:\n%s\n%s", outs[0], o)
		}
	}
	_, other, _ := cli(t, context.Background(), append(args[:len(args)-1], "8")...)
	if stripWall(t, other) == outs[0] {
		t.Error("different seeds gave the same result")
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFileAndOverride(t *testing.T) {
	file := writeFile(t, "s.json", `{"servers": 20, "lambda": 0.5, "policy": "jsqd", "d": 3, "horizon": 100,
		"rates": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "progress": false, "workers": 2}`)
	// The file alone.
	sc := runJSON(t, "run", file)["scenario"].(map[string]any)
	if sc["servers"] != 20.0 || sc["lambda"] != 0.5 || sc["d"] != 3.0 || sc["horizon"] != 100.0 {
		t.Errorf("scenario from the file = %v", sc)
	}
	// Flags after and before the file override it; other keys stay.
	for _, args := range [][]string{
		{"run", file, "--lambda", "0.6", "--rates", "0.5x10,1.5x10"},
		{"run", "--lambda", "0.6", "--rates", "0.5x10,1.5x10", file},
		{"run", "--lambda=0.6", "--rates=0.5x10,1.5x10", "--", file},
	} {
		sc := runJSON(t, args...)["scenario"].(map[string]any)
		if sc["servers"] != 20.0 || sc["lambda"] != 0.6 || sc["d"] != 3.0 || sc["horizon"] != 100.0 {
			t.Errorf("%v: scenario = %v", args, sc)
		}
		rates := sc["rates"].([]any)
		if len(rates) != 20 || rates[0] != 0.5 || rates[9] != 0.5 || rates[10] != 1.5 || rates[19] != 1.5 {
			t.Errorf("%v: rates = %v", args, rates)
		}
	}
	// An empty list restores the default.
	sc = runJSON(t, "run", file, "--rates", "")["scenario"].(map[string]any)
	if _, ok := sc["rates"]; ok {
		t.Errorf(`--rates "" left rates = %v`, sc["rates"])
	}
	// Standard input.
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"run", "-", "--horizon", "50"},
		strings.NewReader(`{"servers": 4, "lambda": 0.5, "policy": "jsq"}`), &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), `"horizon": 50`) {
		t.Errorf("stdin: exit %d, stderr %q, stdout %.300s", code, errOut.String(), out.String())
	}
}

func TestTrajectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "traj.csv")
	runJSON(t, "run", "--servers", "100", "--lambda", "0.9", "--policy", "jsqd", "--init", "1,0.5",
		"--horizon", "10", "--warmup", "0", "--grid", "0.5", "--replications", "2", "--trajectory", path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	header := strings.Split(lines[0], ",")
	k := (len(header) - 1) / 2
	if header[0] != "time" || len(header) != 2*k+1 || k < 2 {
		t.Fatalf("header %q", lines[0])
	}
	for i := 1; i <= k; i++ {
		if header[i] != fmt.Sprintf("q%d", i) || header[k+i] != fmt.Sprintf("q%d_ci95", i) {
			t.Fatalf("header %q", lines[0])
		}
	}
	if len(lines) != 1+21 {
		t.Fatalf("%d rows, want 21 (times 0, 0.5, ..., 10)", len(lines)-1)
	}
	for r, line := range lines[1:] {
		cells := strings.Split(line, ",")
		if len(cells) != len(header) {
			t.Fatalf("row %d has %d cells, want %d", r, len(cells), len(header))
		}
		if want := fmt.Sprint(0.5 * float64(r)); cells[0] != want {
			t.Errorf("row %d: time %s, want %s", r, cells[0], want)
		}
	}
	if !strings.HasPrefix(lines[1], "0,1,0.5,") {
		t.Errorf("first row %q does not start from the initial occupancy 1, 0.5", lines[1])
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	traj := filepath.Join(dir, "never.csv")
	existing := writeFile(t, "existing.csv", "not lbsim's\n")
	bad := writeFile(t, "bad.json", `{"servers": 10, "lambda": 0.5, "policy": "jsq",}`)
	selfPair := writeFile(t, "selfpair.txt", "0 1\n1 1\n")
	selfLoop := writeFile(t, "selfloop.txt", "0 1\n# a comment\n2 2\n1 2\n")       // a self-loop on line 3
	heavyPair := writeFile(t, "heavy.txt", "0 1 1\n1 2 1\n2 3 1\n3 0 1\n0 2 30\n") // servers 0 and 2 get 30/34 of the work
	unknownKey := writeFile(t, "unknown.json", `{"servers": 10, "lambda": 0.5, "policy": "jsq", "colour": 1}`)
	wrongType := writeFile(t, "type.json", `{"servers": "ten", "lambda": 0.5, "policy": "jsq"}`)
	endless := endlessPipe(t, "1.5\n")
	endlessPairs := endlessPipe(t, "0 1\n")
	farID := writeFile(t, "farid.txt", "0 1\n1 4294967000\n")
	hugeSweep := writeFile(t, "huge.json", `{"seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"},
		"axes": [{"lambda": {"from": 0.1, "to": 0.9, "count": 10000}}, {"horizon": {"from": 10, "to": 20, "count": 1000}}]}`)
	thinCompat := writeFile(t, "thin.txt", "0 0\n1 1\n") // types 0 and 1 have one server each
	okSweep := writeFile(t, "ok.json", `{"seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"},
		"axes": [{"lambda": [0.5, 0.6]}]}`)
	dupKey := writeFile(t, "dup.json", `{"servers": 10, "lambda": 0.5, "policy": "jsq", "servers": 20}`)
	caseKey := writeFile(t, "case.json", `{"servers": 10, "Servers": 20, "lambda": 0.5, "policy": "jsq"}`)
	dupSweep := writeFile(t, "dupsweep.json", `{"seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq", "lambda": 0.5, "lambda": 0.6},
		"axes": [{"horizon": [10]}]}`)
	caseSweep := writeFile(t, "casesweep.json", `{"seed": 1, "Seed": 2, "replications": 1, "base": {"servers": 10, "policy": "jsq"},
		"axes": [{"lambda": [0.5]}]}`)
	// with returns the arguments of a valid jsqd run, then extra; a flag of
	// the valid run that extra gives again is left out (a flag given twice is
	// an error of its own, tested below with with2).
	with := func(extra ...string) []string {
		args := []string{"run"}
		for _, kv := range [][2]string{{"--servers", "10"}, {"--lambda", "0.5"}, {"--policy", "jsqd"}} {
			if !slices.Contains(extra, kv[0]) {
				args = append(args, kv[0], kv[1])
			}
		}
		return append(args, extra...)
	}
	with2 := func(extra ...string) []string {
		return append([]string{"run", "--servers", "10", "--lambda", "0.5", "--policy", "jsqd"}, extra...)
	}
	cases := []struct {
		args []string
		want string // in the message
		or   string // an alternative message (known lbsim wording issues)
	}{
		{[]string{"run", "--servers", "0", "--lambda", "0.5", "--policy", "jsq"}, "servers = 0: must be at least 1", ""},
		{[]string{"run", "--servers", "-3", "--lambda", "0.5", "--policy", "jsq"}, "servers = -3", ""},
		{[]string{"run", "--lambda", "0.5", "--policy", "jsq"}, "servers: missing", ""},
		{[]string{"run", "--servers", "10", "--policy", "jsq"}, "lambda: missing", ""},
		{[]string{"run", "--servers", "10", "--lambda", "0.5"}, "policy: missing", ""},
		{with("--lambda", "0"), "lambda = 0: must be", ""},
		{with("--lambda", "-1"), "lambda = -1: must be", ""},
		{with("--lambda", "1.5"), "lambda = 1.5: the system is unstable", ""},
		{with("--lambda", "1"), "lambda = 1: ", ""},
		{with("--lambda", "NaN"), "lambda = NaN", ""},
		{with("--lambda", "Inf"), "lambda = +Inf", ""},
		{with("--d", "0"), "d = 0: must be between 1 and servers", ""},
		{with("--d", "11"), "d = 11: must be between 1 and servers (10)", ""},
		{with("--sampling", "maybe"), "sampling = \"maybe\"", ""},
		{with("--rates", "1x9,-1"), "rates[9] = -1: must be a finite rate > 0", ""},
		{with("--rates", "1x9"), "got 9 values, want one per server (10)", ""},
		{with("--rates", "1x9,NaN"), "rates[9] = NaN", ""},
		{with("--rates", "1,2,x"), "-rates: item \"x\"", ""},
		{with("--origin-weights", "0x10"), "all zero", ""},
		// Values whose cost was not estimated: a remap rate whose product with the
		// bins overflows (was a panic), a first Trickle interval below the clock's
		// resolution (was an endless loop).
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "bins", "--bins", "10", "--bin-remap-rate", "1e308", "--max-events", "0"}, "bin_remap_rate = 1e+308: the remap rate of all 10 bins together is not a finite number", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "bins", "--bins", "10", "--bin-remap-rate", "1e12"}, "events", ""},
		{[]string{"trickle", "--nodes", "10", "--imin", "5e-324"}, "imin = 5e-324: must be in [tau·2^-40, tau]", ""},
		// A conflict file with one id near 2^32 (allocated 34 GB before the node-count check).
		{[]string{"csma", "--conflict", farID}, "vertex 4294967000 out of range [0, 1048576)", ""},
		// Integers in decimal only; a flag given once.
		{with("--seed", "0x10"), `invalid value "0x10" for flag -seed: want a decimal integer`, ""},
		{with("--seed", "0b1"), "want a decimal integer", ""},
		{with("--seed", "1_000"), "want a decimal integer", ""},
		{with("--replications", "0o7"), "want a decimal integer", ""},
		{with("--d", "2", "--d", "3"), "--d given twice (give each flag once)", ""},
		{with2("--lambda", "0.6"), "--lambda given twice", ""},
		{with("--max-events", "1e9", "--max-events", "1e10"), "--max-events given twice", ""},
		{with("--horizon", "10", "--warmup", "10"), "warmup = 10: must be below the horizon (10)", ""},
		// lbsim derives the default warmup -0.5 first and reports it (reported to the lead).
		{with("--horizon", "-5"), "horizon = -5", "warmup = -0.5"},
		{with("--horizon", "-5", "--warmup", "1"), "horizon = -5", ""},
		{with("--horizon", "0"), "horizon = 0", ""},
		{with("--warmup", "-1"), "warmup = -1", ""},
		{with("--replications", "0"), "replications = 0", ""},
		{with("--replications", "-2"), "replications = -2", ""},
		{with("--engine", "gpu"), "engine = \"gpu\": must be one of auto, servers, occupancy, general", ""},
		{[]string{"run", "--servers", "10", "--lambda", "0.5", "--policy", "jsq", "--engine", "uniformized"},
			"engine = uniformized: policy jsq is not one of jsqd (with or without replacement) and random", ""},
		{with("--engine", "uniformized", "--rates", "1x5,2x5"), "engine = uniformized: service rates are heterogeneous", ""},
		{with("--engine", "uniformized", "--service", "det"), "engine = uniformized: service is det", ""},
		{with("--init", "0.5,0.7"), "init[1]", ""},
		{with("--init-lengths", "1,2"), "init_lengths = [1,2]: got 2 values", ""},
		{with("--grid", "-1"), "grid = -1", ""},
		{with("--law-levels", "2"), "law_levels = [2]: needs grid > 0", ""},
		{with("--grid", "1", "--law-levels", "2,1"), "law_levels[1] = 1: the levels must increase", ""},
		{with("--grid", "1", "--law-levels", "0"), "law_levels[0] = 0: must be between 1 and 64", ""},
		{with("--grid", "1", "--law-levels", "1,2,3,4,5,6,7,8,9"), "law_levels = [1,2,3,4,5,6,7,8,9]: gives 9 levels; must give 1 to 8", ""},
		{with("--grid", "3", "--horizon", "10", "--warmup", "9.5", "--law-levels", "2"), "law_levels = [2]: no grid time after the warmup", ""},
		{with("--grid", "1", "--law-levels", "x"), `invalid value "x" for flag -law-levels`, ""},
		{with("--workers", "-1"), "workers = -1", ""},
		{with("--seed", "-1"), "-seed", ""},
		{with("--trajectory", traj), "trajectory = ", ""},
		{with("--trajectory", traj, "--grid", "1", "--lambda", "2"), "lambda = 2", ""},
		{[]string{"run", "--servers", "10", "--lambda", "0.5", "--policy", "fastest"}, "policy = \"fastest\": unknown; must be one of " + strings.Join(lbsim.PolicyNames(), ", "), ""},
		{with("--policy", "jsq", "--d", "2"), "d = 2: policy jsq takes no d", ""},
		{[]string{"redundancy", "--servers", "4", "--lambda", "0.6", "--pairs", "ring", "--degree", "3"}, "degree = 3: must be an even integer", ""},
		{[]string{"redundancy", "--servers", "4", "--lambda", "1"}, "lambda = 1: unstable", ""},
		// Found by computation at validation (they stopped the run with exit 1, and a sweep midway).
		{[]string{"redundancy", "--servers", "4", "--lambda", "0.9", "--pairs", heavyPair}, "lambda = 0.9: unstable: the tasks whose sets lie within the servers [0 2] arrive at 1.58824 times", ""},
		{[]string{"redundancy", "--servers", "4", "--lambda", "0.9", "--pairs", heavyPair, "--exact"}, "lambda = 0.9: unstable", ""},
		{[]string{"redundancy", "--servers", "100", "--lambda", "0.5", "--pairs", "er", "--degree", "1"}, `pairs = "er": server 2 (and 44 others) is in no pair and would receive no work`, ""},
		{[]string{"redundancy", "--servers", "30", "--lambda", "0.5", "--exact"}, "servers = 30: exact takes at most 20", ""},
		{[]string{"redundancy", "--servers", "4", "--lambda", "0.5", "--d", "3", "--pairs", "ring", "--degree", "2"}, `pairs = "ring": gives pairs; d must be 2`, ""},
		{[]string{"redundancy", "--servers", "4", "--lambda", "0.5", "--policy", "jsq"}, "flag provided but not defined: -policy", ""},
		{[]string{"run", "--servers", "4", "--lambda", "0.5", "--policy", "pair-jsq", "--pairs", "nowhere"}, `pairs = "nowhere": must be uniform, a topology`, ""},
		{[]string{"run", "--servers", "4", "--lambda", "0.5", "--policy", "pair-jsq", "--pairs", selfPair}, "a pair needs two distinct servers", ""},
		{[]string{"redundancy", "--servers", "4", "--lambda", "0.5", "--pairs", selfPair}, "a pair needs two distinct servers", ""},
		// A self-loop in a graph file is refused, naming the file, line and vertex (it was dropped without a word).
		{[]string{"run", "--servers", "3", "--lambda", "0.5", "--policy", "neighbour-jsq", "--graph", selfLoop},
			`graph = "` + selfLoop + `": graph: edge list line 3: edge (2, 2): a self-loop at vertex 2`, ""},
		{[]string{"exact", "--servers", "3", "--lambda", "0.5", "--policy", "neighbour-jsqd", "--graph", selfLoop},
			`graph = "` + selfLoop + `": graph: edge list line 3: edge (2, 2): a self-loop at vertex 2`, ""},
		{[]string{"trickle", "--nodes", "3", "--graph", selfLoop}, `graph = "` + selfLoop + `": graph: edge list line 3: edge (2, 2): a self-loop at vertex 2`, ""},
		{[]string{"csma", "--conflict", selfLoop, "--utility", "log"}, `conflict = "` + selfLoop + `": graph: edge list line 3: edge (2, 2): a self-loop at vertex 2`, ""},
		{with("--policy", "jbt", "--threshold", "0"), "threshold = 0: must be between 1 and 16777216", ""},
		{[]string{"admission", "--servers", "0", "--beta", "0.5"}, "servers = 0: must be at least 1", ""},
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--revenue", "quad:a=1"}, `family "quad": unknown`, ""},
		{[]string{"admission", "--servers", "100", "--beta", "100"}, "beta = 100: must be a finite number in [-30, 30]", ""},
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--revenue", "linear:a=-1,b=1"}, "a = -1: must be a finite number >= 0", ""},
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--thresholds", "5:x"}, `thresholds = "5:x"`, ""},
		{[]string{"admission", "/dev/zero"}, "larger than 64 MiB", ""},
		// Solved at validation: no finite optimum within the search, figures that overflow (exit 1 at run time, or at encoding).
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--revenue", "linear:a=1,b=1e-300"},
			`revenue = "linear:a=1,b=1e-300": no finite optimal threshold: the revenue function does not drop below the revenue rate (searched thresholds up to 1010000)`, ""},
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--revenue", "linear:a=1e308,b=1e308"},
			`revenue = "linear:a=1e308,b=1e308": the figure revenue is -Inf, not a finite number`, ""},
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--revenue", "exponential:a=1e300,b=1"},
			`revenue = "exponential:a=1e300,b=1": the figure revenue_limit is NaN, not a finite number`, ""},
		// Keys that the chosen variant does not use, given explicitly (their defaults pass: TestUnusedKeyDefaults).
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--horizon", "10"}, "horizon = 10: unused without simulate: the point is solved exactly", ""},
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--seed", "3"}, "seed = 3: unused without simulate", ""},
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--replications", "4"}, "replications = 4: unused without simulate", ""},
		{[]string{"run", "--servers", "16", "--lambda", "0.5", "--policy", "neighbour-jsq", "--topology", "torus", "--graph-seed", "3"},
			`graph_seed = 3: unused: topology "torus" is not random; only a random topology reads graph_seed`, ""},
		{[]string{"exact", "--servers", "4", "--lambda", "0.5", "--policy", "neighbour-jsq", "--topology", "ring", "--degree", "2", "--graph-seed", "0"},
			`graph_seed = 0: unused: topology "ring" is not random`, ""},
		{[]string{"trickle", "--nodes", "16", "--topology", "grid", "--graph-seed", "3"}, `graph_seed = 3: unused: topology "grid" is not random`, ""},
		{[]string{"trickle", "--nodes", "16", "--graph-seed", "3"}, "graph_seed = 3: unused: no topology is given", ""},
		{[]string{"redundancy", "--servers", "8", "--lambda", "0.5", "--pairs", "ring", "--degree", "2", "--graph-seed", "3"}, `graph_seed = 3: unused: pairs "ring" is not random`, ""},
		{[]string{"csma", "--conflict", "path:4", "--targets", "0.5,0.3,0.3"}, "targets = [0.5,0.3,0.3]: got 3 values, want one per node of the conflict graph (4)", ""},
		{[]string{"csma", "--conflict", "path:4", "--targets", "0.5,0.6,0.3,0.5"}, "targets = [0.5,0.6,0.3,0.5]: targets[0] + targets[1] = 1.1", ""},
		{[]string{"csma", "--conflict", "ring:5", "--targets", "0.45x5"}, "outside the capacity region", ""},
		{[]string{"csma", "--conflict", "path:4", "--targets", "0.5,0.3,0.3,0.5", "--step", "-0.5/m"}, "step = \"-0.5/m\": A = -0.5: the step must be a finite number > 0", ""},
		{[]string{"csma", "--conflict", "path:4", "--targets", "0.5,0.3,0.3,0.5", "--step", "1/m^2"}, "the power of m must be a number in (0, 1]", ""},
		{[]string{"csma", "--conflict", "path:4"}, "targets: missing; give --targets LIST (one per node, 4 here) or --utility log", ""},
		// An exact optimum beyond |theta| = 30 (the "exact" theta stopped near +-27, where the activities met the tolerance): refused.
		{[]string{"csma", "--conflict", "path:2", "--targets", "0.5,1e-20"}, "targets = [0.5,1e-20]: the exact optimum theta* (over the 3 independent sets): the optimum lies beyond |theta_i| = 30", ""},
		{[]string{"csma", "--conflict", "path:2", "--targets", "0.49999999999999,0.49999999999999"}, "the optimum lies beyond |theta_i| = 30", ""},
		{[]string{"csma", "--conflict", "path:4", "--utility", "log", "--utility-weight", "20"}, "utility_weight = 20: the exact optimum theta* (over the 8 independent sets): the optimum lies beyond", ""},
		{[]string{"csma", "--conflict", "grid:10x10", "--utility", "log", "--utility-weight", "30"}, "utility_weight = 30: must be in (0, 30)", ""},
		{[]string{"csma", "--conflict", "hexagon:6", "--utility", "log"}, "conflict = \"hexagon:6\": no such file, and not path:N", ""},
		{[]string{"csma", "--conflict", "path:4", "--utility", "log", "--window-length", "-1"}, "window_length = -1: must be a finite time > 0", ""},
		{[]string{"csma", "--conflict", "path:4", "--utility", "log", "--theta-trace", traj, "--windows", "0"}, "windows = 0", ""},
		{[]string{"csma", "--conflict", "path:4", "--utility", "log", "--theta-trace", existing}, "theta_trace = ", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "1", "--policy", "static"}, "lambda = 1: must be in (0, 1)", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5"}, "policy: missing", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "rr"}, `policy = "rr": must be one of static, jsq, jsqd, sticky, bins`, ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "static", "--d", "2"}, "d = 2: policy static takes no d", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "jsqd", "--d", "11"}, "d = 11: must be between 1 and servers (10)", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "sticky", "--threshold", "0"}, "threshold = 0: must be between 1 and 1073741824", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "bins", "--bins", "0"}, "bins = 0: must be between 1 and 16777216", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "bins", "--bin-remap-rate", "-1"}, "bin_remap_rate = -1: must be a finite rate >= 0", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "sticky", "--bin-remap-rate", "1"}, "bin_remap_rate = 1: policy sticky takes no bin_remap_rate", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "static", "--packets-per-flow", "0.5"}, "packets_per_flow = 0.5: must be a finite number >= 1", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "static", "--flow-size", "fixed", "--packets-per-flow", "2.5"}, "packets_per_flow = 2.5: must be an integer", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "static", "--packet-rate", "0"}, "packet_rate = 0: must be a finite rate > 0", ""},
		{[]string{"flows", "--servers", "100000", "--lambda", "0.5", "--policy", "static", "--packets-per-flow", "1e9", "--packet-rate", "1e-6"}, "packet_rate = 1e-06: about 5e+10 flows would be in progress at once (at most 16777216", ""},
		{[]string{"flows", "--servers", "100000", "--lambda", "0.9", "--policy", "static", "--horizon", "1000"}, "horizon = 1000: about 8.5e+07 packet delays per replication would be recorded (at most 33554432", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "static", "--quantiles", "0.5,1"}, "quantiles[1] = 1: must be in (0, 1)", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "static", "--flow-size", "pareto"}, `flow_size = "pareto": must be geometric, fixed or pmf:K=W,K=W,...`, ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "static", "--flow-size", "pmf:0=1"}, `flow_size = "pmf:0=1": pmf: K = 0: must be a packet count in [1, 2^30]`, ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "static", "--flow-size", "pmf:1=1,9=1", "--packets-per-flow", "3"}, "packets_per_flow = 3: the pmf flow-size law has mean 5", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "static", "--service", "det:mean=2"}, `service = "det:mean=2": mean 2: must be 1`, ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "static", "--service", "gamma"}, `service = "gamma": unknown distribution`, ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "jsq", "--rates", "1,1,0,1"}, "rates[2] = 0: must be a finite rate > 0", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "jsq", "--rates", "1,-2,1,1"}, "rates[1] = -2: must be a finite rate > 0", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "jsq", "--rates", "1x3,NaN"}, "rates[3] = NaN: must be a finite rate > 0", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "jsq", "--rates", "1x3,Inf"}, "rates[3] = +Inf: must be a finite rate > 0", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "jsq", "--rates", "1x3"}, "rates = [1,1,1]: got 3 values, want one per server (4)", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "jsq", "--rates", "1x5"}, "got 5 values, want one per server (4)", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "jsq", "--rates", "1,2,x"}, "-rates: item \"x\"", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "1", "--policy", "jsq", "--rates", "0.5x2,1.5x2"},
			"lambda = 1: unstable: packets arrive at lambda*N = 4, at least the total service rate 4 (the sum of rates); lambda must be below 1", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "1.5", "--policy", "sticky", "--rates", "1x2,1.5x2"}, "lambda = 1.5: unstable: packets arrive at lambda*N = 6", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "static", "--rates", "1,0.5,1.5,1"},
			"lambda = 0.5: unstable under static hashing: every server receives packets at rate lambda, and server 1 serves at rates[1] = 0.5 <= lambda; lambda must be below the smallest rate, 0.5", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "-1", "--policy", "jsq", "--rates", "1x4"}, "lambda = -1: must be a finite rate > 0", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "NaN", "--policy", "jsq", "--rates", "1x4"}, "lambda = NaN: must be a finite rate > 0", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "static", "--rates", "0.5x2,1.5x2", "--service", "det"},
			"lambda = 0.5: unstable under static hashing", ""},
		// lambda_profile: malformed, out of order, past the horizon, unstable at a step (also against rates and static hashing).
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "jsq", "--lambda-profile", "100"}, `lambda_profile = "100": step 1 "100": want TIME:LAMBDA (two numbers)`, ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "jsq", "--lambda-profile", "100:0.6,x:0.7"}, `step 2 "x:0.7": want TIME:LAMBDA`, ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "jsq", "--lambda-profile", "-1:0.6"}, "step 1: time -1: must be a finite time > 0", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "jsq", "--lambda-profile", "200:0.6,100:0.7"}, "step 2: time 100: must be after the previous step's (200)", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "jsq", "--lambda-profile", "100:NaN"}, "step 1: lambda NaN: must be a finite rate > 0", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "jsq", "--lambda-profile", "2000:0.6"}, "lambda_profile: step 1: time 2000: must be in (0, horizon = 1000)", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "sticky", "--lambda-profile", "100:0.9,200:1"},
			"lambda_profile: step 2 (t = 200): lambda = 1: must be in (0, 1) (unit-rate servers; the system is unstable at lambda >= 1)", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "jsq", "--rates", "0.5x2,1.5x2", "--lambda-profile", "100:1.2"},
			"lambda_profile: step 1 (t = 100): lambda = 1.2: unstable: packets arrive at lambda*N = 4.8", ""},
		{[]string{"flows", "--servers", "4", "--lambda", "0.4", "--policy", "static", "--rates", "0.5x2,1.5x2", "--lambda-profile", "100:0.5"},
			"lambda_profile: step 1 (t = 100): lambda = 0.5: unstable under static hashing", ""},
		{[]string{"flows", "--servers", "100000", "--lambda", "0.1", "--policy", "static", "--horizon", "1000", "--lambda-profile", "500:0.9"},
			"horizon = 1000: about 8.5e+07 packet delays per replication would be recorded", ""},
		// Resource limits: memory and work estimated before anything is allocated or run.
		{with("--replications", "1e9"), "replications = 1000000000: needs about 1.02 TB of memory, above the limit", ""},
		{with("--servers", "1e9", "--engine", "servers", "--max-memory", "8GB"), "servers = 1000000000: needs about", ""},
		{with("--servers", "1e7", "--engine", "general", "--init-lengths", "20x10000000", "--workers", "1", "--max-memory", "1GB"),
			"init_lengths (10000000 servers): needs about 7.52 GB of memory, above the limit of 1 GB (--max-memory)", ""},
		{with("--horizon", "1e15"), "horizon = 1e+15 (servers = 10, replications = 1): expects about 1e+16 events, about 15.9 years", ""},
		{with("--horizon", "1e6", "--max-events", "1e6"), "above the limit of 1e+06 events (--max-events)", ""},
		{with("--max-memory", "lots"), `max_memory = "lots": must be a size > 0`, ""},
		{with("--max-events", "-1"), `max_events = "-1": must be a number of events >= 0`, ""},
		{with("--grid", "1e-6", "--horizon", "10", "--replications", "1000", "--max-memory", "8GB"), "grid = 1e-06 (horizon = 10, replications = 1000): needs about", ""},
		{[]string{"meanfield", "--policy", "jsqd", "--lambda", "0.9", "--levels", "100000", "--until", "1", "--max-memory", "8GB"},
			"levels = 100000: needs about 160 GB of memory", ""},
		{[]string{"meanfield", "--policy", "jsqd", "--lambda", "0.9", "--until", "1e300"}, "until = 1e+300: meanfield: Integrate: MaxSteps", ""},
		{[]string{"meanfield", "--policy", "jsq", "--lambda", "0.9", "--until", "1", "--beta", "-Inf"}, "beta = -Inf: must be in [0.5, 20]", ""},
		{[]string{"meanfield", "--policy", "jsq", "--lambda", "0.9", "--until", "1", "--beta", "1", "--diffusion-levels", "1e9"}, "diffusion_levels", ""},
		{[]string{"meanfield", "--policy", "jsqd", "--lambda", "0.9", "--until", "1", "--cavity", "gamma"}, `cavity = "gamma": unknown distribution`, ""},
		{[]string{"meanfield", "--policy", "jsqd", "--lambda", "0.9", "--until", "1", "--cavity", "det:mean=2"}, `cavity = "det:mean=2": the load lambda*E[S] = 1.8 must be below 1`, ""},
		{[]string{"meanfield", "--policy", "jsqd", "--lambda", "0.9", "--until", "1", "--cavity", "pareto:alpha=1"}, `cavity = "pareto:alpha=1": `, ""},
		{[]string{"meanfield", "--policy", "jsq", "--lambda", "0.9", "--until", "1", "--cavity", "det"}, `cavity = "det": policy jsq takes no cavity`, ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.9", "--policy", "jsq", "--cap", "40000", "--max-states", "2147483647", "--max-memory", "8GB"},
			"cap = 40000 (servers = 2): needs about 264 GB of memory", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.9", "--policy", "jsq", "--max-states", "2147483647", "--max-memory", "8GB"},
			"max_states = 2147483647: needs about 354 GB of memory", ""},
		{[]string{"exact", "--servers", "8", "--lambda", "0.9", "--policy", "jsq", "--cap", "14"}, "cap = 14: the chain has at least 2.56e+09 states", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "jsq", "--tol", "0"}, "tol = 0: must be in [1e-14, 0.1]", ""},
		{[]string{"redundancy", "--servers", "1000", "--lambda", "0.5", "--horizon", "1e12"}, "horizon = 1e+12: expects about 2e+15 events", ""},
		{[]string{"redundancy", "--servers", "20", "--lambda", "0.5", "--exact"}, "servers = 20: redundancy: the exact solution is too large", ""},
		{[]string{"redundancy", "--servers", "1e9", "--lambda", "0.5", "--horizon", "0.001", "--max-memory", "8GB"}, "servers = 1000000000: needs about", ""},
		{[]string{"redundancy", "--servers", "1e5", "--lambda", "0.5", "--d", "1e5", "--horizon", "0.01", "--max-memory", "8GB"}, "d = 100000: needs about", ""},
		{[]string{"sweep", hugeSweep, "--list", "--max-memory", "8GB"}, "axes (10000000 points): needs about 20.5 GB", ""},
		// The other models' estimates (Model.Memory, Model.Cost), naming the key that drives them; each
		// input ran without a limit before (a revenue curve of 1.6e7 thresholds took 6.5 GB).
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--thresholds", "0:1000000", "--max-memory", "100MB"},
			`thresholds = "0:1000000": needs about 480 MB of memory, above the limit of 100 MB`, ""},
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--thresholds", "0:16000000", "--max-events", "1e6"},
			`thresholds = "0:16000000": expects about 1.6e+07 events`, ""},
		{[]string{"admission", "--servers", "1e15", "--beta", "0.5", "--max-events", "1e6"}, "servers = 1000000000000000: expects about 1.3e+09 events", ""},
		{[]string{"admission", "--servers", "1e6", "--beta", "0.5", "--simulate", "--horizon", "1", "--max-memory", "1MB"}, "servers = 1000000: needs about 24 MB", ""},
		{[]string{"trickle", "--nodes", "1e6", "--max-memory", "1MB"}, "nodes = 1000000: needs about 128 MB", ""},
		{[]string{"trickle", "--nodes", "1e6", "--topology", "geometric", "--radius", "0.006", "--max-memory", "100MB"}, "radius = 0.006: needs about 1.03 GB", ""},
		{[]string{"trickle", "--nodes", "10000", "--topology", "geometric", "--radius", "0.1", "--max-events", "1e6"}, "radius = 0.1: expects about 3.16e+09 events", ""},
		{[]string{"trickle", "--nodes", "10", "--horizon", "2", "--imin", "1e-12", "--max-events", "100"}, "imin = 1e-12: expects about 838 events", ""},
		{[]string{"csma", "--conflict", "path:100000", "--targets", "0.3x100000", "--max-memory", "10MB"}, `conflict = "path:100000": needs about 380 MB`, ""},
		{[]string{"csma", "--conflict", "path:4", "--targets", "0.5,0.3,0.3,0.5", "--max-events", "1000"}, "windows = 1000: expects about 8e+05 events", ""},
		{[]string{"csma", "--conflict", "path:1000", "--targets", "0.3x1000", "--theta-trace", traj, "--max-memory", "10MB"},
			`theta_trace = "` + traj + `": needs about 67.9 MB`, ""},
		{[]string{"flows", "--servers", "1e6", "--lambda", "0.8", "--policy", "jsq", "--horizon", "2", "--max-memory", "10MB"}, "servers = 1000000: needs about 140 MB", ""},
		{[]string{"flows", "--servers", "1000", "--lambda", "0.8", "--policy", "bins", "--bins", "1e7", "--max-memory", "10MB"}, "bins = 10000000: needs about 86.2 MB", ""},
		{[]string{"flows", "--servers", "1e5", "--lambda", "0.8", "--policy", "sticky", "--packets-per-flow", "1000", "--packet-rate", "0.01", "--horizon", "5", "--max-memory", "10MB"},
			"packet_rate = 0.01: needs about 196 MB", ""},
		{[]string{"flows", "--servers", "10", "--lambda", "0.5", "--policy", "bins", "--bins", "1000", "--bin-remap-rate", "1000", "--max-events", "1e6"},
			"bin_remap_rate = 1000: expects about 1e+09 events", ""},
		// Redundancy's estimate was 6 times below the measured peak (88 MB for 517 MB).
		{[]string{"redundancy", "--servers", "1e6", "--lambda", "0.5", "--max-memory", "600MB"}, "servers = 1000000: needs about 752 MB", ""},
		{[]string{"redundancy", "--servers", "1e5", "--lambda", "0.5", "--replications", "100", "--max-memory", "1GB"}, "replications = 100: needs about 1.35 GB", ""},
		// The exact solution's size is checked before its unions are enumerated, at validation (d = 10 of 20
		// servers enumerated for minutes, ignoring SIGINT, before its check).
		{[]string{"redundancy", "--servers", "20", "--lambda", "0.5", "--exact", "--d", "10"},
			"servers = 20: redundancy: the exact solution is too large: at least 184757 reachable unions x 184756 sets", ""},
		// A constant revenue rate: every threshold optimal, bounds on eta* that contradicted its limit.
		{[]string{"admission", "--servers", "100", "--beta", "0.5", "--revenue", "linear:a=0,b=0"}, `revenue = "linear:a=0,b=0": a = b = 0 makes the revenue rate constant`, ""},
		// csma targets whose optimum lies beyond |theta| = 30 on a graph too large to solve exactly: refused at
		// validation by bounds on theta* (the run stopped with "theta diverged").
		{[]string{"csma", "--conflict", "path:1000", "--targets", "0.5,1e-20,0.3x998"},
			"node 1: theta*_1 <= log(1e-20 / 0.2) = -44.44: the optimum lies beyond |theta_i| = 30", ""},
		{[]string{"sweep", "/dev/zero", "--out", filepath.Join(dir, "sw")}, `sweep file: "/dev/zero": larger than 64 MiB`, ""},
		{[]string{"run", "/dev/urandom"}, `scenario file "/dev/urandom": larger than 64 MiB`, ""},
		{with("--service", "empirical:file="+endless), "empirical: reading: larger than 64 MiB", ""},
		// An endless edge list of one short pair: refused at edgelist.MaxPairs pairs (it was read to 256 MiB,
		// 6.7e7 pairs stored, before the size limit).
		{[]string{"csma", "--conflict", endlessPairs, "--utility", "log"}, "edge list line 16777217: more than 16777216 pairs", ""},
		{[]string{"trickle", "--nodes", "4", "--graph", endlessPairs}, "edge list line 16777217: more than 16777216 pairs", ""},
		{[]string{"trickle", "--nodes", "4", "--graph", "/dev/zero"}, `graph = "/dev/zero": graph: edge list line 1: bufio.Scanner: token too long`, ""},
		// Silent wrong answers refused: duplicate keys, case variants, an empty clique, zero types.
		{[]string{"run", dupKey}, `servers: duplicate key "servers"`, ""},
		{[]string{"run", caseKey}, `Servers: keys "servers" and "Servers" differ only in case`, ""},
		{[]string{"sweep", dupSweep, "--list"}, `base.lambda: duplicate key "lambda"`, ""},
		{[]string{"sweep", caseSweep, "--list"}, `Seed: keys "seed" and "Seed" differ only in case`, ""},
		{[]string{"run", "--servers", "11", "--lambda", "0.5", "--policy", "neighbour-jsq", "--topology", "split", "--split", "0.01"},
			"split = 0.01: the clique of round(split*servers) = round(0.11) = 0 servers would be empty", ""},
		{[]string{"run", "--servers", "1e6", "--lambda", "0.5", "--policy", "neighbour-jsq", "--topology", "geometric", "--radius", "0.7"},
			"radius = 0.7: the geometric graph on 1000000 servers would have about 1e+12 directed entries", ""},
		{[]string{"run", "--servers", "1e5", "--lambda", "0.5", "--policy", "nbrw-jsqd", "--topology", "er", "--p", "0.5"},
			"p = 0.5: the er graph on 100000 servers would have about 5e+09 directed entries", ""},
		{[]string{"run", "--servers", "2e5", "--lambda", "0.5", "--policy", "neighbour-jsqd", "--d", "2", "--topology", "er-implicit", "--degree", "10"},
			"servers = 200000: this policy needs the neighbour lists of er-implicit, made by testing all 2e+10 pairs", ""},
		{[]string{"run", "--servers", "10", "--lambda", "0.5", "--policy", "neighbour-jsq", "--topology", "er-implicit", "--degree", "20"},
			"degree = 20: the mean degree of er-implicit must be > 0 and at most servers-1 (9)", ""},
		{[]string{"run", "--servers", "10", "--lambda", "0.5", "--policy", "compat-jsqd", "--compat", "random", "--types", "0"},
			"types = 0: must be between 1", ""},
		// Values that go into a Slurm script or a Kubernetes manifest (TestSlurmInjection, TestK8sInjection).
		{[]string{"slurm", okSweep, "--out", dir, "--partition", "short\ntouch x"}, `partition = "short\ntouch x": must not contain control characters`, ""},
		{[]string{"slurm", okSweep, "--out", dir, "--partition", "a;b"}, `partition = "a;b": must be a Slurm partition name`, ""},
		{[]string{"k8s", okSweep, "--image", "x", "--lbsim", "lbsim\n---\nkind: Pod"}, `lbsim = "lbsim\n---\nkind: Pod": must not contain control characters`, ""},
		// Errors that a run finds in its scenario are invalid input too; paths are quoted, messages one line.
		{[]string{"run", "--servers", "2", "--lambda", "0.5", "--policy", "compat-jsqd", "--compat-graph", thinCompat, "--types", "2"},
			"compat graph: type 0 has 1 compatible servers, fewer than 2", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "compat-jsqd", "--compat-graph", thinCompat, "--types", "2"},
			"compat graph: type 0 has 1 compatible servers, fewer than 2", ""},
		{with("--service", "empirical:file="+filepath.Join(dir, "no\nsuch")), `open "` + dir + `/no\nsuch": no such file`, ""},
		{[]string{"run", "--servers", "2", "--lambda", "0.5", "--policy", "neighbour-jsq", "--graph", filepath.Join(dir, "a\nb")},
			`graph = "` + dir + `/a\nb": no such file or directory`, ""},
		{[]string{"sweep", filepath.Join(dir, "a\nb.json"), "--out", dir}, `sweep file: "` + dir + `/a\nb.json": open: no such file`, ""},
		{[]string{"merge", filepath.Join(dir, "a\nb"), "--out", filepath.Join(dir, "m.csv")}, `"` + dir + `/a\nb": not a sweep output directory`, ""},
		{[]string{"trickle", "--nodes", "100", "--k", "0"}, "k = 0: must be at least 1", ""},
		{[]string{"trickle", "--nodes", "100", "--eta", "1"}, "eta = 1: must be in [0, 1)", ""},
		{[]string{"trickle", "--nodes", "100", "--eta", "-0.5"}, "eta = -0.5: must be in [0, 1)", ""},
		{[]string{"trickle", "--nodes", "0"}, "nodes = 0: must be between 1 and", ""},
		{[]string{"trickle", "--nodes", "100", "--topology", "geometric", "--radius", "0"}, "radius = 0: must be a finite radius > 0", ""},
		{[]string{"trickle", "--nodes", "100", "--topology", "geometric", "--radius", "-1"}, "radius = -1: must be a finite radius > 0", ""},
		{[]string{"trickle", "--nodes", "100", "--topology", "geometric"}, "radius: topology geometric needs a radius", ""},
		{[]string{"trickle", "--nodes", "200", "--topology", "geometric", "--radius", "0.01", "--connected"}, "connected: the hearing graph (topology=geometric,radius=0.01, nodes = 200) has", ""},
		{[]string{"trickle", "--nodes", "10", "--topology", "grid"}, "nodes = 10: topology grid needs nodes = L*L", ""},
		{[]string{"trickle", "--nodes", "100", "--radius", "0.1"}, "radius = 0.1: only grid, torus and geometric take a radius", ""},
		{[]string{"trickle", "--nodes", "100", "--imin", "2"}, "imin = 2: must be in [tau·2^-40, tau] = [9.09e-13, 1]", ""},
		// Messages are counted per interval: a measurement window shorter than tau would extrapolate the count.
		{[]string{"trickle", "--nodes", "10", "--horizon", "1"}, "horizon = 1 (warmup = 0.1): the measurement window horizon - warmup = 0.9 is shorter than one interval (tau = 1); must be horizon - warmup >= tau", ""},
		{[]string{"trickle", "--nodes", "10", "--horizon", "3", "--warmup", "2.5"}, "horizon = 3 (warmup = 2.5): the measurement window horizon - warmup = 0.5 is shorter than one interval (tau = 1)", ""},
		{[]string{"trickle", "--nodes", "10", "--tau", "10", "--horizon", "10"}, "horizon = 10 (warmup = 1): the measurement window horizon - warmup = 9 is shorter than one interval (tau = 10)", ""},
		{[]string{"trickle", "--nodes", "100", "--topology", "ring"}, `topology = "ring": must be one of complete, grid, torus, geometric`, ""},
		{[]string{"trickle", "--nodes", "4", "--graph", selfPair, "--topology", "torus"}, "give topology or graph, not both", ""},
		{[]string{"trickle", "--nodes", "1", "--graph", selfPair}, "graph = ", ""},
		{[]string{"trickle", "--nodes", "4", "--graph", filepath.Join(dir, "missing.txt")}, "no such file", ""},
		// An empty file name names no file: refused at validation (trickle opened it at run time, exit 1; a
		// dispatch graph took it for absent, beside a topology too).
		{[]string{"trickle", "--nodes", "4", "--graph", ""}, `graph = "": must name an edge-list file`, ""},
		{[]string{"run", "--servers", "10", "--lambda", "0.5", "--policy", "neighbour-jsq", "--topology", "ring", "--degree", "2", "--graph", ""},
			`graph = "": must name an edge-list file`, ""},
		{[]string{"exact", "--servers", "3", "--lambda", "0.5", "--policy", "neighbour-jsq", "--graph", ""}, `graph = "": must name an edge-list file`, ""},
		{[]string{"run", "--servers", "4", "--lambda", "0.5", "--policy", "compat-jsqd", "--compat-graph", ""}, `compat_graph = "": must name an edge-list file`, ""},
		{[]string{"trickle", "--nodes", "1000000", "--topology", "geometric", "--radius", "0.7"}, "radius = 0.7: the hearing graph would have about", ""},
		{[]string{"trickle", "--nodes", "20000000", "--topology", "geometric", "--radius", "0.001"}, "radius = 0.001: the hearing graph would have about", ""},
		{with("--colour", "red"), "flag provided but not defined: -colour", ""},
		{with("--servers", "ten"), "invalid value \"ten\" for flag -servers", ""},
		{with("--lambda", "0.5.1"), "invalid value \"0.5.1\" for flag -lambda", ""},
		{with("--progress=maybe"), "-progress", ""},
		{[]string{"run", bad}, "malformed JSON", ""},
		{[]string{"run", unknownKey}, `unknown key "colour"`, ""},
		{[]string{"run", wrongType}, "servers: got a JSON string, want an integer", ""},
		{[]string{"run", filepath.Join(dir, "missing.json")}, "no such file", ""},
		{[]string{"run", bad, unknownKey}, "unexpected argument", ""},
		{[]string{"simulate"}, `unknown command "simulate"`, ""},
		{[]string{"help", "simulate"}, `unknown command "simulate"`, ""},
		{[]string{"version", "extra"}, `unexpected argument "extra"`, ""},
		{[]string{}, "Usage:", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "1.5", "--policy", "jsq"}, "lambda = 1.5", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "jsq", "--horizon", "5"}, "-horizon", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "nocando"}, "policy = \"nocando\": unknown", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "jsq", "--cap", "k"}, "-cap", ""},
		{[]string{"exact", "--servers", "2", "--policy", "jsq"}, "lambda: missing", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "jsq", "--cap", "-1"}, "cap = -1: must be at least 1", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "jsq", "--tol", "0.5"}, "tol = 0.5: must be in [1e-14, 0.1]", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "jsq", "--tol", "1e-300"}, "tol = 1e-300: must be in [1e-14, 0.1]", ""},
		{[]string{"exact", "--servers", "127", "--lambda", "0.5", "--policy", "jsq"}, "servers = 127: even cap = 1 gives 1.7e+38 states", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "jsq", "--tol", "NaN"}, "tol = NaN", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "jsq", "--max-states", "1"}, "max_states = 1", ""},
		{[]string{"exact", "--servers", "2", "--lambda", "1.5", "--policy", "jsq", "--allow-unstable"}, "cap = 0 (automatic) needs lambda below", ""},
	}
	count := newTally(t)
	for _, c := range cases {
		args := c.args
		count.add(args)
		code, stdout, stderr := cli(t, context.Background(), args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
		if stdout != "" {
			t.Errorf("%v: wrote to stdout: %.200q", args, stdout)
		}
		if !strings.Contains(stderr, c.want) && (c.or == "" || !strings.Contains(stderr, c.or)) {
			t.Errorf("%v: stderr %q does not contain %q", args, stderr, c.want)
		}
		if len(args) > 0 && strings.Count(strings.TrimSuffix(stderr, "\n"), "\n") > 0 {
			t.Errorf("%v: message is not one line: %q", args, stderr)
		}
		if _, err := os.Stat(traj); err == nil {
			t.Fatalf("%v: created the trajectory file", args)
		}
	}
}

func TestRuntimeFailure(t *testing.T) {
	dir := t.TempDir() // a directory: the trajectory cannot be written there
	code, stdout, stderr := cli(t, context.Background(), "run", "--servers", "5", "--lambda", "0.5",
		"--policy", "jsq", "--horizon", "10", "--grid", "1", "--trajectory", dir)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "trajectory") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, a trajectory error", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, context.Background(), "run", "--servers", "5", "--lambda", "0.5",
		"--policy", "jsq", "--horizon", "10", "--grid", "1", "--trajectory", filepath.Join(dir, "no", "t.csv"))
	if code != 1 || stdout != "" || !strings.Contains(stderr, "directory does not exist") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, a directory error", code, stdout, stderr)
	}
}

// A theta that diverges is a runtime failure (exit 1) that says so, with
// nothing on stdout; the same run with targets inside the capacity region
// prints its JSON and writes its trace.
func TestCSMADiverges(t *testing.T) {
	code, stdout, stderr := cli(t, context.Background(), "csma", "--conflict", "torus:9", "--targets", "0.49x81",
		"--windows", "2000", "--window-length", "10", "--step", "0.5")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "theta diverged at window") {
		t.Errorf("exit %d, stdout %.100q, stderr %q; want 1, nothing, theta diverged", code, stdout, stderr)
	}
	trace := filepath.Join(t.TempDir(), "theta.csv")
	code, stdout, stderr = cli(t, context.Background(), "csma", "--conflict", "path:4", "--targets", "0.5,0.3,0.3,0.5",
		"--windows", "50", "--window-length", "20", "--theta-trace", trace)
	if code != 0 || !strings.Contains(stdout, `"theta_error"`) || !strings.Contains(stdout, `"theta_trace": "`+trace+`"`) {
		t.Errorf("exit %d, stderr %q, stdout %.300s", code, stderr, stdout)
	}
	if data, err := os.ReadFile(trace); err != nil || strings.Count(string(data), "\n") != 51 {
		t.Errorf("trace: %v, %d lines; want a header and 50 rows", err, strings.Count(string(data), "\n"))
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "t.csv")
	for _, args := range [][]string{
		{"run", "--servers", "1000", "--lambda", "0.9", "--policy", "jsqd", "--grid", "1", "--trajectory", path},
		{"exact", "--servers", "6", "--lambda", "0.9", "--policy", "jsq"},
	} {
		code, stdout, stderr := cli(t, ctx, args...)
		if code != 130 || stdout != "" || !strings.Contains(stderr, "interrupted") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 130, nothing, interrupted", args[0], code, stdout, stderr)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("an interrupted run created its trajectory file")
	}
}

func TestProgress(t *testing.T) {
	code, stdout, stderr := cli(t, context.Background(), "run", "--servers", "10", "--lambda", "0.5",
		"--policy", "jsq", "--horizon", "100", "--replications", "2", "--progress")
	if code != 0 || !json.Valid([]byte(stdout)) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stderr, "100.0% done, 2/2 replications finished") || !strings.Contains(stderr, "ETA") {
		t.Errorf("progress on stderr: %q", stderr)
	}
	if strings.Count(stderr, "\n") > 5 {
		t.Errorf("progress is not throttled: %q", stderr)
	}
}

func TestExactAgreesWithSimulation(t *testing.T) {
	ex := runJSON(t, "exact", "--servers", "2", "--lambda", "0.5", "--policy", "jsq")
	for _, key := range []string{"scenario", "occupancy", "mean_tasks_per_server", "mean_sojourn",
		"wait_probability", "truncation_mass", "cap", "states", "residual"} {
		if _, ok := ex[key]; !ok {
			t.Errorf("exact result has no key %q", key)
		}
	}
	if ex["cap"].(float64) < 1 || ex["states"].(float64) < 4 {
		t.Errorf("cap = %v, states = %v", ex["cap"], ex["states"])
	}
	if m := ex["truncation_mass"].(float64); m > 1e-6 {
		t.Errorf("truncation mass %v", m)
	}
	sim := runJSON(t, "run", "--servers", "2", "--lambda", "0.5", "--policy", "jsq",
		"--horizon", "20000", "--replications", "4")
	qe, qs := ex["occupancy"].([]any), sim["occupancy"].([]any)
	if math.Abs(qe[0].(float64)-0.5) > 1e-6 {
		t.Errorf("exact q_1 = %v, want lambda = 0.5", qe[0])
	}
	for i := range 3 {
		if d := math.Abs(qe[i].(float64) - qs[i].(float64)); d > 0.02 {
			t.Errorf("q_%d: exact %v, simulated %v", i+1, qe[i], qs[i])
		}
	}
	for _, key := range []string{"mean_tasks_per_server", "mean_sojourn", "wait_probability"} {
		e, s := ex[key].(float64), sim[key].(float64)
		if math.Abs(e-s) > 0.05*math.Max(1, math.Abs(e)) {
			t.Errorf("%s: exact %v, simulated %v", key, e, s)
		}
	}
	want := map[string]any{"servers": 2.0, "lambda": 0.5, "policy": "jsq", "cap": 0.0, "tol": 1e-9, "max_states": 2e6}
	if !reflect.DeepEqual(ex["scenario"], want) {
		t.Errorf("exact scenario = %v, want %v", ex["scenario"], want)
	}
}

func TestExactFileAndCap(t *testing.T) {
	file := writeFile(t, "s.json", `{"servers": 3, "lambda": 0.6, "policy": "jsqd", "horizon": 100, "cap": 4}`)
	ex := runJSON(t, "exact", file, "--cap", "6", "--rates", "0.5,1,1.5")
	if ex["cap"] != 6.0 || ex["states"] != 343.0 {
		t.Errorf("cap = %v, states = %v; want 6, 7^3", ex["cap"], ex["states"])
	}
	if q := ex["occupancy"].([]any); len(q) != 6 {
		t.Errorf("%d occupancy levels, want 6", len(q))
	}
	sc := ex["scenario"].(map[string]any)
	if sc["d"] != 2.0 || sc["sampling"] != "without" || len(sc["rates"].([]any)) != 3 {
		t.Errorf("scenario %v", sc)
	}
}

// noExact is a policy without exact routing.
type noExact struct{}

func (noExact) Name() string                                     { return "noexact" }
func (noExact) Dispatch(s *lbsim.State, _ int, r *rand.Rand) int { return r.IntN(s.N()) }

func TestExactNeedsExactRouter(t *testing.T) {
	if err := lbsim.RegisterPolicy(lbsim.PolicyDef{Name: "noexact",
		Build: func(*param.Values) (lbsim.Policy, error) { return noExact{}, nil }}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, context.Background(), "exact", "--servers", "2", "--lambda", "0.5", "--policy", "noexact")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "ExactRouter") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "run"}, {"run", "-h"}, {"run", "--help"},
		{"help", "exact"}, {"exact", "-h"}, {"help", "version"}, {"version", "-h"}, {"help", "help"}} {
		code, stdout, stderr := cli(t, context.Background(), args...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, "Usage") {
			t.Errorf("%v: exit %d, stderr %q, stdout %.100q", args, code, stderr, stdout)
		}
	}
	for name, f := range map[string]*flags{"run": runFlags(&runConfig{}), "exact": exactFlags(&exactConfig{})} {
		_, help, _ := cli(t, context.Background(), name, "-h")
		for _, fl := range f.order {
			if !strings.Contains(help, "--"+fl) {
				t.Errorf("lbsim %s -h does not mention --%s", name, fl)
			}
		}
		for _, p := range lbsim.PolicyNames() {
			if !strings.Contains(help, p) {
				t.Errorf("lbsim %s -h does not mention policy %s", name, p)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := cli(t, context.Background(), "version")
	if code != 0 || !strings.HasPrefix(stdout, "lbsim ") || !strings.HasSuffix(stdout, "\n") {
		t.Errorf("exit %d, %q", code, stdout)
	}
}

// Every flag must name a JSON key of its configuration (override panics
// otherwise), so files and flags use the same names.
func TestFlagsAreJSONKeys(t *testing.T) {
	for _, c := range []struct {
		f   *flags
		cfg any
	}{{runFlags(&runConfig{}), runConfig{}}, {exactFlags(&exactConfig{}), exactConfig{}}} {
		for _, name := range c.f.order {
			fieldIndex(reflect.TypeOf(c.cfg), jsonKey(name))
		}
	}
}

// --plot writes a standalone page with the echarts bundle inline once, one
// chart per view (two with a trajectory), and the results table.
func TestPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plot.html")
	runJSON(t, "run", "--servers", "100", "--lambda", "0.9", "--policy", "jsqd", "--horizon", "20",
		"--grid", "1", "--replications", "2", "--plot", path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if n := strings.Count(page, "data-lbsim-echarts="); n != 1 {
		t.Errorf("the page holds the echarts bundle %d times, want 1", n)
	}
	if n := strings.Count(page, `class="lbsim-chart"`); n != 2 {
		t.Errorf("%d charts, want 2 (occupancy and trajectory)", n)
	}
	if !strings.Contains(page, "jsqd(d=2,without)") {
		t.Error("the page does not name the policy")
	}
	code, stdout, stderr := cli(t, context.Background(), "run", "--servers", "10", "--lambda", "0.5",
		"--policy", "jsq", "--plot", filepath.Join(t.TempDir(), "missing", "p.html"))
	if code != 1 || stdout != "" || !strings.Contains(stderr, "plot") {
		t.Errorf("plot into a missing directory: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestRunTopology(t *testing.T) {
	m := runJSON(t, "run", "--servers", "100", "--lambda", "0.9", "--policy", "neighbour-jsq", "--topology", "er",
		"--degree", "20", "--horizon", "50", "--graph-seed", "7")
	sc := m["scenario"].(map[string]any)
	if sc["topology"] != "er" || sc["degree"] != 20.0 || sc["graph_seed"] != 7.0 {
		t.Errorf("scenario %v", sc)
	}
	if !strings.HasPrefix(m["policy"].(string), "neighbour-jsq(topology=er,degree=20") {
		t.Errorf("policy %v", m["policy"])
	}
	m = runJSON(t, "run", "--servers", "16", "--lambda", "0.7", "--policy", "neighbour-jsqd", "--topology", "torus",
		"--horizon", "50")
	if sc := m["scenario"].(map[string]any); sc["d"] != 2.0 || sc["graph_seed"] != nil {
		t.Errorf("scenario %v: want d = 2 and no graph_seed for a torus", sc)
	}
	for _, args := range [][]string{
		{"--topology", "ring", "--degree", "4"}, {"--topology", "regular", "--degree", "3"},
		{"--topology", "er", "--p", "0.2"}, {"--topology", "geometric", "--radius", "0.3"},
		{"--topology", "split", "--split", "0.1"}, {"--topology", "pendant", "--clique", "5"},
		{"--topology", "complete"},
	} {
		runJSON(t, append([]string{"run", "--servers", "30", "--lambda", "0.6", "--policy", "neighbour-jsq",
			"--horizon", "20"}, args...)...)
	}
	// The edge-list file, for run and exact.
	path := writeFile(t, "path3.txt", "# the path on 3 vertices\n0 1\n1 2\n")
	runJSON(t, "run", "--servers", "3", "--lambda", "0.5", "--policy", "neighbour-jsq", "--graph", path, "--horizon", "100")
	e := runJSON(t, "exact", "--servers", "3", "--lambda", "0.5", "--policy", "neighbour-jsq", "--graph", path)
	if e["scenario"].(map[string]any)["graph"] != path {
		t.Errorf("exact scenario %v", e["scenario"])
	}
	runJSON(t, "exact", "--servers", "4", "--lambda", "0.6", "--policy", "neighbour-jsqd", "--topology", "ring", "--degree", "2")
}

func TestTopologyBadInput(t *testing.T) {
	with := func(extra ...string) []string {
		return append([]string{"run", "--servers", "10", "--lambda", "0.5", "--policy", "neighbour-jsq"}, extra...)
	}
	bad := writeFile(t, "bad.txt", "0 1\n1 x\n")
	big := writeFile(t, "big.txt", "0 1\n1 12\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{with(), "topology: required for neighbour-jsq; one of complete, er, er-implicit, regular, ring, torus, geometric, split, pendant"},
		{with("--topology", "tree"), `topology = "tree": must be one of`},
		{with("--topology", "er", "--degree", "0"), "degree = 0: must be a finite degree > 0"},
		{with("--topology", "er", "--degree", "10"), "degree = 10: the mean degree of er must be > 0 and at most servers-1 (9)"},
		{with("--topology", "er", "--p", "0"), "p = 0: must be an edge probability"},
		{with("--topology", "ring", "--degree", "3"), "degree = 3: must be an even integer"},
		{[]string{"run", "--servers", "9", "--lambda", "0.5", "--policy", "neighbour-jsq", "--topology", "regular", "--degree", "3"}, "servers*degree must be even"},
		{with("--topology", "torus"), "servers = 10: topology torus needs servers to be a perfect square"},
		{with("--topology", "geometric", "--radius", "2"), "radius = 2"},
		{with("--topology", "split", "--split", "0"), "split = 0"},
		{with("--topology", "pendant", "--clique", "11"), "clique = 11"},
		{with("--topology", "ring", "--degree", "2", "--radius", "0.1"), "radius = 0.1: topology ring takes no radius"},
		{with("--graph", filepath.Join(t.TempDir(), "none.txt")), "graph = "},
		{with("--graph", bad), "line 2"},
		{with("--graph", big), "out of range"},
		{with("--graph-seed", "x", "--topology", "er", "--degree", "2"), "-graph-seed"},
		{[]string{"run", "--servers", "10", "--lambda", "0.5", "--policy", "jsqd", "--topology", "ring"}, "topology = \"ring\": policy jsqd takes no topology"},
		{[]string{"exact", "--servers", "3", "--lambda", "0.5", "--policy", "neighbour-jsqd", "--topology", "ring", "--degree", "4"}, "degree = 4"},
	} {
		code, stdout, stderr := cli(t, context.Background(), c.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// --service and --discipline select the general engine; lbsim exact refuses them.
func TestServiceAndDiscipline(t *testing.T) {
	m := runJSON(t, "run", "--servers", "50", "--lambda", "0.7", "--policy", "jsqd", "--horizon", "200",
		"--service", "det", "--discipline", "ps", "--replications", "2")
	if m["engine"] != "general" {
		t.Errorf("engine %v, want general", m["engine"])
	}
	sc := m["scenario"].(map[string]any)
	if sc["service"] != "det" || sc["discipline"] != "ps" {
		t.Errorf("scenario %v lacks the service and discipline", sc)
	}
	for _, args := range [][]string{
		{"run", "--servers", "5", "--lambda", "0.5", "--policy", "jsq", "--service", "erlang:k=0"},
		{"run", "--servers", "5", "--lambda", "0.5", "--policy", "jsq", "--discipline", "lifo"},
		{"exact", "--servers", "2", "--lambda", "0.5", "--policy", "jsq", "--service", "det"},
	} {
		code, stdout, stderr := cli(t, context.Background(), args...)
		if code != 2 || stdout != "" || !(strings.Contains(stderr, "service") || strings.Contains(stderr, "discipline")) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// The scenario lbsim exact prints holds every key the solution depends on,
// including those of newer policies (walk, steps, the compat keys): fed back
// as a scenario file it gives the same solution.
func TestExactScenarioRoundTrip(t *testing.T) {
	for _, args := range [][]string{
		{"--servers", "4", "--lambda", "0.5", "--policy", "nbrw-jsqd", "--topology", "complete", "--walk", "srw", "--steps", "2", "--cap", "6"},
		{"--servers", "4", "--lambda", "0.6", "--policy", "compat-jsqd", "--compat", "random", "--types", "2",
			"--server-degree", "2", "--compat-seed", "7", "--cap", "6"},
	} {
		ex := runJSON(t, append([]string{"exact"}, args...)...)
		data, err := json.Marshal(ex["scenario"])
		if err != nil {
			t.Fatal(err)
		}
		again := runJSON(t, "exact", writeFile(t, "s.json", string(data)))
		if !reflect.DeepEqual(again["scenario"], ex["scenario"]) || !reflect.DeepEqual(again["occupancy"], ex["occupancy"]) {
			t.Errorf("%v: printed scenario %s solves to %v, want %v", args, data, again["occupancy"], ex["occupancy"])
		}
		for _, key := range []string{"horizon", "seed", "replications", "engine"} {
			if _, ok := ex["scenario"].(map[string]any)[key]; ok {
				t.Errorf("%v: printed scenario has the run-only key %s", args, key)
			}
		}
	}
}

// endlessPipe returns a named pipe that a goroutine feeds with line for ever
// (until its reader goes away or the test ends).
func endlessPipe(t *testing.T, line string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "endless")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			chunk := []byte(strings.Repeat(line, 4096))
			for {
				if _, err := f.Write(chunk); err != nil {
					break
				}
			}
			f.Close()
		}
	}()
	t.Cleanup(func() {
		// Unblock a writer waiting for a reader, then let it stop.
		os.Remove(path)
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return path
}

// The keys refused when the chosen variant does not use them pass at their
// defaults: the printed scenario of admission without simulate (horizon,
// warmup, replications and seed at their defaults) runs again as a file, a
// sweep of it (seed and replications set by the sweep) runs, and the same
// keys with simulate, or graph_seed on a random topology, are taken.
func TestUnusedKeyDefaults(t *testing.T) {
	m := runJSON(t, "admission", "--servers", "100", "--beta", "0.5")
	data, err := json.Marshal(m["scenario"])
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"horizon", "warmup", "replications", "seed"} {
		if _, ok := m["scenario"].(map[string]any)[k]; !ok {
			t.Errorf("the printed scenario %s has no %s", data, k)
		}
	}
	again := runJSON(t, "admission", writeFile(t, "adm.json", string(data)))
	if !reflect.DeepEqual(again["figures"], m["figures"]) {
		t.Errorf("the printed scenario fed back gave %v, want %v", again["figures"], m["figures"])
	}
	runJSON(t, "admission", "--servers", "100", "--beta", "0.5", "--simulate", "--horizon", "20", "--seed", "3", "--replications", "2")
	runJSON(t, "run", "--servers", "16", "--lambda", "0.5", "--policy", "neighbour-jsq", "--topology", "regular", "--degree", "3",
		"--graph-seed", "3", "--horizon", "10")
	spec := writeSpec(t, `{"model": "admission", "seed": 5, "replications": 1, "base": {"servers": 20}, "axes": [{"beta": [0.5, 1]}]}`)
	if code, _, stderr := cli(t, context.Background(), "sweep", spec, "--out", filepath.Join(t.TempDir(), "adm")); code != 0 {
		t.Errorf("a sweep of admission without simulate: exit %d, %s", code, stderr)
	}
}

// Every model subcommand, including those of models added later, refuses the
// hostile inputs that do not depend on its keys: a file or pipe that never
// ends, a key given twice, an unknown flag, a bad resource limit. Rows that
// need a model's own keys go into TestBadInput.
func TestEveryModelHostile(t *testing.T) {
	dup := writeFile(t, "dup.json", `{"seed": 1, "seed": 2}`)
	// 200 KB of nested brackets: refused by depth, in bounded memory.
	nested := writeFile(t, "nested.json", strings.Repeat("[", 100000)+strings.Repeat("]", 100000))
	nestedObj := writeFile(t, "nestedobj.json", strings.Repeat(`{"a":`, 20000)+"1"+strings.Repeat("}", 20000))
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{nested}, "nested deeper than 100 levels"},
		{[]string{nestedObj}, "nested deeper than 100 levels"},
		{[]string{"--max-memory", "8GB", "--max-memory", "9GB"}, "--max-memory given twice"},
		{[]string{"/dev/zero"}, `scenario file "/dev/zero": larger than 64 MiB`},
		{[]string{dup}, `seed: duplicate key "seed"`},
		{[]string{"--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		{[]string{"--max-memory", "0"}, `max_memory = "0": must be a size > 0`},
		{[]string{"--max-memory", "1e999"}, `max_memory = "1e999": must be a size > 0`},
		{[]string{"--max-events", "-1"}, `max_events = "-1": must be a number of events >= 0`},
		{[]string{"--max-events", "1", "--max-events", "2"}, "--max-events given twice"},
		{[]string{"-"}, "standard input: malformed JSON: EOF"}, // stdin is empty
		{[]string{dir}, `scenario file "` + dir + `": read ` + dir + `: is a directory`},
	}
	names := []string{"run", "exact", "meanfield"}
	for _, c := range modelCommands() {
		names = append(names, c.name)
	}
	count := newTally(t)
	for _, name := range names {
		for _, c := range cases {
			count.add([]string{name})
			code, stdout, stderr := cli(t, context.Background(), append([]string{name}, c.args...)...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("lbsim %s %v: exit %d, stdout %.80q, stderr %q; want 2 and one line with %q", name, c.args, code,
					stdout, stderr, c.want)
			}
		}
	}
}
