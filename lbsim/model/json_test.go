package model

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

type inner struct {
	X float64 `json:"x"`
}

func (i inner) MarshalJSON() ([]byte, error) { return MarshalObject(i) }

type sample struct {
	N      int       `json:"n"`
	Mean   float64   `json:"mean"`
	CI95   float64   `json:"mean_ci95"`
	Q      []float64 `json:"q"`
	None   []float64 `json:"none"`
	Skip   float64   `json:"-"`
	Plain  string
	Nested []inner `json:"nested"`
	hidden float64
}

// MarshalObject writes the fields in order under their tags, NaN and
// infinities as null (also in nested results), then the extra fields; its
// output is what encoding/json writes for the same object without NaNs.
func TestMarshalObject(t *testing.T) {
	s := sample{N: 3, Mean: 1.5, CI95: math.NaN(), Q: []float64{0.5, math.Inf(1)}, Skip: 7, Plain: "a<b",
		Nested: []inner{{X: math.NaN()}, {X: 2}}, hidden: 1}
	got, err := MarshalObject(&s, Field{Key: "extra", Value: math.NaN()}, Field{Key: "k", Value: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"n":3,"mean":1.5,"mean_ci95":null,"q":[0.5,null],"none":null,"Plain":"a\u003cb","nested":[{"x":null},{"x":2}],"extra":null,"k":[1]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	finite := struct {
		A float64   `json:"a"`
		B []float64 `json:"b"`
		C string    `json:"c"`
	}{0.1, []float64{1e-300, 3}, "x&y"}
	mine, _ := MarshalObject(finite)
	std, _ := json.Marshal(finite)
	if string(mine) != string(std) {
		t.Errorf("MarshalObject %s, encoding/json %s", mine, std)
	}
}

// omitempty leaves out what encoding/json leaves out (0, -0, false, "", nil
// and empty slices) and keeps NaN as null; an extra field with a field's key
// takes its place, even where the field is empty, and the others follow.
func TestMarshalObjectOmitemptyAndPlaced(t *testing.T) {
	type opt struct {
		A int       `json:"a,omitempty"`
		B float64   `json:"b,omitempty"`
		C []float64 `json:"c,omitempty"`
		D string    `json:"d,omitempty"`
		E bool      `json:"e,omitempty"`
		F *int      `json:"f,omitempty"`
		G float64   `json:"g"`
	}
	one := 1
	for _, v := range []opt{{}, {B: math.Copysign(0, -1), C: []float64{}}, {A: 2, B: 0.5, C: []float64{1}, D: "x", E: true, F: &one, G: 3}} {
		mine, err := MarshalObject(v)
		if err != nil {
			t.Fatal(err)
		}
		std, _ := json.Marshal(v)
		if string(mine) != string(std) {
			t.Errorf("MarshalObject %s, encoding/json %s", mine, std)
		}
	}
	got, _ := MarshalObject(opt{B: math.NaN()})
	if want := `{"b":null,"g":0}`; string(got) != want {
		t.Errorf("NaN under omitempty: got %s, want %s", got, want)
	}
	got, err := MarshalObject(opt{G: 1}, Field{Key: "z", Value: 9}, Field{Key: "c", Value: []string{"p"}}, Field{Key: "g", Value: math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"c":["p"],"g":null,"z":9}`; string(got) != want {
		t.Errorf("placed extras: got %s, want %s", got, want)
	}
}

// MarshalSorted writes the same keys and values as MarshalObject, sorted as
// encoding/json sorts a map's keys.
func TestMarshalSorted(t *testing.T) {
	s := sample{N: 3, Mean: 1.5, CI95: math.NaN(), Q: []float64{0.5}, Plain: "p", Nested: []inner{{X: 1}}}
	got, err := MarshalSorted(&s, Field{Key: "a_extra", Value: 2}, Field{Key: "mean", Value: "placed"})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{"n": 3, "mean": "placed", "mean_ci95": nil, "q": []float64{0.5}, "none": nil, "Plain": "p",
		"nested": []inner{{X: 1}}, "a_extra": 2}
	want, _ := json.Marshal(m)
	if string(got) != string(want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// UnmarshalObject reads back what MarshalObject writes: null as NaN in
// floats and in lists of floats, nested values by their own decoding,
// absent and "-" fields zero, unknown keys ignored; a value of the wrong
// type is an error naming the key.
func TestUnmarshalObject(t *testing.T) {
	s := sample{N: 3, Mean: 1.5, CI95: math.NaN(), Q: []float64{0.5, math.NaN()}, Skip: 7, Plain: "p",
		Nested: []inner{{X: 2}}, hidden: 1}
	b, err := MarshalObject(&s, Field{Key: "unknown", Value: 1})
	if err != nil {
		t.Fatal(err)
	}
	back := sample{Skip: 9, hidden: 2} // zeroed first
	if err := UnmarshalObject(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.N != 3 || back.Mean != 1.5 || !math.IsNaN(back.CI95) || len(back.Q) != 2 || back.Q[0] != 0.5 ||
		!math.IsNaN(back.Q[1]) || back.None != nil || back.Skip != 0 || back.Plain != "p" || len(back.Nested) != 1 ||
		back.Nested[0].X != 2 || back.hidden != 0 {
		t.Errorf("read back %+v from %s", back, b)
	}
	if err := UnmarshalObject([]byte(`{"n": "three"}`), &back); err == nil || !strings.Contains(err.Error(), "n:") {
		t.Errorf("a string for an int: %v, want an error naming n", err)
	}
}
