package meanfield

import (
	"context"
	"math"
	"strings"
	"testing"
)

// padded returns the untruncated JSQ(d) fixed point at levels 1..K.
func padded(t *testing.T, lambda float64, d, K int) []float64 {
	t.Helper()
	fp, _, err := JSQdFixedPoint(lambda, d, 1e-300)
	if err != nil {
		t.Fatal(err)
	}
	q := make([]float64, K)
	copy(q, fp)
	return q
}

func maxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// The closed-form fixed point zeroes the drift. It is evaluated down to
// q_K ~ 1e-300, so the truncation term at level K (-lambda q_K^d) is far below
// the 1e-12 bound, which leaves room only for rounding (terms are <= 1).
func TestDriftVanishesAtFixedPoint(t *testing.T) {
	for _, lambda := range []float64{0.3, 0.9, 0.99} {
		for _, d := range []int{1, 2, 3, 5} {
			fp, _, _ := JSQdFixedPoint(lambda, d, 1e-300)
			drift, err := JSQdDrift(lambda, d)
			if err != nil {
				t.Fatal(err)
			}
			dq := make([]float64, len(fp))
			drift(0, fp, dq)
			for i, v := range dq {
				if math.Abs(v) > 1e-12 {
					t.Errorf("lambda=%v d=%d: drift at level %d = %g", lambda, d, i+1, v)
				}
			}
		}
	}
	// RandomDrift is the d = 1 drift.
	r, _ := RandomDrift(0.7)
	j, _ := JSQdDrift(0.7, 1)
	q := []float64{0.9, 0.5, 0.2, 0.01}
	a, b := make([]float64, 4), make([]float64, 4)
	r(0, q, a)
	j(0, q, b)
	if maxAbsDiff(a, b) != 0 {
		t.Errorf("RandomDrift %v != JSQdDrift(d=1) %v", a, b)
	}
}

// From empty and from all servers holding 5 tasks, the ODE reaches the fixed
// point by t = 200 (d = 2, 3 at lambda = 0.9) within 1e-6 in every level. The
// slowest mode for d = 2 decays like exp(-0.075 t) (measured: 7.4e-7 at
// t = 200 from the loaded start, 1.8e-8 at t = 250); integration error
// (RelTol 1e-10) and truncation (Levels, tail < 1e-12) are far below.
//
// d = 1 is the M/M/1 queue, whose relaxation rate is (1 - sqrt(lambda))^2:
// 0.086 at lambda = 0.5, so t = 200 suffices, but only 0.0026 at lambda = 0.9
// (error still 0.04 at t = 200), which needs t = 5000.
func TestTrajectoryConvergesToFixedPoint(t *testing.T) {
	loaded := []float64{1, 1, 1, 1, 1}
	for _, c := range []struct {
		lambda float64
		d      int
		t1     float64
	}{{0.9, 2, 200}, {0.9, 3, 200}, {0.5, 1, 200}, {0.9, 1, 5000}} {
		for _, q0 := range [][]float64{nil, loaded} {
			K, neglected, err := Levels(c.lambda, c.d, 1e-12, q0)
			if err != nil {
				t.Fatal(err)
			}
			drift, _ := JSQdDrift(c.lambda, c.d)
			p, err := Trajectory(context.Background(), drift, q0, grid(0, c.t1, 101), K, Options{RelTol: 1e-10, AbsTol: 1e-14})
			if err != nil {
				t.Fatal(err)
			}
			e := maxAbsDiff(p.Y[100], padded(t, c.lambda, c.d, K))
			t.Logf("lambda=%v d=%d start=%v: K=%d (tail %.2g), |q(%v) - fixed point| = %.3g; %d steps, order violation %.2g",
				c.lambda, c.d, q0, K, neglected, c.t1, e, p.Steps, p.OrderViolation)
			if e > 1e-6 {
				t.Errorf("lambda=%v d=%d start=%v: distance to fixed point at t=%v is %g", c.lambda, c.d, q0, c.t1, e)
			}
			// The ODE preserves 1 >= q_1 >= ... >= 0; numerically up to
			// the tolerance (AbsTol 1e-14 at the tiny tail levels).
			if p.OrderViolation > 1e-12 {
				t.Errorf("lambda=%v d=%d: order violated by %g", c.lambda, c.d, p.OrderViolation)
			}
		}
	}
}

// Mass conservation: sum_i dq_i/dt = lambda (1 - q_K^d) - q_1, the arrival
// rate not lost at the buffer minus the departure rate. Checked to rounding
// (1e-14, terms of order 1 summed over K levels) at an arbitrary state.
func TestDriftConservesMass(t *testing.T) {
	q := []float64{0.95, 0.8, 0.6, 0.3, 0.1, 0.02}
	for _, d := range []int{1, 2, 4} {
		drift, _ := JSQdDrift(1.3, d)
		dq := make([]float64, len(q))
		drift(0, q, dq)
		s := 0.0
		for _, v := range dq {
			s += v
		}
		want := 1.3*(1-math.Pow(q[len(q)-1], float64(d))) - q[0]
		if math.Abs(s-want) > 1e-14 {
			t.Errorf("d=%d: sum dq = %.17g, want %.17g", d, s, want)
		}
	}
}

// Without replacement, P_i = prod_{k<d} (n q_i - k)/(n - k) differs from q_i^d
// by O(1/n); for d = 2 exactly by q_i (1 - q_i)/(n - 1). So the drift
// difference times n tends to a constant: over n = 100 .. 10^5 the
// successive ratios of the differences must be 10 within 5% (the O(1/n^2)
// correction is about 1% at n = 100 for these q).
func TestWithoutReplacementApproachesWithReplacement(t *testing.T) {
	for _, d := range []int{2, 3, 5} {
		q := padded(t, 0.9, d, 6)
		for i := range q {
			q[i] = math.Max(q[i], 0.05) // keep n q_i >= d off the clamped region
			if i > 0 {
				q[i] = math.Min(q[i], q[i-1])
			}
		}
		with, _ := JSQdDrift(0.9, d)
		dw := make([]float64, len(q))
		with(0, q, dw)
		prev := 0.0
		for _, n := range []int{100, 1000, 10000, 100000} {
			without, err := JSQdWithoutReplacementDrift(0.9, d, n)
			if err != nil {
				t.Fatal(err)
			}
			dwo := make([]float64, len(q))
			without(0, q, dwo)
			diff := maxAbsDiff(dw, dwo)
			t.Logf("d=%d n=%d: max |drift difference| = %.4g (n * diff = %.4f)", d, n, diff, float64(n)*diff)
			if prev != 0 && math.Abs(prev/diff-10) > 0.5 {
				t.Errorf("d=%d n=%d: difference ratio %g, want ~10 (O(1/n))", d, n, prev/diff)
			}
			prev = diff
		}
	}
	// d = 2: the exact formula, to rounding.
	const n = 100
	q := []float64{0.7, 0.3, 0.05}
	with, _ := JSQdDrift(0.8, 2)
	without, _ := JSQdWithoutReplacementDrift(0.8, 2, n)
	dw, dwo := make([]float64, 3), make([]float64, 3)
	with(0, q, dw)
	without(0, q, dwo)
	corr := func(x float64) float64 { return x * (1 - x) / (n - 1) }
	for i := range q {
		prevCorr := 0.0
		if i > 0 {
			prevCorr = corr(q[i-1])
		}
		want := dw[i] + 0.8*(corr(q[i])-prevCorr)
		if math.Abs(dwo[i]-want) > 1e-15 {
			t.Errorf("level %d: without-replacement drift %.17g, want %.17g", i+1, dwo[i], want)
		}
	}
}

// Sampling without replacement balances better, so at n = 100 the stationary
// mean number of tasks per server is below the mean-field lambda T_2, by
// O(1/n): we require a difference in (0, 5%) (measured in the log).
func TestWithoutReplacementTrajectory(t *testing.T) {
	const lambda, d, n = 0.9, 2, 100
	K, _, _ := Levels(lambda, d, 1e-12, nil)
	without, _ := JSQdWithoutReplacementDrift(lambda, d, n)
	p, err := Trajectory(context.Background(), without, nil, []float64{0, 400}, K, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mean := 0.0
	for _, v := range p.Y[1] {
		mean += v
	}
	T, _ := JSQdMeanSojourn(lambda, d)
	rel := (lambda*T - mean) / (lambda * T)
	t.Logf("n=%d: mean tasks per server %.6f vs mean field %.6f (%.2f%% lower); q = %.4g", n, mean, lambda*T, 100*rel, p.Y[1][:5])
	if rel <= 0 || rel > 0.05 {
		t.Errorf("without-replacement mean %g vs mean-field %g", mean, lambda*T)
	}
	if p.OrderViolation > 1e-10 {
		t.Errorf("order violated by %g", p.OrderViolation)
	}
}

func TestLevels(t *testing.T) {
	for _, c := range []struct {
		lambda float64
		d      int
		tol    float64
	}{{0.9, 2, 1e-12}, {0.9, 3, 1e-6}, {0.9, 1, 1e-9}, {0.5, 1, 0}} {
		K, neglected, err := Levels(c.lambda, c.d, c.tol, nil)
		if err != nil {
			t.Fatal(err)
		}
		tol := c.tol
		if tol == 0 {
			tol = 1e-12
		}
		// Brute-force tail of the fixed point beyond K.
		s := 0.0
		for i := K + 1; i < K+100000; i++ {
			s += math.Pow(c.lambda, jsqdExponent(c.d, i))
		}
		t.Logf("lambda=%v d=%d tol=%g: K=%d, neglected %.3g (brute force %.3g)", c.lambda, c.d, tol, K, neglected, s)
		if neglected >= tol || math.Abs(neglected-s) > 1e-9*s {
			t.Errorf("neglected %g, brute force %g, tol %g", neglected, s, tol)
		}
		if k1, _, _ := Levels(c.lambda, c.d, c.tol, nil); k1 != K {
			t.Error("not deterministic")
		}
		// Without the margin, the tail would be >= tol.
		if tail(c.lambda, c.d, K-levelMargin-1) < tol {
			t.Errorf("K = %d is larger than the rule", K)
		}
	}
	q0 := make([]float64, 30)
	for i := range q0[:20] {
		q0[i] = 1
	}
	if K, _, _ := Levels(0.9, 3, 1e-12, q0); K != 20+levelMargin {
		t.Errorf("K = %d with load up to level 20, want %d", K, 20+levelMargin)
	}
	for _, bad := range []struct {
		lambda, tol float64
		d           int
	}{{1, 1e-9, 2}, {0.5, 1e-9, 0}, {0.5, -1, 2}, {0.5, 1, 2}, {math.NaN(), 1e-9, 2}} {
		if _, _, err := Levels(bad.lambda, bad.d, bad.tol, nil); err == nil {
			t.Errorf("Levels(%v, %d, %v) accepted", bad.lambda, bad.d, bad.tol)
		}
	}
}

func TestTrajectoryPadTruncate(t *testing.T) {
	drift, _ := JSQdDrift(0.9, 2)
	q0 := []float64{1, 0.5, 0.25, 0.125}
	p, err := Trajectory(context.Background(), drift, q0, []float64{0, 1}, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Y[0]) != 2 || p.Y[0][0] != 1 || p.Y[0][1] != 0.5 || p.TruncatedMass != 0.375 || p.Levels != 2 {
		t.Errorf("truncated start %v, mass %v", p.Y[0], p.TruncatedMass)
	}
	p, err = Trajectory(context.Background(), drift, q0, []float64{0, 1}, 6, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Y[1]) != 6 || p.Y[0][5] != 0 || p.TruncatedMass != 0 {
		t.Errorf("padded start %v", p.Y[0])
	}
}

func TestOrderViolation(t *testing.T) {
	for _, c := range []struct {
		q    []float64
		want float64
	}{{nil, 0}, {[]float64{1, 0.5, 0}, 0}, {[]float64{1.25}, 0.25}, {[]float64{0.5, 0.75}, 0.25}, {[]float64{0.5, -0.125}, 0.125}} {
		if got := OrderViolation(c.q); got != c.want {
			t.Errorf("OrderViolation(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if v := OrderViolation([]float64{0.5, math.NaN(), 0.1}); !math.IsNaN(v) {
		t.Errorf("OrderViolation with NaN = %v", v)
	}
}

func TestDriftBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"NaN lambda", second(JSQdDrift(math.NaN(), 2)), "lambda"},
		{"negative lambda", second(JSQdDrift(-1, 2)), "lambda"},
		{"Inf lambda", second(RandomDrift(math.Inf(1))), "lambda"},
		{"d = 0", second(JSQdDrift(0.5, 0)), "d = 0"},
		{"without d = 0", second(JSQdWithoutReplacementDrift(0.5, 0, 10)), "d = 0"},
		{"n < d", second(JSQdWithoutReplacementDrift(0.5, 3, 2)), "n = 2"},
		{"without NaN lambda", second(JSQdWithoutReplacementDrift(math.NaN(), 2, 10)), "lambda"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want mention of %q", c.name, c.err, c.want)
		}
	}
	drift, _ := JSQdDrift(0.5, 2)
	for _, c := range []struct {
		name   string
		q0     []float64
		levels int
		want   string
	}{
		{"levels 0", nil, 0, "levels = 0"},
		{"q above 1", []float64{1.5}, 3, "q0[0]"},
		{"increasing", []float64{0.5, 0.6}, 3, "q0[1]"},
		{"negative", []float64{0.5, -0.1}, 3, "q0[1]"},
		{"NaN", []float64{math.NaN()}, 3, "q0[0]"},
	} {
		_, err := Trajectory(context.Background(), drift, c.q0, []float64{0, 1}, c.levels, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want mention of %q", c.name, err, c.want)
		}
	}
	if _, err := Trajectory(context.Background(), drift, nil, []float64{1, 0}, 3, Options{}); err == nil {
		t.Error("decreasing times accepted by Trajectory")
	}
}

func second(_ System, err error) error { return err }

// BenchmarkTrajectoryJSQ2 integrates JSQ(2), lambda = 0.9, K = 20 from empty
// to t = 100 on a grid of 1001 points (default Trajectory tolerances,
// RelTol 1e-8, AbsTol 1e-12).
func BenchmarkTrajectoryJSQ2(b *testing.B) {
	drift, _ := JSQdDrift(0.9, 2)
	times := grid(0, 100, 1001)
	b.ReportAllocs()
	var steps int
	for b.Loop() {
		p, err := Trajectory(context.Background(), drift, nil, times, 20, Options{})
		if err != nil {
			b.Fatal(err)
		}
		steps = p.Steps
	}
	b.ReportMetric(float64(steps), "steps/op")
}
