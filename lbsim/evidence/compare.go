package evidence

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Spec is what a comparison is asked: its significance Level (default
// DefaultLevel), the Power at which it states what it detects (default
// DefaultPower), and Need, the deviation the claim must be able to see, in
// the units of the quantity (0: none stated; the Outcome is then never Weak).
type Spec struct {
	Level, Power, Need float64
}

// DefaultLevel and DefaultPower are the level and power of a Spec that
// leaves them 0.
const (
	DefaultLevel = 0.01
	DefaultPower = 0.8
)

func (s Spec) withDefaults() Spec {
	if s.Level == 0 {
		s.Level = DefaultLevel
	}
	if s.Power == 0 {
		s.Power = DefaultPower
	}
	return s
}

// Kind is what a comparison tests.
type Kind int

const (
	// KindAgree: estimate and reference have the same expectation (two-sided).
	KindAgree Kind = iota
	// KindLess: the first is smaller than the second (one-sided).
	KindLess
)

// Outcome is the result of a comparison.
type Outcome struct {
	Kind     Kind
	Est, Ref Estimate
	Spec     Spec
	// Diff is Est - Ref (Agree) or the margin Ref - Est (Less).
	Diff float64
	// SE and DF are the combined standard error and its degrees of freedom;
	// Bound the sum of the deterministic bounds.
	SE, DF, Bound float64
	// Critical is the Student-t quantile and Tolerance = Critical·SE + Bound:
	// Agree rejects when |Diff| > Tolerance, Less holds when Diff > Tolerance.
	Critical, Tolerance float64
	// P is the p-value of the test (conservative by Bound).
	P float64
	// Detects is the smallest true deviation (Agree) or margin (Less) found
	// with probability Spec.Power, taking SE as the true standard error.
	Detects float64
	// Holds: the claim passes the test (Agree: not rejected; Less: shown).
	Holds bool
	// Weak: Detects exceeds Spec.Need (or cannot be computed); the check
	// cannot see the deviation the claim needs.
	Weak bool
}

// Agree compares est with ref: the claim that their expectations are equal
// (a simulation against an exact value, a limit or another simulation).
func Agree(est, ref Estimate, spec Spec) Outcome {
	spec = spec.withDefaults()
	o := Outcome{Kind: KindAgree, Est: est, Ref: ref, Spec: spec, Diff: est.Value - ref.Value, Bound: est.Bound + ref.Bound}
	o.SE, o.DF = combine(est, ref)
	o.Critical = tQuantile(1-spec.Level/2, o.DF)
	o.Tolerance = o.Critical*o.SE + o.Bound
	o.Holds = math.Abs(o.Diff) <= o.Tolerance // false for NaN
	o.P = pValue(math.Max(math.Abs(o.Diff)-o.Bound, 0), o.SE, o.DF, 2)
	o.Detects = detectable(o.Critical, o.SE, o.Bound, o.DF, spec.Power, 2)
	o.Weak = weak(o.Detects, spec.Need)
	return o
}

// Less tests the claim a < b: it holds when b - a exceeds
// t_{1-level, df} SE + Bound.
func Less(a, b Estimate, spec Spec) Outcome {
	spec = spec.withDefaults()
	o := Outcome{Kind: KindLess, Est: a, Ref: b, Spec: spec, Diff: b.Value - a.Value, Bound: a.Bound + b.Bound}
	o.SE, o.DF = combine(a, b)
	o.Critical = tQuantile(1-spec.Level, o.DF)
	o.Tolerance = o.Critical*o.SE + o.Bound
	o.Holds = o.Diff > o.Tolerance
	o.P = pValue(o.Diff-o.Bound, o.SE, o.DF, 1)
	o.Detects = detectable(o.Critical, o.SE, o.Bound, o.DF, spec.Power, 1)
	o.Weak = weak(o.Detects, spec.Need)
	return o
}

func weak(detects, need float64) bool {
	return need > 0 && !(detects <= need) // NaN detects is weak
}

// pValue is P(T > x/se) (tails 1) or P(|T| > x/se) (tails 2) for Student's
// t with df degrees of freedom; x >= 0 with tails 2.
func pValue(x, se, df float64, tails int) float64 {
	if math.IsNaN(x) || math.IsNaN(se) {
		return math.NaN()
	}
	if se == 0 {
		if x > 0 {
			return 0
		}
		return 1
	}
	var cdf func(float64) float64
	if math.IsInf(df, 1) {
		cdf = distuv.UnitNormal.CDF
	} else {
		cdf = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF
	}
	return float64(tails) * (1 - cdf(x/se))
}

// Describe is the comparison in one line, starting with name: the two
// sides, the difference against the tolerance with its parts, the p-value
// and level, what it detects and what the claim needs. It always contains
// "detects" and that deviation, absolute and relative to the reference.
func (o Outcome) Describe(name string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteString(": ")
	op, diffName := " vs ", "diff"
	if o.Kind == KindLess {
		op, diffName = " < ", "margin"
	}
	b.WriteString(side(o.Est) + op + side(o.Ref))
	var tol string
	switch {
	case o.SE == 0:
		tol = "no sampling error"
	case math.IsInf(o.DF, 1):
		tol = fmt.Sprintf("z %.3g × SE %.3g", o.Critical, o.SE)
	default:
		tol = fmt.Sprintf("t(%.3g df) %.3g × SE %.3g", o.DF, o.Critical, o.SE)
	}
	if o.Bound > 0 {
		tol += fmt.Sprintf(" + bound %.2g", o.Bound)
	}
	fmt.Fprintf(&b, "; %s %.4g, tol %.3g (%s); p = %.2g at level %g", diffName, o.Diff, o.Tolerance, tol, o.P, o.Spec.Level)
	fmt.Fprintf(&b, "; detects %.3g (%s) at %g%% power", o.Detects, relative(o.Detects, o.Ref.Value), 100*o.Spec.Power)
	if o.Spec.Need > 0 {
		fmt.Fprintf(&b, ", needs %.3g (%s)", o.Spec.Need, relative(o.Spec.Need, o.Ref.Value))
	}
	return b.String()
}

// side is an estimate as the lines print it: value, SE and method.
func side(e Estimate) string {
	if e.SE == 0 {
		if e.Method == "" {
			return fmt.Sprintf("%.6g", e.Value)
		}
		return fmt.Sprintf("%.6g [%s]", e.Value, e.Method)
	}
	return fmt.Sprintf("%.6g ± SE %.2g [%s]", e.Value, e.SE, e.Method)
}

// relative is x as a percentage of |ref|, or "ref 0" when ref is 0.
func relative(x, ref float64) string {
	if ref == 0 || math.IsNaN(ref) {
		return "reference 0"
	}
	return fmt.Sprintf("%.3g%% of %.4g", 100*x/math.Abs(ref), math.Abs(ref))
}
