package admission

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A Revenue is a revenue function r on the QED scale: in state k (tasks
// present) of a system with s servers the system earns revenue at rate
// r((k-s)/sqrt(s)). It must have its maximum at 0 and be unimodal:
// nondecreasing on (-∞, 0] and nonincreasing on [0, ∞) (CheckRevenue
// samples this). Unimodality is what makes the optimal policy a threshold
// s + tau with tau >= 0 found by a forward scan (see OptimalThreshold and
// doc.go).
type Revenue interface {
	// At returns r(x).
	At(x float64) float64
}

// Func is a Go function used as a Revenue.
type Func func(x float64) float64

// At returns f(x).
func (f Func) At(x float64) float64 { return f(x) }

// Linear is r(x) = 1 + A x for x <= 0 and 1 - B x for x > 0 (A, B >= 0).
type Linear struct{ A, B float64 }

// At returns r(x).
func (l Linear) At(x float64) float64 {
	if x <= 0 {
		return 1 + l.A*x
	}
	return 1 - l.B*x
}

// String returns the spec of l, as ParseRevenue reads it.
func (l Linear) String() string { return "linear:a=" + fmtParam(l.A) + ",b=" + fmtParam(l.B) }

// Exponential is r(x) = exp(A x) for x <= 0 and exp(-B x) for x > 0
// (A, B >= 0).
type Exponential struct{ A, B float64 }

// At returns r(x).
func (e Exponential) At(x float64) float64 {
	if x <= 0 {
		return math.Exp(e.A * x)
	}
	return math.Exp(-e.B * x)
}

// String returns the spec of e, as ParseRevenue reads it.
func (e Exponential) String() string {
	return "exponential:a=" + fmtParam(e.A) + ",b=" + fmtParam(e.B)
}

func fmtParam(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Families lists the revenue families ParseRevenue reads.
var Families = []string{"linear", "exponential"}

// ParseRevenue reads a revenue law "family:a=A,b=B" with family linear or
// exponential and finite A, B >= 0 (each defaults to 1 when omitted;
// "linear" alone is linear:a=1,b=1). Errors name the bad part.
func ParseRevenue(spec string) (Revenue, error) {
	family, params, _ := strings.Cut(strings.TrimSpace(spec), ":")
	if family != "linear" && family != "exponential" {
		return nil, fmt.Errorf("family %q: unknown; must be one of %s (as in linear:a=1,b=1)", family,
			strings.Join(Families, ", "))
	}
	a, b := 1.0, 1.0
	seen := map[string]bool{}
	if strings.TrimSpace(params) != "" {
		for item := range strings.SplitSeq(params, ",") {
			name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
			name = strings.TrimSpace(name)
			if !ok {
				return nil, fmt.Errorf("parameter %q: want name=value", item)
			}
			if name != "a" && name != "b" {
				return nil, fmt.Errorf("parameter %q: unknown; %s takes a and b", name, family)
			}
			if seen[name] {
				return nil, fmt.Errorf("parameter %s: given twice", name)
			}
			seen[name] = true
			x, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return nil, fmt.Errorf("%s = %s: must be a finite number >= 0 (r must have its maximum at 0)",
					name, strings.TrimSpace(val))
			}
			if name == "a" {
				a = x
			} else {
				b = x
			}
		}
	}
	if family == "linear" {
		return Linear{A: a, B: b}, nil
	}
	return Exponential{A: a, B: b}, nil
}

// checkGrid is where CheckRevenue samples r: [-checkRange, checkRange] in
// checkPoints steps.
const (
	checkRange  = 20.0
	checkPoints = 4000
)

// CheckRevenue samples r on [-20, 20] (4001 points) and reports an error
// when r(0) is not finite, some r(x) is NaN or exceeds r(0) (the maximum
// must be at 0), or r decreases somewhere on [-20, 0] or increases
// somewhere on [0, 20] (r must be unimodal). A relative slack of 1e-12
// absorbs rounding. It is a sampled check: it cannot see what happens
// between the points or beyond them.
func CheckRevenue(r Revenue) error {
	if r == nil {
		return fmt.Errorf("revenue: nil")
	}
	top := r.At(0)
	if math.IsNaN(top) || math.IsInf(top, 0) {
		return fmt.Errorf("revenue: r(0) = %v: must be finite", top)
	}
	slack := 1e-12 * math.Max(1, math.Abs(top))
	prev := 0.0
	for i := 0; i <= checkPoints; i++ {
		x := -checkRange + 2*checkRange*float64(i)/checkPoints
		y := r.At(x)
		if math.IsNaN(y) {
			return fmt.Errorf("revenue: r(%v) is NaN", x)
		}
		if y > top+slack {
			return fmt.Errorf("revenue: r(%v) = %v exceeds r(0) = %v: the maximum must be at 0", x, y, top)
		}
		if i > 0 && x <= 0 && y < prev-slack {
			return fmt.Errorf("revenue: r(%v) = %v is below r(%v) = %v: r must be nondecreasing below 0",
				x, y, x-2*checkRange/checkPoints, prev)
		}
		if x > 0 && y > prev+slack {
			return fmt.Errorf("revenue: r(%v) = %v exceeds r(%v) = %v: r must be nonincreasing above 0",
				x, y, x-2*checkRange/checkPoints, prev)
		}
		prev = y
	}
	return nil
}
