package lbsim_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
)

// FuzzParseSpec checks that ParseScenario never panics and that a scenario
// it accepts marshals to a scenario file that keeps every key the input
// gives and parses again to a scenario marshalling to the same bytes. (The name keeps the corpus in
// testdata/fuzz/FuzzParseSpec.)
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		// Valid.
		`{"servers": 1000, "lambda": 0.9, "policy": "jsqd", "d": 2}`,
		`{"servers": 2, "lambda": 0.5, "policy": "jsq"}`,
		`{"servers": 3, "lambda": 0.5, "policy": "jsqd", "d": 3, "sampling": "with", "horizon": 50, "warmup": 0,
		  "replications": 4, "seed": 18446744073709551615, "engine": "servers", "grid": 0.5}`,
		`{"servers": 4, "lambda": 0.7, "policy": "random", "rates": [0.5, 0.5, 1.5, 1.5],
		  "origin_weights": [1, 0, 0, 0], "init_lengths": [3, 0, 0, 1]}`,
		`{"servers": 10, "lambda": 2, "policy": "jiq", "allow_unstable": true, "init": [1, 0.5, 0.25], "warmup": null}`,
		`{"servers": 5, "lambda": 0.5, "policy": "roundrobin", "engine": "auto", "horizon": 1e-3, "warmup": 1e-4}`,
		`{"servers": 7, "lambda": 0.5, "policy": "jiqd", "d": 7, "sampling": "without"}`,
		`{"servers": 20, "lambda": 0.5, "policy": "neighbour-jsq", "topology": "er", "degree": 3.5}`,
		`{"servers": 16, "lambda": 0.5, "policy": "neighbour-jsqd", "d": 3, "topology": "regular", "degree": 3, "graph_seed": 4}`,
		`{"servers": 20, "lambda": 0.5, "policy": "neighbour-jsq", "topology": "ring", "degree": 4}`,
		// Invalid.
		``,
		`null`,
		`[]`,
		`{}`,
		`{"servers": 0, "lambda": 0.5, "policy": "jsq"}`,
		`{"servers": 10, "lambda": 1.5, "policy": "jsq"}`,
		`{"servers": 10, "lambda": 0.5, "policy": "jsqd", "d": 11}`,
		`{"servers": 10, "lambda": 0.5, "policy": "jsq", "horizon": 10, "warmup": 10}`,
		`{"servers": 10, "lambda": 0.5, "policy": "jsq", "horizon": -10}`,
		`{"servers": 2, "lambda": 0.5, "policy": "jsq", "rates": [1, -1]}`,
		`{"servers": 2, "lambda": 0.5, "policy": "jsq", "init": [0.5, 0.7]}`,
		`{"servers": 2, "lambda": 0.5, "policy": "nope"}`,
		`{"servers": 2, "lambda": 0.5, "policy": "jsq", "colour": "red"}`,
		`{"servers": 2, "lambda": 0.5, "policy": "jsq"} {}`,
		`{"servers": 2.5, "lambda": 0.5, "policy": "jsq"}`,
		`{"servers": 2, "lambda": "0.5", "policy": "jsq"}`,
		`{"servers": 2, "lambda": 0.5, "policy": "jsq", "engine": "occupancy", "init_lengths": [1, 1]}`,
		`{"servers": 20, "lambda": 0.5, "policy": "neighbour-jsq", "topology": "regular", "degree": 2.5}`,
		`{"servers": 20, "lambda": 0.5, "policy": "jsqd", "topology": "ring", "degree": 2}`,
		`{"servers": 16, "lambda": 0.5, "policy": "neighbour-jsqd", "d": 3, "topology": "torus", "graph_seed": 4}`, // a torus is not random
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := lbsim.ParseScenario(data)
		if err != nil {
			return
		}
		file, err := json.Marshal(sc)
		if err != nil {
			t.Fatalf("ParseScenario accepted %q, but the scenario does not marshal: %v", data, err)
		}
		sc2, err := lbsim.ParseScenario(file)
		if err != nil {
			t.Fatalf("ParseScenario accepted %q, but not its scenario file %s: %v", data, file, err)
		}
		again, err := json.Marshal(sc2)
		if err != nil {
			t.Fatalf("the scenario file %s of %q parses, but its scenario does not marshal: %v", file, data, err)
		}
		if !bytes.Equal(file, again) {
			t.Fatalf("ParseScenario(%q) marshals to\n%s\nbut after a round trip to\n%s", data, file, again)
		}
		// The file keeps every key the input gives, with its value.
		given, err := lbsim.Keys.DecodeJSON(data)
		if err != nil {
			t.Fatalf("ParseScenario accepted %q, but DecodeJSON fails: %v", data, err)
		}
		written, err := lbsim.Keys.DecodeJSON(file)
		if err != nil {
			t.Fatalf("the scenario file %s of %q does not decode: %v", file, data, err)
		}
		for _, name := range given.Present() {
			if !reflect.DeepEqual(given.Get(name), written.Get(name)) {
				t.Fatalf("ParseScenario(%q): %s = %v, but the scenario file %s has %v", data, name,
					given.Get(name), file, written.Get(name))
			}
		}
	})
}
