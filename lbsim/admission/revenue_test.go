package admission

import (
	"math"
	"strings"
	"testing"
)

func TestParseRevenue(t *testing.T) {
	for spec, want := range map[string]Revenue{
		"linear:a=1,b=1":           Linear{A: 1, B: 1},
		"linear":                   Linear{A: 1, B: 1},
		" exponential:b=2.5, a=0 ": Exponential{A: 0, B: 2.5},
		"linear:a=0.5":             Linear{A: 0.5, B: 1},
	} {
		got, err := ParseRevenue(spec)
		if err != nil || got != want {
			t.Errorf("%q: got %v, %v; want %v", spec, got, err, want)
		}
		if again, err := ParseRevenue(got.(interface{ String() string }).String()); err != nil || again != got {
			t.Errorf("%q: String does not round-trip: %v, %v", spec, again, err)
		}
	}
	for spec, msg := range map[string]string{
		"quadratic:a=1":      `family "quadratic": unknown`,
		"linear:a=-1,b=1":    "a = -1: must be a finite number >= 0",
		"linear:a=1,b=inf":   "b = inf: must be a finite number >= 0",
		"linear:a=1,b=NaN":   "b = NaN",
		"linear:a=1,c=2":     `parameter "c": unknown`,
		"linear:a=1,a=2":     "parameter a: given twice",
		"exponential:a":      `parameter "a": want name=value`,
		"exponential:a=x,b=": "a = x: must be",
	} {
		if _, err := ParseRevenue(spec); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: got %v, want %q", spec, err, msg)
		}
	}
}

func TestCheckRevenue(t *testing.T) {
	for _, r := range []Revenue{Linear{A: 1, B: 1}, Linear{}, Exponential{A: 3, B: 0.1},
		Func(func(x float64) float64 { return -math.Abs(x) })} {
		if err := CheckRevenue(r); err != nil {
			t.Errorf("%v: %v", r, err)
		}
	}
	for msg, r := range map[string]Revenue{
		"the maximum must be at 0":    Func(func(x float64) float64 { return -(x - 1) * (x - 1) }),
		"nonincreasing above 0":       Func(func(x float64) float64 { return -math.Abs(math.Sin(math.Max(x, 0))) + math.Min(x, 0) }),
		"nondecreasing below 0":       Func(func(x float64) float64 { return math.Min(0, math.Cos(x)) }),
		"r(0) = NaN: must be finite":  Func(func(x float64) float64 { return math.NaN() }),
		"r(0) = +Inf: must be finite": Func(func(x float64) float64 { return math.Inf(1) }),
		"is NaN":                      Func(func(x float64) float64 { return math.Sqrt(1-x) - 1 - math.Abs(x) }),
		"revenue: nil":                nil,
	} {
		if err := CheckRevenue(r); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v", msg, err)
		}
	}
}
