package sweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) *Spec {
	t.Helper()
	sw, err := ParseSpec([]byte(s))
	if err != nil {
		t.Fatalf("ParseSpec: %v\n%s", err, s)
	}
	return sw
}

func mustPoints(t *testing.T, s string) []Point {
	t.Helper()
	pts, err := mustParse(t, s).Points()
	if err != nil {
		t.Fatalf("Points: %v", err)
	}
	return pts
}

func TestSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []string // substrings of the error
	}{
		{`{"seed": 1, "replications": 1, "base": {"servers": 10}, "axes": [{"lamda": [0.5]}]}`,
			[]string{"axes[0]", `unknown parameter "lamda"`, "lambda"}},
		{`{"seed": 1, "replications": 1, "base": {"sevrers": 10}, "axes": [{"lambda": [0.5]}]}`,
			[]string{"base", `unknown parameter "sevrers"`}},
		{`{"seed": 1, "replications": 1, "base": {"servers": 10}, "axes": []}`, []string{"axes: empty"}},
		{`{"seed": 1, "replications": 1, "base": {"servers": 10}}`, []string{"axes: empty"}},
		{`{"seed": 1, "replications": 1, "base": {"servers": 10}, "axes": [{}]}`, []string{"axes[0]: empty"}},
		{`{"seed": 1, "replications": 1, "base": {"servers": 10}, "axes": [{"lambda": []}]}`,
			[]string{"axes[0].lambda", "empty list"}},
		{`{"seed": 1, "replications": 1, "base": {}, "axes": [{"lambda": [0.5, 0.6], "servers": [10]}]}`,
			[]string{"axes[0].servers", "1 values", "have 2"}},
		{`{"seed": 1, "replications": 1, "base": {"seed": 3}, "axes": [{"lambda": [0.5]}]}`,
			[]string{"base", `"seed"`, "derived"}},
		{`{"seed": 1, "replications": 1, "axes": [{"replications": [1, 2]}]}`,
			[]string{"axes[0]", `"replications"`, "top level"}},
		{`{"seed": 1, "replications": 1, "axes": [{"lambda": [0.5]}, {"lambda": [0.6]}]}`,
			[]string{"axes[1]", `"lambda" is already on axes[0]`}},
		{`{"replications": 1, "axes": [{"lambda": [0.5]}]}`, []string{"seed: missing"}},
		{`{"seed": 1, "replications": 0, "axes": [{"lambda": [0.5]}]}`, []string{"replications = 0"}},
		{`{"seed": 1, "replications": 1, "axes": [{"lambda": [0.5]}], "extra": 1}`, []string{"unknown field", "extra"}},
		{`{"seed": 1, "replications": 1, "axes": [{"lambda": 0.5}]}`, []string{"axes[0].lambda", "want a list"}},
		{`{"seed": 1, "replications": 1, "axes": [{"lambda": {"from": 0.9, "to": 0.5, "step": 0.1}}]}`,
			[]string{"step = 0.1 goes away"}},
		{`{"seed": 1, "replications": 1, "axes": [{"lambda": {"from": 0.1, "to": 0.5}}]}`,
			[]string{"needs step or count"}},
		{`{"seed": 1, "replications": 1, "axes": [{"lambda": {"from": 0.1, "to": 0.5, "count": 3, "scale": "ln"}}]}`,
			[]string{`scale = "ln"`}},
		{`{"seed": 1, "replications": 1, "axes": [{"lambda": {"from": 0, "to": 0.5, "count": 3, "scale": "log"}}]}`,
			[]string{"log scale needs from > 0"}},
		{`{"seed": 1, "replications": 1, "axes": [{"lambda": {"from": 0, "to": 1, "stp": 0.1}}]}`,
			[]string{"range", "stp"}},
	} {
		_, err := ParseSpec([]byte(tc.spec))
		if err == nil {
			t.Errorf("ParseSpec(%s): no error", tc.spec)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseSpec(%s):\n  error %q\n  does not say %q", tc.spec, err, w)
			}
		}
	}
}

// An invalid value in any point is reported with the point and the
// parameter, before anything runs.
func TestPointErrors(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []string
	}{
		// lambda = 1.2 is unstable: the third point (index 2) of the product.
		{`{"seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq"},
		   "axes": [{"lambda": [0.5, 0.9, 1.2]}]}`,
			[]string{"point 2 (lambda=1.2)", "lambda = 1.2"}},
		// d = 20 > servers = 10 only in the combination servers=10, d=20.
		{`{"seed": 1, "replications": 1, "base": {"lambda": 0.5, "policy": "jsqd"},
		   "axes": [{"servers": [100, 10]}, {"d": [2, 20]}]}`,
			[]string{"point 3 (servers=10, d=20)", "d = 20"}},
		// A wrong type on an axis names the key.
		{`{"seed": 1, "replications": 1, "base": {"lambda": 0.5, "policy": "jsq"},
		   "axes": [{"servers": [10, "many"]}]}`,
			[]string{`point 1 (servers=many)`, "servers"}},
		{`{"seed": 1, "replications": 1, "base": {"servers": 10, "lambda": 0.5},
		   "axes": [{"policy": ["jsq", "jsqq"]}]}`,
			[]string{"point 1 (policy=jsqq)", `policy = "jsqq": unknown`}},
	} {
		sw := mustParse(t, tc.spec)
		_, err := sw.Points()
		if err == nil {
			t.Errorf("Points(%s): no error", tc.spec)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Points(%s):\n  error %q\n  does not say %q", tc.spec, err, w)
			}
		}
	}
}

func TestExpansion(t *testing.T) {
	pts := mustPoints(t, `{"seed": 5, "replications": 3, "base": {"servers": 20, "horizon": 50, "lambda": 0.5},
		"axes": [{"policy": ["jsq", "jsqd"], "d": [null, 3]},
		         {"lambda": {"from": 0.1, "to": 0.3, "step": 0.1}}]}`)
	if len(pts) != 6 {
		t.Fatalf("%d points, want 2 x 3 = 6", len(pts))
	}
	// Zipped keys are sorted (d before policy); the last axis varies fastest.
	want := []string{
		"point 0 (d=default, policy=jsq, lambda=0.1)",
		"point 1 (d=default, policy=jsq, lambda=0.2)",
		"point 2 (d=default, policy=jsq, lambda=0.3)",
		"point 3 (d=3, policy=jsqd, lambda=0.1)",
		"point 4 (d=3, policy=jsqd, lambda=0.2)",
		"point 5 (d=3, policy=jsqd, lambda=0.3)",
	}
	for i, pt := range pts {
		if pt.String() != want[i] {
			t.Errorf("point %d = %s, want %s", i, pt, want[i])
		}
		if v := pt.Values; v.Int("replications") != 3 || v.Uint("seed") != pt.Seed || v.Int("servers") != 20 || v.Float("horizon") != 50 {
			t.Errorf("%v: values %v", pt, v.Map())
		}
	}
	if pts[2].Values.Float("lambda") != 0.3 { // 0.1 + 2*0.1 rounded, not 0.30000000000000004
		t.Errorf("lambda = %v, want 0.3", pts[2].Values.Float("lambda"))
	}
	if pts[4].Values.Int("d") != 3 || pts[4].Values.String("policy") != "jsqd" || pts[1].Values.Has("d") {
		t.Errorf("zipped d: %v %v", pts[4].Values.Map(), pts[1].Values.Map())
	}
	seeds := map[uint64]bool{}
	for _, pt := range pts {
		seeds[pt.Seed] = true
	}
	if len(seeds) != len(pts) {
		t.Errorf("%d distinct seeds for %d points", len(seeds), len(pts))
	}

	logs := mustPoints(t, `{"seed": 1, "replications": 1, "base": {"lambda": 0.5, "policy": "random"},
		"axes": [{"servers": {"from": 10, "to": 1000, "count": 3, "scale": "log"}}]}`)
	for i, want := range []int{10, 100, 1000} {
		if logs[i].Values.Int("servers") != want {
			t.Errorf("log range: servers[%d] = %d, want %d", i, logs[i].Values.Int("servers"), want)
		}
	}
}

// The seed of a point depends on the root seed and the point's scenario only:
// not on the sweep it is in, the order or spelling of the keys, or whether a
// value comes from the base or an axis.
func TestSeedIsCanonical(t *testing.T) {
	a := mustPoints(t, `{"seed": 9, "replications": 2, "base": {"servers": 10, "policy": "jsqd", "horizon": 100},
		"axes": [{"lambda": [0.5, 0.7]}, {"d": [2, 3]}]}`)
	b := mustPoints(t, `{"seed": 9, "replications": 8, "base": {"horizon": 1e2, "lambda": 0.70, "policy": "jsqd"},
		"axes": [{"d": [3]}, {"servers": [10.0, 20]}]}`)
	// a[3] is lambda=0.7, d=3; b[0] is d=3, servers=10.
	if a[3].Seed != b[0].Seed || a[3].Key != b[0].Key {
		t.Errorf("same scenario, different seeds: %v %d %s vs %v %d %s", a[3], a[3].Seed, a[3].Key, b[0], b[0].Seed, b[0].Key)
	}
	if a[2].Seed == b[0].Seed {
		t.Errorf("different scenarios, same seed")
	}
	c := mustPoints(t, `{"seed": 10, "replications": 2, "base": {"servers": 10, "policy": "jsqd", "horizon": 100},
		"axes": [{"lambda": [0.5, 0.7]}, {"d": [2, 3]}]}`)
	if c[3].Seed == a[3].Seed || c[3].Key != a[3].Key {
		t.Errorf("another root seed must change the seed, not the key")
	}
	// The documented derivation.
	canon := []byte(`{"d":3,"horizon":100,"lambda":0.7,"policy":"jsqd","servers":10}`)
	if got := PointSeed(9, canon); got != a[3].Seed {
		t.Errorf("PointSeed(9, %s) = %d, want %d", canon, got, a[3].Seed)
	}
}

func TestYAMLSpec(t *testing.T) {
	dir := t.TempDir()
	js := `{"seed": 3, "replications": 2, "base": {"servers": 10, "policy": "jsq", "horizon": 100},
		"axes": [{"lambda": [0.5, 0.7]}]}`
	ym := "seed: 3\nreplications: 2\nbase:\n  servers: 10\n  policy: jsq\n  horizon: 100\naxes:\n  - lambda: [0.5, 0.7]\n"
	if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(ym), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ReadSpec(filepath.Join(dir, "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadSpec(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := a.Points()
	pb, _ := b.Points()
	if len(pa) != 2 || len(pb) != 2 || pa[0].Seed != pb[0].Seed || pa[1].Seed != pb[1].Seed {
		t.Errorf("YAML and JSON give different points")
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("YAML spec %s != JSON spec %s", jb, ja)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("seed: 3\nreplications: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSpec(filepath.Join(dir, "bad.yaml")); err == nil || !strings.Contains(err.Error(), "malformed YAML") {
		t.Errorf("bad YAML: %v", err)
	}
}

func TestShardFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tc := range []struct {
		env       func(string) string
		shards    int
		i, n      int
		source    string
		ok        bool
		errSubstr string
	}{
		{env(), 0, 0, 0, "", false, ""},
		{env("SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "8", "SLURM_ARRAY_TASK_MIN", "0"), 0, 3, 8, "slurm", true, ""},
		{env("SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "1"), 0, 3, 4, "slurm", true, ""},
		{env("SLURM_ARRAY_TASK_ID", "9", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "0"), 0, 0, 0, "", false, "contiguous"},
		{env("SLURM_ARRAY_TASK_ID", "x", "SLURM_ARRAY_TASK_COUNT", "4"), 0, 0, 0, "", false, "SLURM_ARRAY_TASK_ID"},
		{env("SLURM_ARRAY_TASK_ID", "1"), 0, 0, 0, "", false, "SLURM_ARRAY_TASK_COUNT is not"},
		{env("JOB_COMPLETION_INDEX", "2"), 5, 2, 5, "kubernetes", true, ""},
		{env("JOB_COMPLETION_INDEX", "2"), 0, 0, 0, "", false, "--shards"},
		{env("JOB_COMPLETION_INDEX", "5"), 5, 0, 0, "", false, "below shards"},
	} {
		i, n, src, ok, err := ShardFromEnv(tc.env, tc.shards)
		if tc.errSubstr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errSubstr) {
				t.Errorf("ShardFromEnv: error %v, want one saying %q", err, tc.errSubstr)
			}
			continue
		}
		if err != nil || i != tc.i || n != tc.n || src != tc.source || ok != tc.ok {
			t.Errorf("ShardFromEnv = %d, %d, %q, %v, %v; want %d, %d, %q, %v", i, n, src, ok, err, tc.i, tc.n, tc.source, tc.ok)
		}
	}
	for _, s := range []string{"0/0", "3/3", "-1/2", "1", "a/b", "01/2"} {
		if _, _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q): no error", s)
		}
	}
	if i, n, err := ParseShard("2/5"); err != nil || i != 2 || n != 5 {
		t.Errorf("ParseShard(2/5) = %d, %d, %v", i, n, err)
	}
}
