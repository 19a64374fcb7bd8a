package param

import (
	"bytes"
	"flag"
	"strings"
	"testing"
)

// testSet is a small model with a variant key: shape "square" takes side,
// "rect" takes side and ratio; area defaults from side.
func testSet() *Set {
	s := NewSet("test", "shape")
	s.Add(
		Key{Name: "n", Kind: Int, Arg: "N", Required: true, Range: "an integer >= 1", Doc: "count", Check: IntAtLeast(1)},
		Key{Name: "shape", Kind: String, Enum: []string{"square", "rect", "dot"}, Doc: "the shape"},
		Key{Name: "side", Kind: Float, For: []string{}, Default: Constant(1.0), DefaultDoc: "1", Doc: "side",
			Check: Positive("length")},
		Key{Name: "ratio", Kind: Float, For: []string{"rect"}, Doc: "ratio", Default: Constant(2.0)},
		Key{Name: "area", Kind: Float, Doc: "area", Tags: []string{SimulationOnly},
			Default: func(v *Values) (any, bool) { return v.Float("side") * v.Float("side"), v.Has("side") }},
		Key{Name: "seed", Kind: Uint, Doc: "seed", Default: Constant(uint64(0))},
		Key{Name: "xs", Kind: Floats, Doc: "list"},
	)
	s.Use("square", "side")
	s.Use("rect", "side", "ratio")
	return s
}

func complete(t *testing.T, s *Set, json string) (*Values, error) {
	t.Helper()
	v, err := s.DecodeJSON([]byte(json))
	if err != nil {
		return nil, err
	}
	return v, s.Complete(v)
}

func TestCompleteDefaultsAndVariants(t *testing.T) {
	s := testSet()
	v, err := complete(t, s, `{"n": 3, "shape": "rect", "side": 2}`)
	if err != nil {
		t.Fatal(err)
	}
	if v.Float("ratio") != 2 || v.Float("area") != 4 || v.Uint("seed") != 0 {
		t.Errorf("defaults: %v", v.Map())
	}
	out, _ := v.MarshalJSON()
	if want := `{"n":3,"shape":"rect","side":2,"ratio":2,"area":4,"seed":0}`; string(out) != want {
		t.Errorf("JSON %s, want %s (declaration order, defaults filled)", out, want)
	}
	// A variant gets the defaults of the keys it uses, and no others.
	v, err = complete(t, s, `{"n": 3, "shape": "dot"}`)
	if err != nil || v.Has("side") || v.Has("ratio") || v.Has("area") {
		t.Errorf("dot: %v, %v", v.Map(), err)
	}
	for in, want := range map[string]string{
		`{"shape": "square"}`: `n: missing; give --n N (an integer >= 1) or "n" in the scenario file`,
		`{"n": 0}`:            `n = 0: must be at least 1`,
		`{"n": 1, "shape": "square", "ratio": 3}`: `ratio = 3: shape square takes no ratio`,
		`{"n": 1, "side": 3}`:                     `side = 3: only shape square, rect take side`,
		`{"n": 1, "shape": "circle"}`:             `shape = "circle": must be one of square, rect, dot`,
		`{"n": 1, "shape": "square", "side": -1}`: `side = -1: must be a finite length > 0`,
		`{"n": 1.5}`:               `n: 1.5: want an integer`,
		`{"n": "1"}`:               `n: got a JSON string, want an integer`,
		`{"n": 1, "colour": 1}`:    `unknown key "colour"`,
		`{"n": 1} {}`:              `trailing data`,
		`{"n": 1, "xs": [1, "a"]}`: `xs: item 1: got a JSON string, want a number`,
		`{"n": 1, "seed": -1}`:     `seed: -1: want an integer in [0, 2^64-1]`,
	} {
		if _, err := complete(t, s, in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
	// Integers written like 1e6, seeds to 2^64-1, null as absent, empty
	// lists as absent.
	v, err = complete(t, s, `{"n": 1e6, "seed": 18446744073709551615, "shape": null, "xs": []}`)
	if err != nil || v.Int("n") != 1e6 || v.Uint("seed") != 1<<64-1 || v.Has("shape") || v.Has("xs") {
		t.Errorf("%v, %v", v, err)
	}
}

// A key that the completed scenario does not use (Key.Unused) is refused
// when the user gave it, and only then: not at its default (filled in, or
// given again as in a printed scenario fed back), not when set by the layer
// running the point (SetImplied).
func TestUnusedKeys(t *testing.T) {
	s := NewSet("test", "")
	unless := func(v *Values) string {
		if !v.Bool("simulate") {
			return "unused without simulate"
		}
		return ""
	}
	s.Add(
		Key{Name: "simulate", Kind: Bool, Doc: "simulate", Default: Constant(false)},
		Key{Name: "horizon", Kind: Float, Doc: "horizon", Default: Constant(10.0), Unused: unless},
		Key{Name: "warmup", Kind: Float, Doc: "warmup", Unused: unless,
			Default: func(v *Values) (any, bool) { return v.Float("horizon") / 10, true }},
		Key{Name: "seed", Kind: Uint, Doc: "seed", Default: Constant(uint64(0)), Unused: unless},
	)
	for in, want := range map[string]string{
		`{}`: "",
		`{"horizon": 10, "warmup": 1, "seed": 0}`:     "", // the defaults, given again
		`{"simulate": true, "horizon": 5, "seed": 3}`: "",
		`{"horizon": 5}`:               "horizon = 5: unused without simulate",
		`{"seed": 3}`:                  "seed = 3: unused without simulate",
		`{"horizon": 10, "warmup": 2}`: "warmup = 2: unused without simulate",
	} {
		_, err := complete(t, s, in)
		if (want == "") != (err == nil) || err != nil && err.Error() != want {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
	v := s.New()
	if err := v.SetImplied("seed", uint64(7)); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(v); err != nil || v.Given("seed") || v.Given("horizon") || !v.Has("horizon") {
		t.Errorf("a seed set by SetImplied: %v; Given(seed) = %v, Given(horizon) = %v", err, v.Given("seed"), v.Given("horizon"))
	}
	if c := v.Clone(); c.Given("seed") {
		t.Error("Clone lost what was implied")
	}
	if err := v.Set("seed", uint64(7)); err != nil || !v.Given("seed") || s.Complete(v) == nil {
		t.Errorf("seed set again by Set: given %v, Complete accepted it", v.Given("seed"))
	}
}

func TestFlagsOverrideAndHelp(t *testing.T) {
	s := testSet()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	v := s.New()
	s.Bind(fs, v, func(k *Key) bool { return !k.HasTag(SimulationOnly) })
	if err := fs.Parse([]string{"--n", "2e3", "--shape", "square", "--xs", "1x2,3"}); err != nil {
		t.Fatal(err)
	}
	if fs.Lookup("area") != nil {
		t.Error("a filtered key got a flag")
	}
	if v.Int("n") != 2000 || v.String("shape") != "square" || len(v.Floats("xs")) != 3 || v.Has("side") {
		t.Errorf("flags: %v", v.Map())
	}
	var help, table bytes.Buffer
	s.PrintFlags(&help, nil)
	s.MarkdownTable(&table, nil)
	for _, want := range []string{"--n N", "count (an integer >= 1; required)", "side (default 1; shape square, rect)"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, help.String())
		}
	}
	if !strings.Contains(table.String(), "| `ratio` | `--ratio` | number | none | ratio; shape rect |") {
		t.Errorf("table:\n%s", table.String())
	}
}

func TestDeclarationsChecked(t *testing.T) {
	for name, f := range map[string]func(){
		"duplicate": func() { s := testSet(); s.Add(Key{Name: "n", Kind: Int, Doc: "again"}) },
		"no doc":    func() { NewSet("x", "").Add(Key{Name: "a", Kind: Int}) },
		"use":       func() { testSet().Use("square", "nope") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
