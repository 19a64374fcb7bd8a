package model

import (
	"context"
	"encoding/json"
	"fmt"
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

// The shared rates key: its values go through CheckRates in Complete, which
// names the bad item, the count or nothing; absent, there is no value (all 1).
func TestRatesKey(t *testing.T) {
	keys := param.NewSet("m", "")
	keys.Add(param.Key{Name: KeyServers, Kind: param.Int, Doc: "servers"}, RatesKey("more"))
	if doc := keys.Key(KeyRates).Doc; !strings.HasSuffix(doc, `"" for the default; more`) {
		t.Errorf("doc %q", doc)
	}
	for _, c := range []struct {
		rates any
		want  string
	}{
		{"1x3", "got 3 values, want one per server (4)"},
		{"1x3,0", "rates[3] = 0: must be a finite rate > 0"},
		{"1,-2,1,1", "rates[1] = -2: must be a finite rate > 0"},
		{"1x3,NaN", "rates[3] = NaN: must be a finite rate > 0"},
		{"1x3,Inf", "rates[3] = +Inf: must be a finite rate > 0"},
		{"0.5x2,1.5x2", ""},
		{nil, ""},
	} {
		v := keys.New()
		if err := v.Set(KeyServers, 4); err != nil {
			t.Fatal(err)
		}
		if c.rates != nil {
			x, err := param.ParseFlag(param.Floats, c.rates.(string))
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Set(KeyRates, x); err != nil {
				t.Fatal(err)
			}
		}
		err := keys.Complete(v)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("rates %v: %v, want %q", c.rates, err, c.want)
		}
		if c.rates == nil && v.Has(KeyRates) {
			t.Errorf("absent rates got the value %v", v.Get(KeyRates))
		}
	}
}

// FigureOf reads a figure by the json key of its field, as the explicit
// constructors would write it, with the half-width of KEY_ci95 where the
// struct has one; Named and Padded rename and pad it; a key with no field
// panics.
func TestFigureOf(t *testing.T) {
	type engine string
	r := &struct {
		N       int64     `json:"n"`
		Kind    engine    `json:"kind"`
		Mean    float64   `json:"mean"`
		MeanCI  float64   `json:"mean_ci95"`
		Plain   float64   `json:"plain,omitempty"`
		Occ     []float64 `json:"occupancy"`
		OccCI   []float64 `json:"occupancy_ci95"`
		Bare    []float64 `json:"bare"`
		Ignored float64   `json:"-"`
	}{N: 3, Kind: "fast", Mean: 1.5, MeanCI: math.NaN(), Plain: 0.25, Occ: []float64{0.5, 0.25}, OccCI: []float64{0.1, 0.2},
		Bare: []float64{1}}
	got := FiguresOf(r, "n", "kind", "mean", "plain", "occupancy", "bare")
	got = append(got, FigureOf(r, "occupancy").Named("q"), FigureOf(r, "bare").Padded(math.NaN()))
	want := []Figure{Int("n", 3), Text("kind", "fast"), FloatCI("mean", 1.5, math.NaN()), Float("plain", 0.25),
		Vector("occupancy", r.Occ, r.OccCI, 0), Vector("bare", r.Bare, nil, 0), Vector("q", r.Occ, r.OccCI, 0),
		Vector("bare", r.Bare, nil, math.NaN())}
	if a, b := fmt.Sprint(figureJSON(got)), fmt.Sprint(figureJSON(want)); a != b {
		t.Errorf("FiguresOf:\n%s\nwant\n%s", a, b)
	}
	for _, key := range []string{"missing", "Ignored", "mean_ci95x"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("FigureOf(%q) did not panic", key)
				}
			}()
			FigureOf(r, key)
		}()
	}
}

func figureJSON(figs []Figure) string {
	b, err := json.Marshal(figs)
	if err != nil {
		panic(err)
	}
	return string(b)
}
