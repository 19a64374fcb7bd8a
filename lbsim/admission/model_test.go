package admission

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/modeltest"
	"github.com/lbsim/notebooks/lbsim/model"
)

func figureMap(figs []model.Figure) map[string]model.Figure {
	m := map[string]model.Figure{}
	for _, f := range figs {
		m[f.Name] = f
	}
	return m
}

// The registered model runs a point: its figures are those of the package
// functions, its curve those of RevenueCurve, its simulation within 4
// half-widths of the exact revenue.
func TestModelThroughRegistry(t *testing.T) {
	m, err := model.Lookup("admission")
	if err != nil {
		t.Fatal(err)
	}
	v := m.Keys.New()
	for k, x := range map[string]any{"servers": 100, "beta": 0.5, "revenue": "exponential:a=1,b=2",
		"thresholds": "2:6", "simulate": true, "horizon": 1100.0, "warmup": 100.0} {
		if err := v.Set(k, x); err != nil {
			t.Fatal(err)
		}
	}
	v, err = m.Point(v, 3, 6)
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.Run(context.Background(), v, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	figs := figureMap(out.Figures)
	sys, r := System{Servers: 100, Beta: 0.5}, Exponential{A: 1, B: 2}
	opt, _ := sys.OptimalThreshold(r)
	lim, _ := Limit{Beta: 0.5}.OptimalEta(r)
	lower, upper, _ := Limit{Beta: 0.5}.EtaBounds(r)
	if !(lower < lim.Eta && lim.Eta < upper) {
		t.Errorf("bounds [%v, %v] miss eta* = %v", lower, upper, lim.Eta)
	}
	for name, want := range map[string]string{
		"optimal_threshold": model.Int("", int64(opt.Threshold)).Value,
		"threshold_scaled":  model.FormatFloat(float64(opt.Threshold) / 10),
		"revenue":           model.FormatFloat(opt.Revenue),
		"eta_limit":         model.FormatFloat(lim.Eta),
		"revenue_limit":     model.FormatFloat(lim.Revenue),
		"eta_lower_bound":   model.FormatFloat(lower),
		"eta_upper_bound":   model.FormatFloat(upper),
	} {
		if figs[name].Value != want {
			t.Errorf("%s = %q, want %q", name, figs[name].Value, want)
		}
	}
	curve, _ := sys.RevenueCurve(r, 2, 6)
	if got := figs["revenue_curve"].Vector; len(got) != 5 || got[0] != model.FormatFloat(curve[0]) || got[4] != model.FormatFloat(curve[4]) {
		t.Errorf("revenue_curve = %v, want %v", got, curve)
	}
	sim := figs["simulated_revenue"]
	if sim.CI95 == nil {
		t.Fatal("simulated_revenue has no half-width")
	}
	res := out.Result.(*Result)
	if d := math.Abs(res.Simulation.Revenue - opt.Revenue); !(d <= 4*res.Simulation.RevenueCI95) {
		t.Errorf("simulated %v ± %v, exact %v", res.Simulation.Revenue, res.Simulation.RevenueCI95, opt.Revenue)
	}
	if len(out.PerReplication) != 6 {
		t.Errorf("%d replications of figures, want 6", len(out.PerReplication))
	}
}

// Bad input is an error naming the key, from Complete or Validate (so the
// command line exits with 2 before running anything).
func TestModelErrors(t *testing.T) {
	m, _ := model.Lookup("admission")
	for _, c := range []struct {
		set  map[string]any
		want string
	}{
		{map[string]any{"servers": 0, "beta": 0.5}, "servers = 0: must be at least 1"},
		{map[string]any{"beta": 0.5}, "servers: missing"},
		{map[string]any{"servers": 4, "beta": 2.0}, "beta = 2: the arrival rate"},
		{map[string]any{"servers": 400, "beta": 31.0}, "beta = 31: must be a finite number in [-30, 30]"},
		{map[string]any{"servers": 4, "beta": 0.5, "revenue": "cubic"}, `revenue = "cubic": family "cubic": unknown`},
		{map[string]any{"servers": 4, "beta": 0.5, "revenue": "linear:a=1,b=-2"}, `revenue = "linear:a=1,b=-2": b = -2: must be`},
		{map[string]any{"servers": 4, "beta": 0.5, "revenue": "exponential:a=1,b=0"}, "b = 0 gives no finite optimal threshold"},
		{map[string]any{"servers": 4, "beta": 0.5, "revenue": "linear:a=0,b=0"}, "a = b = 0 makes the revenue rate constant"},
		{map[string]any{"servers": 4, "beta": 0.5, "thresholds": "3"}, `thresholds = "3": want LO:HI`},
		{map[string]any{"servers": 2_000_000, "beta": 0.5, "simulate": true}, "servers = 2000000: simulate takes at most"},
		// Found by solving the point: no optimum within MaxThreshold, figures that overflow.
		{map[string]any{"servers": 100, "beta": 0.5, "revenue": "linear:a=1,b=1e-300"}, `revenue = "linear:a=1,b=1e-300": no finite optimal threshold`},
		{map[string]any{"servers": 100, "beta": 0.5, "revenue": "linear:a=1e308,b=1e308"}, "the figure revenue is -Inf"},
		{map[string]any{"servers": 100, "beta": 0.5, "simulate": true, "horizon": 20.0, "seed": uint64(3)}, ""},
	} {
		v := m.Keys.New()
		for k, x := range c.set {
			if err := v.Set(k, x); err != nil {
				t.Fatal(err)
			}
		}
		_, err := m.Point(v, 0, 1)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: got %v, want %q", c.set, err, c.want)
		}
	}
}

// Roots below the absolute tolerance EtaTolerance are resolved relative to
// themselves, and the bounds hold around them: at b = 10^12 and 10^30 eta*
// is about 1e-12 and 1e-30 (the closed form at beta = 0), where bisection to
// the absolute tolerance gave 2^-34 = 5.8e-11 for all three figures; at a = 0
// eta* = 0 and the bounds were 5.8e-11, above it.
func TestTinyOptimum(t *testing.T) {
	for _, b := range []float64{1e12, 1e30} {
		got, err := Limit{Beta: 0}.OptimalEta(Linear{A: 1, B: b})
		if err != nil {
			t.Fatal(err)
		}
		// LinearEtaBetaZero's (-1 + sqrt(1 + 8 (a/b) phi^2))/(2 phi), rationalised
		// (it cancels to 0 at b = 10^30).
		p := normPDF(0)
		if want := 4 * p / b / (1 + math.Sqrt(1+8*p*p/b)); !(math.Abs(got.Eta-want) <= 1e-9*want) {
			t.Errorf("b = %g: eta* = %v, want %v (closed form) to 1e-9 relative", b, got.Eta, want)
		}
	}
	for _, law := range []string{"linear:a=1,b=1e12", "linear:a=1,b=1e30", "linear:a=0,b=1", "exponential:a=0,b=3", "exponential:a=2,b=1e15"} {
		v := Model.Keys.New()
		for k, x := range map[string]any{"servers": 100, "beta": 0.5, "revenue": law} {
			if err := v.Set(k, x); err != nil {
				t.Fatal(err)
			}
		}
		v, err := Model.Point(v, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		res, err := solve(v)
		if err != nil {
			t.Fatal(err)
		}
		if !(res.EtaLower <= res.EtaLimit && res.EtaLimit <= res.etaUpper) || res.EtaLimit == 0x1p-34 {
			t.Errorf("%s: bounds %v <= eta* = %v <= %v do not hold, or eta* is the tolerance's 2^-34", law, res.EtaLower, res.EtaLimit, res.etaUpper)
		}
	}
}

// The figures of a point (a sweep's columns) are byte for byte what they
// were (testdata/figures.json, written before the figures were read by the
// keys of their fields): the optimum alone, with a revenue curve, and with a
// simulation of one replication and of several.
func TestFiguresBytes(t *testing.T) {
	var values []any
	for _, p := range []struct {
		keys map[string]any
		reps int
	}{
		{map[string]any{"servers": 100, "beta": 0.5}, 1},
		{map[string]any{"servers": 400, "beta": -0.5, "revenue": "exponential:a=1,b=2", "thresholds": "0:8"}, 1},
		{map[string]any{"servers": 50, "beta": 0.3, "simulate": true, "horizon": 200.0}, 1},
		{map[string]any{"servers": 50, "beta": 0.3, "simulate": true, "horizon": 200.0}, 3},
	} {
		_, out, err := modeltest.Point(t, "admission", p.keys, 9, p.reps, 1)
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, out.Figures)
	}
	modeltest.JSONBytes(t, "testdata/figures.json", values...)
}
