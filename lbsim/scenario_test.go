package lbsim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
)

// runKeys builds the scenario that keys describe (see ScenarioFromKeys) and
// runs it.
func runKeys(keys map[string]any) (*lbsim.Result, error) {
	sc, err := lbsim.ScenarioFromKeys(keys)
	if err != nil {
		return nil, err
	}
	return lbsim.Run(context.Background(), sc)
}

// roundTrip marshals sc to its scenario file, parses the file and marshals
// the parsed scenario again; both files must be the same bytes.
func roundTrip(sc lbsim.Scenario) (file, again []byte, err error) {
	file, err = json.Marshal(sc)
	if err != nil {
		return nil, nil, err
	}
	parsed, err := lbsim.ParseScenario(file)
	if err != nil {
		return file, nil, err
	}
	again, err = json.Marshal(parsed)
	return file, again, err
}

// resultJSON is the JSON of res without the wall-clock fields, which differ
// between two runs of the same scenario.
func resultJSON(t *testing.T, res *lbsim.Result) []byte {
	t.Helper()
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"wall_seconds", "events_per_second"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("result JSON has no %s: %s", k, data)
		}
		delete(m, k)
	}
	if note, ok := m["scenario_note"]; ok {
		t.Fatalf("result JSON has no scenario file: %s", note)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// roundTripCases gives, per registered policy, the keys of a small valid
// scenario besides the common ones (servers 12, lambda 0.6, a short horizon,
// 2 replications, seed 7), chosen to exercise the policy's own keys and a
// few of the shared ones.
var roundTripCases = map[string]map[string]any{
	"compat-jsq":  {"compat": "block", "blocks": 2, "type_rates": []float64{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2}},
	"compat-jsqd": {"compat": "random", "server_degree": 3, "types": 6, "d": 2, "sampling": "with"},
	"jiq":         {"init": []float64{0.5, 0.25}, "engine": "occupancy"},
	"jiqd":        {"d": 3, "sampling": "without", "rates": []float64{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2}},
	"jsq":         {"service": "det", "discipline": "ps"},
	"jsqd":        {"d": 2, "grid": 5, "engine": "servers"},
	"jswd":        {"d": 3, "service": "erlang:k=2"},
	"nbrw-jsqd":   {"topology": "regular", "degree": 3, "d": 2, "walk": "srw", "steps": 2},
	"neighbour-jsq": {"topology": "ring", "degree": 2,
		"origin_weights": []float64{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 2}},
	"neighbour-jsq-first-idle": {"topology": "er", "degree": 3},
	"neighbour-jsqd":           {"topology": "regular", "degree": 3, "d": 2, "graph_seed": 11},
	"random":                   {"init_lengths": []int{3, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2}, "allow_unstable": true},
	"roundrobin":               {"service": "hyperexp:scv=4", "discipline": "lifo-pr"},
}

// roundTripCase returns the case of a policy: roundTripCases, else the
// example its registration gives (PolicyDef.Example).
func roundTripCase(policy string) (map[string]any, bool) {
	if c, ok := roundTripCases[policy]; ok {
		return c, true
	}
	return lbsim.PolicyExample(policy)
}

func roundTripKeys(policy string) map[string]any {
	keys := map[string]any{"servers": 12, "lambda": 0.6, "policy": policy, "horizon": 50, "replications": 2, "seed": 7}
	c, _ := roundTripCase(policy)
	maps.Copy(keys, c)
	return keys
}

// TestScenarioRoundTrip runs a scenario of every registered policy and
// checks that the result's scenario reproduces the result byte for byte,
// through its scenario file (json.Marshal, ParseScenario, Run) and directly
// (Run(ctx, res.Scenario)); that warmup 0 (none) survives the round trip;
// and that seed 0 is the default seed.
func TestScenarioRoundTrip(t *testing.T) {
	names := lbsim.PolicyNames()
	if len(names) == 0 {
		t.Fatal("no registered policies")
	}
	for _, name := range names {
		if _, ok := roundTripCase(name); !ok {
			t.Errorf("policy %s is registered without an Example and has no case in roundTripCases; add one", name)
		}
	}
	for name := range roundTripCases {
		if !slices.Contains(names, name) {
			t.Errorf("roundTripCases has a case for %s, which is not registered", name)
		}
	}
	for _, name := range names {
		if _, ok := roundTripCase(name); !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			res, err := runKeys(roundTripKeys(name))
			if err != nil {
				t.Fatal(err)
			}
			if res.Replications != 2 || len(res.PerReplication) != 2 {
				t.Fatalf("%d replications, want 2", res.Replications)
			}
			want := resultJSON(t, res)

			// Through the scenario file.
			file, again, err := roundTrip(res.Scenario)
			if err != nil {
				t.Fatalf("scenario file %s: %v", file, err)
			}
			if !bytes.Equal(file, again) {
				t.Errorf("scenario file\n%s\nparses to a scenario whose file is\n%s", file, again)
			}
			// The file states every key the case gives, with its value.
			gv := lbsim.Keys.New()
			for k, x := range roundTripKeys(name) {
				if err := gv.Set(k, x); err != nil {
					t.Fatal(err)
				}
			}
			fv, err := lbsim.Keys.DecodeJSON(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range gv.Present() {
				if !reflect.DeepEqual(gv.Get(k), fv.Get(k)) {
					t.Errorf("%s = %v, but the scenario file %s has %v", k, gv.Get(k), file, fv.Get(k))
				}
			}
			var inResult struct{ Scenario json.RawMessage }
			if err := json.Unmarshal(want, &inResult); err != nil || !bytes.Equal(inResult.Scenario, file) {
				t.Errorf("the result JSON's scenario %s is not the scenario file %s (%v)", inResult.Scenario, file, err)
			}
			sc, err := lbsim.ParseScenario(file)
			if err != nil {
				t.Fatalf("ParseScenario(%s): %v", file, err)
			}
			viaFile, err := lbsim.Run(ctx, sc)
			if err != nil {
				t.Fatalf("Run of the scenario file %s: %v", file, err)
			}
			if got := resultJSON(t, viaFile); !bytes.Equal(got, want) {
				t.Errorf("the scenario file %s reproduces\n%s\nnot\n%s", file, got, want)
			}

			// Directly.
			direct, err := lbsim.Run(ctx, res.Scenario)
			if err != nil {
				t.Fatalf("Run(ctx, res.Scenario): %v", err)
			}
			if got := resultJSON(t, direct); !bytes.Equal(got, want) {
				t.Errorf("Run(ctx, res.Scenario) gives\n%s\nnot\n%s", got, want)
			}

			// Seed 0 is the default seed: an absent seed, "seed": 0 and
			// Scenario.Seed 0 give the same run.
			keys := roundTripKeys(name)
			delete(keys, "seed")
			absent, err := runKeys(keys)
			if err != nil {
				t.Fatal(err)
			}
			keys["seed"] = 0
			zero, err := runKeys(keys)
			if err != nil {
				t.Fatal(err)
			}
			if a, z := resultJSON(t, absent), resultJSON(t, zero); !bytes.Equal(a, z) {
				t.Errorf("default seed gives\n%s\nseed 0 gives\n%s", a, z)
			}
			if absent.Scenario.Seed != 0 {
				t.Errorf("default seed %d, want 0", absent.Scenario.Seed)
			}
			sc, err = lbsim.ScenarioFromKeys(keys)
			if err != nil {
				t.Fatal(err)
			}
			sc.Seed = 0
			goZero, err := lbsim.Run(ctx, sc)
			if err != nil {
				t.Fatal(err)
			}
			if a, z := resultJSON(t, absent), resultJSON(t, goZero); !bytes.Equal(a, z) {
				t.Errorf("default seed gives\n%s\nScenario.Seed 0 gives\n%s", a, z)
			}
			if a, s7 := resultJSON(t, absent), want; bytes.Equal(a, s7) {
				t.Error("seed 0 and seed 7 gave the same run")
			}
		})
	}
}

// TestScenarioRoundTripNoWarmup checks that "warmup": 0 means no warm-up
// (NoWarmup in Go) through the scenario file and the result, and that it
// differs from the default warm-up (horizon/10), which an absent key and a
// zero Scenario.Warmup give.
func TestScenarioRoundTripNoWarmup(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"jsqd", "neighbour-jsqd", "jswd"} {
		keys := roundTripKeys(name)
		keys["warmup"] = 0
		res, err := runKeys(keys)
		if err != nil {
			t.Fatal(err)
		}
		if res.Scenario.Warmup != lbsim.NoWarmup {
			t.Errorf("%s: warmup 0 gives Scenario.Warmup %v, want NoWarmup", name, res.Scenario.Warmup)
		}
		want := resultJSON(t, res)
		file, again, err := roundTrip(res.Scenario)
		if err != nil || !bytes.Equal(file, again) {
			t.Fatalf("%s: scenario file %s round trip %v: %s", name, file, err, again)
		}
		var keysOut map[string]any
		if err := json.Unmarshal(file, &keysOut); err != nil || keysOut["warmup"] != 0.0 {
			t.Errorf("%s: scenario file %s: warmup %v, want 0 (%v)", name, file, keysOut["warmup"], err)
		}
		sc, err := lbsim.ParseScenario(file)
		if err != nil {
			t.Fatal(err)
		}
		for what, sc := range map[string]lbsim.Scenario{"the scenario file": sc, "res.Scenario": res.Scenario} {
			again, err := lbsim.Run(ctx, sc)
			if err != nil {
				t.Fatal(err)
			}
			if got := resultJSON(t, again); !bytes.Equal(got, want) {
				t.Errorf("%s: %s without warm-up gives\n%s\nnot\n%s", name, what, got, want)
			}
		}

		// The default warm-up is horizon/10, from an absent key or a zero
		// Scenario.Warmup, and differs from none.
		delete(keys, "warmup")
		def, err := runKeys(keys)
		if err != nil {
			t.Fatal(err)
		}
		if def.Scenario.Warmup != 5 {
			t.Errorf("%s: default warmup %v, want horizon/10 = 5", name, def.Scenario.Warmup)
		}
		sc.Warmup = 0
		goDef, err := lbsim.Run(ctx, sc)
		if err != nil {
			t.Fatal(err)
		}
		if d, g := resultJSON(t, def), resultJSON(t, goDef); !bytes.Equal(d, g) {
			t.Errorf("%s: absent warmup gives\n%s\nScenario.Warmup 0 gives\n%s", name, d, g)
		}
		if bytes.Equal(resultJSON(t, def), want) {
			t.Errorf("%s: no warm-up and the default warm-up gave the same result", name)
		}
	}
}
