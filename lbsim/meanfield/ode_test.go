package meanfield

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// linear returns the System y' = A y.
func linear(a [][]float64) System {
	return func(_ float64, y, dy []float64) {
		for i, row := range a {
			s := 0.0
			for j, v := range row {
				s += v * y[j]
			}
			dy[i] = s
		}
	}
}

// expSolution returns exp(A t) y0, by gonum's matrix exponential (Pade
// approximant with scaling and squaring, accurate to ~1e-15 here).
func expSolution(a [][]float64, y0 []float64, t float64) []float64 {
	n := len(a)
	at := mat.NewDense(n, n, nil)
	for i := range a {
		for j := range a[i] {
			at.Set(i, j, a[i][j]*t)
		}
	}
	var e mat.Dense
	e.Exp(at)
	var y mat.VecDense
	y.MulVec(&e, mat.NewVecDense(n, append([]float64(nil), y0...)))
	return y.RawVector().Data
}

func grid(t0, t1 float64, n int) []float64 {
	g := make([]float64, n)
	for j := range g {
		g[j] = t0 + (t1-t0)*float64(j)/float64(n-1)
	}
	g[n-1] = t1
	return g
}

// The global error of an adaptive method is not bounded by the local
// tolerance, but for these non-stiff, non-growing problems it stays within a
// small multiple; we require 10*RelTol relative to the largest |y| over the
// interval (the solutions decay, so pointwise relative error is not what the
// controller bounds once |y| falls near AbsTol/RelTol).
func TestIntegrateLinear(t *testing.T) {
	cases := []struct {
		name string
		a    [][]float64
		y0   []float64
		t1   float64
	}{
		{"rotation", [][]float64{{0, 1}, {-1, 0}}, []float64{1, 0}, 20},
		{"damped rotation", [][]float64{{-0.1, 1}, {-1, -0.1}}, []float64{1, 0.5}, 20},
		{"decaying modes", [][]float64{{-1, 2}, {0, -3}}, []float64{1, 1}, 10},
	}
	for _, c := range cases {
		for _, rtol := range []float64{1e-6, 1e-8, 1e-10} {
			times := grid(0, c.t1, 201)
			sol, err := Integrate(context.Background(), linear(c.a), c.y0, times, Options{RelTol: rtol, AbsTol: rtol * 1e-3})
			if err != nil {
				t.Fatal(err)
			}
			maxErr, scale := 0.0, 0.0
			for j, tj := range times {
				want := expSolution(c.a, c.y0, tj)
				for i := range want {
					maxErr = math.Max(maxErr, math.Abs(sol.Y[j][i]-want[i]))
					scale = math.Max(scale, math.Abs(want[i]))
				}
			}
			t.Logf("%s rtol=%g: max error %.3g (%.2f rtol relative), %d steps, %d rejected, %d evals",
				c.name, rtol, maxErr, maxErr/scale/rtol, sol.Steps, sol.Rejected, sol.FunctionEvals)
			if maxErr > 10*rtol*scale {
				t.Errorf("%s rtol=%g: max error %g > 10 rtol * %g", c.name, rtol, maxErr, scale)
			}
			if sol.FunctionEvals != 6*(sol.Steps+sol.Rejected)+2 {
				t.Errorf("%s: %d evals for %d steps + %d rejected; FSAL should give 6 per step + 2",
					c.name, sol.FunctionEvals, sol.Steps, sol.Rejected)
			}
		}
	}
}

// The closed form of the rotation lets us also check the analytic solution
// directly (not through mat.Exp).
func TestIntegrateRotationClosedForm(t *testing.T) {
	times := grid(0, 50, 501)
	sol, err := Integrate(context.Background(), linear([][]float64{{-0.1, 1}, {-1, -0.1}}), []float64{1, 0}, times, Options{RelTol: 1e-9, AbsTol: 1e-13})
	if err != nil {
		t.Fatal(err)
	}
	maxErr := 0.0
	for j, tj := range times {
		e := math.Exp(-0.1 * tj)
		maxErr = math.Max(maxErr, math.Abs(sol.Y[j][0]-e*math.Cos(tj)))
		maxErr = math.Max(maxErr, math.Abs(sol.Y[j][1]+e*math.Sin(tj)))
	}
	t.Logf("damped rotation to t=50, rtol 1e-9: max error %.3g, %d steps", maxErr, sol.Steps)
	if maxErr > 1e-8 { // 10 rtol, |y| <= 1
		t.Errorf("max error %g > 1e-8", maxErr)
	}
}

// Logistic equation y' = r y (1 - y), y(0) = y0: y(t) = 1/(1 + (1/y0 - 1) e^{-r t}).
// Here y rises from 0.01 to 1, so the error is measured relative to y(t)
// itself (>= 0.01), with the same 10*RelTol allowance.
func TestIntegrateLogistic(t *testing.T) {
	const r, y0 = 1.5, 0.01
	f := func(_ float64, y, dy []float64) { dy[0] = r * y[0] * (1 - y[0]) }
	for _, rtol := range []float64{1e-6, 1e-9, 1e-12} {
		times := grid(0, 15, 151)
		sol, err := Integrate(context.Background(), f, []float64{y0}, times, Options{RelTol: rtol, AbsTol: rtol * 1e-3})
		if err != nil {
			t.Fatal(err)
		}
		maxRel := 0.0
		for j, tj := range times {
			want := 1 / (1 + (1/y0-1)*math.Exp(-r*tj))
			maxRel = math.Max(maxRel, math.Abs(sol.Y[j][0]-want)/want)
		}
		t.Logf("logistic rtol=%g: max relative error %.3g (%.2f rtol), %d steps, %d rejected", rtol, maxRel, maxRel/rtol, sol.Steps, sol.Rejected)
		if maxRel > 10*rtol {
			t.Errorf("rtol=%g: max relative error %g > 10 rtol", rtol, maxRel)
		}
	}
}

// rk4 integrates with n classical Runge-Kutta steps (the comparison baseline).
func rk4(f System, y0 []float64, t1 float64, n int) []float64 {
	m := len(y0)
	y := append([]float64(nil), y0...)
	k1, k2, k3, k4, yt := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	h := t1 / float64(n)
	for s := 0; s < n; s++ {
		t := float64(s) * h
		f(t, y, k1)
		for i := range y {
			yt[i] = y[i] + h/2*k1[i]
		}
		f(t+h/2, yt, k2)
		for i := range y {
			yt[i] = y[i] + h/2*k2[i]
		}
		f(t+h/2, yt, k3)
		for i := range y {
			yt[i] = y[i] + h*k3[i]
		}
		f(t+h, yt, k4)
		for i := range y {
			y[i] += h / 6 * (k1[i] + 2*k2[i] + 2*k3[i] + k4[i])
		}
	}
	return y
}

// At tight tolerance the adaptive fifth-order method needs far fewer function
// evaluations than fixed-step RK4 reaching the same end-point error.
func TestIntegrateCheaperThanRK4(t *testing.T) {
	f := linear([][]float64{{-0.1, 1}, {-1, -0.1}})
	y0 := []float64{1, 0}
	const t1 = 20
	exact := func(y []float64) float64 {
		e := math.Exp(-0.1 * t1)
		return math.Max(math.Abs(y[0]-e*math.Cos(t1)), math.Abs(y[1]+e*math.Sin(t1)))
	}
	sol, err := Integrate(context.Background(), f, y0, []float64{0, t1}, Options{RelTol: 1e-10, AbsTol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	target := exact(sol.Y[1])
	n := 16
	for exact(rk4(f, y0, t1, n)) > target {
		n *= 2
	}
	t.Logf("DP5(4) rtol 1e-10: error %.3g with %d steps, %d evals; RK4 needs %d steps (%d evals) for that error",
		target, sol.Steps, sol.FunctionEvals, n, 4*n)
	if 3*sol.FunctionEvals > 4*n {
		t.Errorf("DP5 used %d evals, RK4 %d: expected at least 3x fewer", sol.FunctionEvals, 4*n)
	}
}

// Grid points are filled by interpolation: a fine grid does not change the
// step sequence (same steps, bit-identical end value), and an interpolated
// value agrees with an integration stopped exactly at that point to within
// the integration tolerance (both are within ~rtol of the truth; the
// interpolant's own error, O(h^5), is below the step's local error).
func TestDenseOutput(t *testing.T) {
	f := linear([][]float64{{-0.1, 1}, {-1, -0.1}})
	y0 := []float64{1, 0}
	opt := Options{RelTol: 1e-8, AbsTol: 1e-12}
	fine := grid(0, 20, 1001)
	dense, err := Integrate(context.Background(), f, y0, fine, opt)
	if err != nil {
		t.Fatal(err)
	}
	coarse, err := Integrate(context.Background(), f, y0, []float64{0, 20}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if dense.Steps != coarse.Steps || dense.Rejected != coarse.Rejected {
		t.Errorf("grid changed the steps: %d+%d with 1001 points, %d+%d with 2", dense.Steps, dense.Rejected, coarse.Steps, coarse.Rejected)
	}
	for i := range y0 {
		if dense.Y[1000][i] != coarse.Y[1][i] {
			t.Errorf("end value differs: %v vs %v", dense.Y[1000], coarse.Y[1])
		}
	}
	if dense.Steps >= 1000 {
		t.Errorf("%d steps for 1001 grid points: grid points seem to force steps", dense.Steps)
	}
	maxDiff, maxErr := 0.0, 0.0
	for _, j := range []int{1, 37, 250, 333, 500, 777, 999} {
		direct, err := Integrate(context.Background(), f, y0, []float64{0, fine[j]}, opt)
		if err != nil {
			t.Fatal(err)
		}
		e := math.Exp(-0.1 * fine[j])
		want := []float64{e * math.Cos(fine[j]), -e * math.Sin(fine[j])}
		for i := range y0 {
			maxDiff = math.Max(maxDiff, math.Abs(dense.Y[j][i]-direct.Y[1][i]))
			maxErr = math.Max(maxErr, math.Abs(dense.Y[j][i]-want[i]))
		}
	}
	t.Logf("dense vs direct: max difference %.3g; dense vs exact %.3g (rtol 1e-8, %d steps)", maxDiff, maxErr, dense.Steps)
	if maxDiff > 1e-7 || maxErr > 1e-7 { // 10 rtol, |y| <= 1
		t.Errorf("dense output off: |dense-direct| = %g, |dense-exact| = %g", maxDiff, maxErr)
	}
}

// After setup the integration allocates nothing: a run of 10x as many steps
// allocates the same.
func TestIntegrateAllocations(t *testing.T) {
	drift, _ := JSQdDrift(0.9, 2)
	y0 := make([]float64, 20)
	run := func(t1 float64) func() {
		return func() {
			if _, err := Integrate(context.Background(), drift, y0, grid(0, t1, 11), Options{RelTol: 1e-8, AbsTol: 1e-12}); err != nil {
				panic(err)
			}
		}
	}
	short, long := testing.AllocsPerRun(5, run(10)), testing.AllocsPerRun(5, run(200))
	t.Logf("allocations: %v for t=10, %v for t=200", short, long)
	if short != long {
		t.Errorf("allocations grow with the number of steps: %v vs %v", short, long)
	}
}

func TestIntegrateSinglePoint(t *testing.T) {
	sol, err := Integrate(context.Background(), linear([][]float64{{1}}), []float64{3}, []float64{5}, Options{})
	if err != nil || len(sol.Y) != 1 || sol.Y[0][0] != 3 || sol.FunctionEvals != 0 {
		t.Errorf("single time: %+v, %v", sol, err)
	}
}

func TestIntegrateBadInput(t *testing.T) {
	ctx := context.Background()
	f := linear([][]float64{{-1}})
	nanf := func(_ float64, y, dy []float64) { dy[0] = math.NaN() }
	blowup := func(_ float64, y, dy []float64) { dy[0] = y[0] * y[0] } // y = 1/(1-t)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	cases := []struct {
		name  string
		f     System
		y0    []float64
		times []float64
		opt   Options
		want  string
	}{
		{"nil f", nil, []float64{1}, []float64{0, 1}, Options{}, "f is nil"},
		{"empty y0", f, nil, []float64{0, 1}, Options{}, "y0 is empty"},
		{"NaN y0", f, []float64{math.NaN()}, []float64{0, 1}, Options{}, "y0[0]"},
		{"Inf y0", f, []float64{math.Inf(1)}, []float64{0, 1}, Options{}, "y0[0]"},
		{"no times", f, []float64{1}, nil, Options{}, "times is empty"},
		{"NaN time", f, []float64{1}, []float64{0, math.NaN()}, Options{}, "times[1]"},
		{"decreasing times", f, []float64{1}, []float64{0, 2, 1}, Options{}, "times[2] = 1 is not greater"},
		{"repeated time", f, []float64{1}, []float64{0, 1, 1}, Options{}, "strictly increasing"},
		{"negative RelTol", f, []float64{1}, []float64{0, 1}, Options{RelTol: -1e-6}, "RelTol"},
		{"NaN RelTol", f, []float64{1}, []float64{0, 1}, Options{RelTol: math.NaN()}, "RelTol"},
		{"tiny RelTol", f, []float64{1}, []float64{0, 1}, Options{RelTol: 1e-20}, "RelTol"},
		{"RelTol 1", f, []float64{1}, []float64{0, 1}, Options{RelTol: 1}, "RelTol"},
		{"negative AbsTol", f, []float64{1}, []float64{0, 1}, Options{AbsTol: -1}, "AbsTol"},
		{"Inf AbsTol", f, []float64{1}, []float64{0, 1}, Options{AbsTol: math.Inf(1)}, "AbsTol"},
		{"negative InitialStep", f, []float64{1}, []float64{0, 1}, Options{InitialStep: -0.1}, "InitialStep"},
		{"negative MaxStep", f, []float64{1}, []float64{0, 1}, Options{MaxStep: -1}, "MaxStep"},
		{"negative MinStep", f, []float64{1}, []float64{0, 1}, Options{MinStep: -1}, "MinStep"},
		{"MinStep > MaxStep", f, []float64{1}, []float64{0, 1}, Options{MinStep: 0.5, MaxStep: 0.1}, "MinStep"},
		{"negative MaxSteps", f, []float64{1}, []float64{0, 1}, Options{MaxSteps: -1}, "MaxSteps"},
		{"step limit", f, []float64{1}, []float64{0, 100}, Options{MaxSteps: 5}, "MaxSteps = 5 reached"},
		{"MinStep hit", f, []float64{1}, []float64{0, 100}, Options{MinStep: 50, RelTol: 1e-10}, "below the minimum"},
		{"NaN derivative", nanf, []float64{1}, []float64{0, 1}, Options{}, "non-finite"},
		{"blow-up", blowup, []float64{1}, []float64{0, 2}, Options{}, "below the minimum"},
		{"canceled", f, []float64{1}, []float64{0, 1}, Options{}, "canceled"},
	}
	for _, c := range cases {
		cx := ctx
		if c.name == "canceled" {
			cx = canceled
		}
		sol, err := Integrate(cx, c.f, c.y0, c.times, c.opt)
		if err == nil {
			t.Errorf("%s: no error (solution %v)", c.name, sol.Y)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
		if c.name == "step limit" && !errors.Is(err, ErrStepLimit) {
			t.Errorf("step limit error %q does not wrap ErrStepLimit", err)
		}
	}
}

// Cancellation during the integration is noticed within 64 attempted steps.
func TestIntegrateCancelMidway(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	f := func(_ float64, y, dy []float64) {
		calls++
		if calls == 600 { // step ~100
			cancel()
		}
		dy[0], dy[1] = y[1], -y[0]
	}
	_, err := Integrate(ctx, f, []float64{1, 0}, []float64{0, 1e4}, Options{RelTol: 1e-10})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if calls > 600+6*64+6 {
		t.Errorf("%d evaluations: cancellation noticed late", calls)
	}
}
