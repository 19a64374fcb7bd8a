package lbsim

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/lbsim/notebooks/lbsim/param"
)

// countCompletions counts the completions of scenario keys until the test
// ends.
func countCompletions(t *testing.T) *int {
	t.Helper()
	n, orig := 0, completeKeys
	completeKeys = func(v *param.Values) error { n++; return orig(v) }
	t.Cleanup(func() { completeKeys = orig })
	return &n
}

// runKeys are scenarios as lbsim run gets them, one for each kind of key:
// a policy's own keys, rates, a graph policy's topology, a service law, an
// initial state with a trajectory and warmup 0, and every policy with the
// keys it needs at the least (a topology, a compatibility graph).
func runKeys() []map[string]any {
	base := func(policy string) map[string]any {
		keys := map[string]any{"servers": 20, "lambda": 0.5, "policy": policy, "horizon": 20.0, "replications": 2}
		if Keys.Key("topology").UsedBy(policy) {
			keys["topology"], keys["degree"] = "ring", 4
		}
		if Keys.Key("compat").UsedBy(policy) {
			keys["compat"] = "complete"
		}
		return keys
	}
	rates := make([]float64, 100)
	for i := range rates {
		rates[i] = 0.5 + float64(i%2)
	}
	out := []map[string]any{
		{"servers": 100, "lambda": 0.9, "policy": "jsqd", "d": 3, "horizon": 20.0, "replications": 2, "seed": 5},
		{"servers": 100, "lambda": 0.8, "policy": "jsq", "rates": rates, "horizon": 20.0},
		{"servers": 100, "lambda": 0.8, "policy": "neighbour-jsq", "topology": "er", "degree": 10, "horizon": 20.0},
		{"servers": 50, "lambda": 0.7, "policy": "jsqd", "service": "pareto:alpha=3", "discipline": "ps", "horizon": 20.0},
		{"servers": 100, "lambda": 0.9, "policy": "jsqd", "init": []float64{1, 0.5}, "horizon": 20.0, "warmup": 0.0, "grid": 0.5},
	}
	for _, name := range PolicyNames() {
		out = append(out, base(name))
	}
	return out
}

// One lbsim run (keys to a scenario, the run, the printed result) completes
// the scenario's keys once, and the printed scenario is what completing its
// fields afresh gives.
func TestKeysCompletedOncePerRun(t *testing.T) {
	for _, keys := range runKeys() {
		v := Keys.New()
		for name, x := range keys {
			if err := v.Set(name, x); err != nil {
				t.Fatal(err)
			}
		}
		n := countCompletions(t)
		sc, err := ScenarioFromValues(v)
		if err != nil {
			t.Fatalf("%v: %v", keys, err)
		}
		sc.Workers = 1
		res, err := Run(context.Background(), sc)
		if err != nil {
			t.Fatalf("%v: %v", keys, err)
		}
		out, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if *n != 1 {
			t.Errorf("%v: the keys were completed %d times in one run, want 1", keys, *n)
		}
		checkPrinted(t, keys, res, out)
	}
}

// A scenario whose fields change after it was built is completed afresh:
// its printed scenario says the new values, and a key cleared goes back to
// its default.
func TestEditedScenarioCompletedAfresh(t *testing.T) {
	sc, err := ScenarioFromKeys(map[string]any{"servers": 10, "lambda": 0.5, "policy": "jsqd", "horizon": 100.0, "grid": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	n := countCompletions(t)
	if _, err := sc.completed(); err != nil || *n != 0 {
		t.Fatalf("unchanged scenario: %d completions (%v), want 0", *n, err)
	}
	sc.Horizon, sc.Grid = 200, 0
	v, err := sc.completed()
	if err != nil {
		t.Fatal(err)
	}
	if *n != 1 || v.Float("horizon") != 200 || v.Has("grid") {
		t.Errorf("edited scenario: %d completions, horizon %v, grid present %v; want 1, 200, false", *n, v.Float("horizon"), v.Has("grid"))
	}
}

// checkPrinted fails t unless the scenario printed in out, the JSON of res,
// is what completing the fields of res.Scenario afresh gives.
func checkPrinted(t *testing.T, keys map[string]any, res *Result, out []byte) {
	t.Helper()
	fresh, err := res.Scenario.Values()
	if err != nil {
		t.Fatal(err)
	}
	if err := Keys.Complete(fresh); err != nil {
		t.Fatal(err)
	}
	var printed struct{ Scenario json.RawMessage }
	if err := json.Unmarshal(out, &printed); err != nil {
		t.Fatal(err)
	}
	if want, _ := fresh.MarshalJSON(); string(printed.Scenario) != string(want) {
		t.Errorf("%v: printed scenario %s, completed afresh %s", keys, printed.Scenario, want)
	}
}
