package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/param"
)

func TestRegisterRefuses(t *testing.T) {
	run := func(context.Context, *param.Values, int, func(float64)) (*Outcome, error) { return &Outcome{}, nil }
	keys := param.NewSet("m", "")
	keys.Add(param.Key{Name: KeySeed, Kind: param.Uint, Doc: "seed"})
	if err := Register(&Model{Name: "model-test-a", Keys: keys, Run: run}); err == nil ||
		!strings.Contains(err.Error(), `"replications"`) {
		t.Errorf("a model without replications: %v", err)
	}
	keys.Add(param.Key{Name: KeyReplications, Kind: param.Int, Doc: "replications"})
	if err := Register(&Model{Name: "model-test-a", Keys: keys, Run: run}); err != nil {
		t.Fatal(err)
	}
	if err := Register(&Model{Name: "model-test-a", Keys: keys, Run: run}); err == nil {
		t.Error("a name registered twice")
	}
	if m, err := Lookup("model-test-a"); err != nil || m.Name != "model-test-a" {
		t.Errorf("Lookup: %v, %v", m, err)
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "model-test-a") {
		t.Errorf("Lookup of an unknown model: %v", err)
	}
}

// Figures are formatted once, in the shortest form that reads back exactly.
func TestFigureFormat(t *testing.T) {
	a, b := 0.1, 0.2
	f := FloatCI("x", a+b, math.NaN())
	if f.Value != "0.30000000000000004" || *f.CI95 != "NaN" {
		t.Errorf("FloatCI: %+v", f)
	}
	if Int("n", 1<<53+1).Value != "9007199254740993" {
		t.Error("Int loses digits")
	}
	v := Vector("q", []float64{1, 0.5}, nil, 0)
	if !v.IsVector() || v.Pad != "0" || v.VectorCI95 != nil || len(v.Vector) != 2 {
		t.Errorf("Vector: %+v", v)
	}
	if Text("e", "servers").IsVector() {
		t.Error("Text is not a vector")
	}
}
