package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/meanfield"
)

func floats(t *testing.T, v any) []float64 {
	t.Helper()
	xs, ok := v.([]any)
	if !ok {
		t.Fatalf("%v is not an array", v)
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x.(float64)
	}
	return out
}

func TestMeanfieldJSQd(t *testing.T) {
	m := runJSON(t, "meanfield", "--policy", "jsqd", "--d", "2", "--lambda", "0.9", "--until", "20", "--grid", "0.1")
	for _, key := range []string{"scenario", "times", "occupancy", "fixed_point", "fixed_point_residual", "levels",
		"neglected_mass", "mean_tasks", "mean_sojourn", "wait_probability", "top_level_max", "order_violation", "steps"} {
		if _, ok := m[key]; !ok {
			t.Errorf("no key %q", key)
		}
	}
	times := floats(t, m["times"])
	if len(times) != 201 || times[200] != 20 {
		t.Errorf("times: %d points, last %v; want 201 up to 20", len(times), times[len(times)-1])
	}
	occ := m["occupancy"].([]any)
	K := int(m["levels"].(float64))
	if len(occ) != len(times) || len(floats(t, occ[0])) != K {
		t.Errorf("occupancy: %d rows of %d, want %d of %d", len(occ), len(floats(t, occ[0])), len(times), K)
	}
	fp := floats(t, m["fixed_point"])
	want, _, _ := meanfield.JSQdFixedPoint(0.9, 2, 1e-300)
	for i := range fp {
		if math.Abs(fp[i]-want[i]) > 1e-12 {
			t.Errorf("fixed_point[%d] = %v, want %v", i, fp[i], want[i])
		}
	}
	T, _ := meanfield.JSQdMeanSojourn(0.9, 2)
	if got := m["mean_sojourn"].(float64); math.Abs(got-T) > 1e-10 {
		t.Errorf("mean_sojourn = %v, want %v", got, T)
	}
	if got := m["wait_probability"].(float64); math.Abs(got-0.81) > 1e-12 {
		t.Errorf("wait_probability = %v, want 0.81", got)
	}
	// From empty the path approaches the fixed point (q_1(20) = 0.8808).
	last := floats(t, occ[len(occ)-1])
	if math.Abs(last[0]-0.8808) > 1e-3 {
		t.Errorf("q_1(20) = %v, want about 0.9", last[0])
	}
	sc := m["scenario"].(map[string]any)
	if sc["policy"] != "jsqd" || sc["d"] != 2.0 || sc["sampling"] != "with" || sc["until"] != 20.0 || sc["grid"] != 0.1 {
		t.Errorf("scenario = %v", sc)
	}
}

func TestMeanfieldPolicies(t *testing.T) {
	for _, c := range []struct {
		args  []string
		want1 float64 // fixed-point q_1
		rest  float64 // fixed-point mass beyond level 1 (-1: not checked)
	}{
		{[]string{"--policy", "jsq", "--init", "1,1,1"}, 0.9, 0},
		{[]string{"--policy", "jiq", "--init", "1,1,0.5"}, 0.9, 0},
		{[]string{"--policy", "jiqd", "--d", "3", "--init", "1,0.8"}, 0.9, 0},
		{[]string{"--policy", "random"}, 0.9, 0.9 * 0.9 / 0.1},
		{[]string{"--policy", "jsqd", "--sampling", "without", "--servers", "100"}, 0.9, -1},
	} {
		args := append([]string{"meanfield", "--lambda", "0.9", "--until", "100"}, c.args...)
		m := runJSON(t, args...)
		fp := floats(t, m["fixed_point"])
		if math.Abs(fp[0]-c.want1) > 1e-9 {
			t.Errorf("%v: fixed point q_1 = %v, want %v", c.args, fp[0], c.want1)
		}
		rest := 0.0
		for _, v := range fp[1:] {
			rest += v
		}
		if c.rest >= 0 && math.Abs(rest-c.rest) > 1e-9 {
			t.Errorf("%v: fixed point mass beyond level 1 = %v, want %v", c.args, rest, c.rest)
		}
		if c.rest == 0 {
			occ := m["occupancy"].([]any)
			last := floats(t, occ[len(occ)-1])
			if math.Abs(last[0]-0.9) > 1e-6 || last[1] > 1e-6 {
				t.Errorf("%v: q(100) = %v, want (0.9, 0, ...)", c.args, last[:3])
			}
		}
		if v := m["order_violation"].(float64); v > 1e-7 {
			t.Errorf("%v: order_violation = %v", c.args, v)
		}
	}
	// Sampling without replacement at N = 10 balances better than with:
	// q_2 below the limit value lambda^3 = 0.729.
	m := runJSON(t, "meanfield", "--lambda", "0.9", "--until", "1", "--policy", "jsqd", "--sampling", "without", "--servers", "10")
	if fp := floats(t, m["fixed_point"]); !(fp[1] < 0.729) {
		t.Errorf("without replacement, N = 10: q_2 = %v, want below 0.729", fp[1])
	}
}

// --refined reports the 1/N coefficients of package meanfield (checked there
// against exact solutions and simulation) and their value at --servers N:
// for JSQ(2) at lambda = 0.9, N = 10, the mean number of tasks per server
// 2.7513 of Gast and Van Houdt's two-choice example; without replacement,
// the coefficients include the sampling term and are smaller.
func TestMeanfieldRefined(t *testing.T) {
	with := runJSON(t, "meanfield", "--policy", "jsqd", "--lambda", "0.9", "--until", "1", "--refined", "--servers", "10")
	r := with["refined"].(map[string]any)
	if got := 0.9 * r["mean_sojourn"].(float64); math.Abs(got-2.7513) > 5e-5 {
		t.Errorf("refined mean tasks at N = 10: %.5f, want 2.7513", got)
	}
	c, occ, fp := floats(t, r["c"]), floats(t, r["occupancy"]), floats(t, r["fixed_point"])
	for i := range c {
		if math.Abs(occ[i]-(fp[i]+c[i]/10)) > 1e-15 {
			t.Errorf("occupancy[%d] = %v, want %v + %v/10", i, occ[i], fp[i], c[i])
		}
	}
	if r["truncation_error"].(float64) > 1e-12 || r["levels"].(float64) != with["levels"].(float64) {
		t.Errorf("truncation error %v, levels %v (ODE %v)", r["truncation_error"], r["levels"], with["levels"])
	}
	without := runJSON(t, "meanfield", "--policy", "jsqd", "--lambda", "0.9", "--until", "1", "--refined",
		"--sampling", "without", "--servers", "10")
	rw := without["refined"].(map[string]any)
	cw, sw := floats(t, rw["c"]), floats(t, rw["sampling_c"])
	if !(cw[1] < c[1] && sw[1] < 0) || math.Abs(cw[1]-sw[1]-c[1]) > 1e-12 {
		t.Errorf("without replacement: c_2 = %v (sampling part %v), with %v", cw[1], sw[1], c[1])
	}
	if _, ok := runJSON(t, "meanfield", "--policy", "jsqd", "--lambda", "0.9", "--until", "1", "--refined")["refined"].(map[string]any)["occupancy"]; ok {
		t.Error("occupancy reported without --servers")
	}
}

func TestMeanfieldTrajectoryFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "mf.csv")
	m := runJSON(t, "meanfield", "--policy", "jsq", "--lambda", "0.5", "--init", "1,0.5", "--until", "1", "--grid", "0.25",
		"--trajectory", name, "--levels", "4")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 6 || lines[0] != "time,q1,q2,q3,q4" || !strings.HasPrefix(lines[1], "0,1,0.5,0,0") {
		t.Errorf("csv:\n%s", data)
	}
	if m["levels"] != 4.0 {
		t.Errorf("levels = %v, want 4", m["levels"])
	}
}

func TestMeanfieldBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--lambda", "0.9", "--until", "1"}, "policy: missing"},
		{[]string{"--policy", "fastest", "--lambda", "0.9", "--until", "1"}, `policy = "fastest": must be one of`},
		{[]string{"--policy", "jsq", "--until", "1"}, "lambda: missing"},
		{[]string{"--policy", "jsq", "--lambda", "1", "--until", "1"}, "lambda = 1: must be in (0, 1)"},
		{[]string{"--policy", "jsq", "--lambda", "0.5"}, "until: missing"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "-1"}, "until = -1"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--d", "2"}, "d = 2: policy jsq takes no d"},
		{[]string{"--policy", "jsqd", "--lambda", "0.5", "--until", "1", "--d", "0"}, "d = 0: must be between 1"},
		{[]string{"--policy", "jsqd", "--lambda", "0.5", "--until", "1", "--sampling", "both"}, `sampling = "both"`},
		{[]string{"--policy", "jsqd", "--lambda", "0.5", "--until", "1", "--sampling", "without"}, "servers: missing"},
		{[]string{"--policy", "jsqd", "--lambda", "0.5", "--until", "1", "--sampling", "without", "--servers", "1"}, "servers = 1"},
		{[]string{"--policy", "jsqd", "--lambda", "0.5", "--until", "1", "--servers", "10"}, "servers = 10: only used"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--grid", "0"}, "grid = 0"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--tol", "0.5"}, "tol = 0.5"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--levels", "0"}, "levels = 0"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--init", "0.5,0.7"}, "init[1] = 0.7"},
		{[]string{"--policy", "jsq", "--lambda", "x", "--until", "1"}, "invalid value"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--refined"}, "policy jsq takes no refined"},
		{[]string{"--policy", "jsqd", "--lambda", "0.5", "--until", "1", "--refined=maybe"}, "invalid"},
		{[]string{"--policy", "jsqd", "--lambda", "0.5", "--until", "1", "--refined", "--levels", "51"}, "levels = 51: --refined takes at most 50"},
		{[]string{"--policy", "jsqd", "--lambda", "0.5", "--until", "1", "--refined", "--servers", "1"}, "servers = 1: must be between d = 2"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--beta", "0.2"}, "beta = 0.2: must be in [0.5, 20]"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--beta", "NaN"}, "beta = NaN: must be in [0.5, 20]"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--beta", "1e300"}, "beta = 1e+300: must be in [0.5, 20]"},
		{[]string{"--policy", "jsqd", "--lambda", "0.5", "--until", "1", "--beta", "1"}, "beta = 1: policy jsqd takes no beta"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--diffusion-levels", "3"}, "diffusion_levels = 3: only used with --beta"},
		{[]string{"--policy", "jsq", "--lambda", "0.5", "--until", "1", "--beta", "1", "--diffusion-levels", "9"}, "diffusion_levels = 9: must be between 2"},
		{[]string{"--policy", "jiq", "--lambda", "0.5", "--until", "1", "--beta", "1", "--diffusion-levels", "x"}, "invalid"},
	} {
		code, stdout, stderr := cli(t, context.Background(), append([]string{"meanfield"}, c.args...)...)
		if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, "lbsim meanfield: ") || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.args, code, stdout, stderr, c.msg)
		}
	}
	code, stdout, _ := cli(t, context.Background(), "meanfield", "-h")
	if code != 0 || !strings.Contains(stdout, "--policy NAME") {
		t.Errorf("meanfield -h: exit %d, %q", code, stdout)
	}
}

// TestMeanfieldDiffusion: --beta 1 prints the lattice law of the
// Halfin-Whitt diffusion: E[Qbar_2] = 0.8140596 with an error below 1e-5
// (meanfield.JSQDiffusionLawLimit), the sanity identity E[Qbar_1] = -1,
// distribution functions increasing in [0, 1]; the same bytes twice.
func TestMeanfieldDiffusion(t *testing.T) {
	args := []string{"meanfield", "--policy", "jiq", "--lambda", "0.99", "--until", "1", "--beta", "1"}
	code, stdout, stderr := cli(t, context.Background(), args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, again, _ := cli(t, context.Background(), args...)
	if again != stdout {
		t.Error("same input, different bytes")
	}
	d := runJSON(t, args...)["diffusion"].(map[string]any)
	val := func(k string) (float64, float64) {
		e := d[k].(map[string]any)
		return e["value"].(float64), e["error"].(float64)
	}
	m2, e2 := val("mean2")
	if math.Abs(m2-0.8140596) > 1e-6 || e2 > 1e-5 {
		t.Errorf("mean2 = %v ± %v, want 0.8140596 within 1e-5", m2, e2)
	}
	if m1, e1 := val("mean1"); math.Abs(m1+1) > e1+1e-9 {
		t.Errorf("sanity: mean1 = %v ± %v, want -1", m1, e1)
	}
	for _, k := range []string{"cdf1", "cdf2"} {
		prev := 0.0
		for i, x := range d[k].([]any) {
			v := x.(map[string]any)["value"].(float64)
			if v < prev-1e-12 || v > 1 {
				t.Errorf("%s[%d] = %v after %v", k, i, v, prev)
			}
			prev = v
		}
	}
}
