package meanfield

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// System is the right-hand side of an ODE y' = f(t, y): it writes f(t, y)
// into dydt, which has the length of y. It must not keep y or dydt, and must
// not allocate if the integration is to be allocation-free per step.
type System func(t float64, y, dydt []float64)

// Options controls Integrate. The zero value of a field selects its default.
type Options struct {
	// RelTol and AbsTol bound the local error estimate of each step: the
	// weighted RMS norm of err_i / (AbsTol + RelTol*max(|y_i|, |ynew_i|)) must
	// be at most 1. Defaults 1e-6 and 1e-9 (Trajectory: 1e-8 and 1e-12).
	// RelTol must lie in [100 eps, 1) with eps the float64 machine epsilon.
	RelTol, AbsTol float64
	// InitialStep is the first trial step; by default it is chosen by the
	// Hairer-Norsett-Wanner heuristic (one extra function evaluation).
	InitialStep float64
	// MaxStep caps the step size; default no cap (the whole time span).
	MaxStep float64
	// MinStep is the smallest step the controller may take, except for the
	// last step onto the final time; a step that would have to be smaller is
	// an error. By default only steps lost in rounding (h <= 10 eps |t|) are.
	MinStep float64
	// MaxSteps limits the number of attempted steps (accepted plus rejected);
	// default 100000.
	MaxSteps int
}

// Solution is the output of Integrate.
type Solution struct {
	// Times is a copy of the requested times, and Y[j] the solution at
	// Times[j]; Y[0] is a copy of y0. The rows share one backing array.
	Times []float64
	Y     [][]float64
	// Steps and Rejected count accepted and rejected steps; FunctionEvals
	// the calls of the System.
	Steps, Rejected, FunctionEvals int
}

// ErrStepLimit is wrapped by the error Integrate returns when
// Options.MaxSteps is reached.
var ErrStepLimit = errors.New("step limit reached")

const (
	defaultRelTol   = 1e-6
	defaultAbsTol   = 1e-9
	defaultMaxSteps = 100000
	eps             = 0x1p-52
)

// Dormand-Prince 5(4) coefficients (Dormand and Prince 1980; Hairer, Norsett
// and Wanner, Solving ODEs I, 2nd ed., Table II.5.2 and the dense output of
// their code DOPRI5).
const (
	c2, c3, c4, c5 = 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9

	a21                     = 1.0 / 5
	a31, a32                = 3.0 / 40, 9.0 / 40
	a41, a42, a43           = 44.0 / 45, -56.0 / 15, 32.0 / 9
	a51, a52, a53, a54      = 19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729
	a61, a62, a63, a64, a65 = 9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656
	// The fifth-order weights b (a7j: FSAL, the last stage is f at the new point).
	a71, a73, a74, a75, a76 = 35.0 / 384, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84

	// e = b - bhat, the difference to the embedded fourth-order weights.
	e1, e3, e4, e5, e6, e7 = 71.0 / 57600, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40

	// Continuous extension of order 4.
	d1, d3, d4, d5, d6, d7 = -12715105075.0 / 11282082432, 87487479700.0 / 32700410799,
		-10690763975.0 / 1880347072, 701980252875.0 / 199316789632,
		-1453857185.0 / 822651844, 69997945.0 / 29380423

	// Step-size control as in DOPRI5: safety factor, bounds on the ratio of
	// new to old step, and the PI (Lund stabilisation) exponent beta.
	safety   = 0.9
	facMin   = 0.2 // hnew >= facMin*h
	facMax   = 10  // hnew <= facMax*h
	piBeta   = 0.04
	errExpo1 = 0.2 - piBeta*0.75
)

// Integrate solves y' = f(t, y), y(times[0]) = y0, with the adaptive
// Dormand-Prince 5(4) method and returns the solution at every entry of times,
// which must be finite and strictly increasing. Grid points inside a step are
// filled by the method's fourth-order continuous extension, so the grid does
// not constrain the step sizes; only the last step is shortened to end exactly
// on times[len(times)-1]. After setup (the Solution and seven work vectors)
// the integration does not allocate.
//
// Errors name the offending parameter; reaching Options.MaxSteps returns an
// error wrapping ErrStepLimit, and a step size driven below Options.MinStep or
// to rounding level (a non-finite f, a singularity, severe stiffness) is also
// an error. Cancelling ctx stops the integration with ctx.Err().
func Integrate(ctx context.Context, f System, y0 []float64, times []float64, opt Options) (*Solution, error) {
	if f == nil {
		return nil, errors.New("meanfield: Integrate: f is nil")
	}
	n := len(y0)
	if n == 0 {
		return nil, errors.New("meanfield: Integrate: y0 is empty")
	}
	for i, v := range y0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("meanfield: Integrate: y0[%d] = %v is not finite", i, v)
		}
	}
	if len(times) == 0 {
		return nil, errors.New("meanfield: Integrate: times is empty (times[0] is the initial time)")
	}
	for j, v := range times {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("meanfield: Integrate: times[%d] = %v is not finite", j, v)
		}
		if j > 0 && v <= times[j-1] {
			return nil, fmt.Errorf("meanfield: Integrate: times[%d] = %v is not greater than times[%d] = %v; times must be strictly increasing", j, v, j-1, times[j-1])
		}
	}
	if err := opt.fill(); err != nil {
		return nil, err
	}

	sol := &Solution{Times: append([]float64(nil), times...), Y: make([][]float64, len(times))}
	back := make([]float64, n*len(times))
	for j := range sol.Y {
		sol.Y[j] = back[j*n : (j+1)*n : (j+1)*n]
	}
	copy(sol.Y[0], y0)
	if len(times) == 1 {
		return sol, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	w := newDP5(n)
	t, tEnd := times[0], times[len(times)-1]
	copy(w.y, y0)
	f(t, w.y, w.k[0])
	sol.FunctionEvals++
	for i, v := range w.k[0] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("meanfield: Integrate: f(times[0], y0) has non-finite component %d = %v", i, v)
		}
	}

	maxStep := opt.MaxStep
	if maxStep == 0 || maxStep > tEnd-t {
		maxStep = tEnd - t
	}
	h := opt.InitialStep
	if h == 0 {
		h = w.initialStep(f, t, maxStep, opt.RelTol, opt.AbsTol)
		sol.FunctionEvals++
	}

	next := 1 // the next grid index to fill
	facOld := 1e-4
	rejectedLast := false
	for next < len(times) {
		attempts := sol.Steps + sol.Rejected
		if attempts >= opt.MaxSteps {
			return nil, fmt.Errorf("meanfield: Integrate: MaxSteps = %d reached at t = %g before times[%d] = %g: %w",
				opt.MaxSteps, t, next, times[next], ErrStepLimit)
		}
		if attempts%64 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		h = math.Min(h, maxStep)
		last := false
		if t+1.01*h >= tEnd {
			h, last = tEnd-t, true
		} else if h < opt.MinStep || h <= 10*eps*math.Abs(t) {
			return nil, fmt.Errorf("meanfield: Integrate: step size %g at t = %g is below the minimum (MinStep = %g, or rounding level); the problem may be stiff or singular, or f not finite",
				h, t, opt.MinStep)
		}

		w.step(f, t, h)
		sol.FunctionEvals += 6
		errNorm := w.errorNorm(opt.RelTol, opt.AbsTol)
		if math.IsNaN(errNorm) {
			errNorm = math.Inf(1)
		}
		fac11 := math.Pow(errNorm, errExpo1)
		if errNorm > 1 {
			// Reject: shrink by at most 1/facMin.
			sol.Rejected++
			rejectedLast = true
			h /= math.Min(1/facMin, fac11/safety)
			continue
		}

		// Accept.
		sol.Steps++
		tNew := t + h
		if last {
			tNew = tEnd
		}
		dense := false
		for next < len(times) && times[next] <= tNew {
			if times[next] == tNew || (last && next == len(times)-1) {
				copy(sol.Y[next], w.ynew)
			} else {
				if !dense {
					w.prepareDense(h)
					dense = true
				}
				w.interpolate((times[next]-t)/h, sol.Y[next])
			}
			next++
		}
		fac := fac11 / math.Pow(facOld, piBeta)
		fac = math.Max(1/facMax, math.Min(1/facMin, fac/safety))
		hNew := h / fac
		if rejectedLast {
			hNew = math.Min(hNew, h)
		}
		facOld = math.Max(errNorm, 1e-4)
		rejectedLast = false
		t = tNew
		w.y, w.ynew = w.ynew, w.y
		w.k[0], w.k[6] = w.k[6], w.k[0] // FSAL
		h = hNew
	}
	return sol, nil
}

// fill validates the options and substitutes defaults.
func (o *Options) fill() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
	switch {
	case bad(o.RelTol):
		return fmt.Errorf("meanfield: Integrate: RelTol = %v must be finite and positive (0 selects %g)", o.RelTol, defaultRelTol)
	case bad(o.AbsTol):
		return fmt.Errorf("meanfield: Integrate: AbsTol = %v must be finite and positive (0 selects %g)", o.AbsTol, defaultAbsTol)
	case bad(o.InitialStep):
		return fmt.Errorf("meanfield: Integrate: InitialStep = %v must be finite and positive (0: automatic)", o.InitialStep)
	case bad(o.MaxStep):
		return fmt.Errorf("meanfield: Integrate: MaxStep = %v must be finite and positive (0: no cap)", o.MaxStep)
	case bad(o.MinStep):
		return fmt.Errorf("meanfield: Integrate: MinStep = %v must be finite and non-negative", o.MinStep)
	case o.MaxSteps < 0:
		return fmt.Errorf("meanfield: Integrate: MaxSteps = %d must be positive (0 selects %d)", o.MaxSteps, defaultMaxSteps)
	}
	if o.RelTol == 0 {
		o.RelTol = defaultRelTol
	}
	if o.AbsTol == 0 {
		o.AbsTol = defaultAbsTol
	}
	if o.MaxSteps == 0 {
		o.MaxSteps = defaultMaxSteps
	}
	if o.RelTol < 100*eps || o.RelTol >= 1 {
		return fmt.Errorf("meanfield: Integrate: RelTol = %g must lie in [%.2g, 1)", o.RelTol, 100*eps)
	}
	if o.MaxStep != 0 && o.MinStep > o.MaxStep {
		return fmt.Errorf("meanfield: Integrate: MinStep = %g exceeds MaxStep = %g", o.MinStep, o.MaxStep)
	}
	if o.MaxStep != 0 && o.InitialStep > o.MaxStep {
		o.InitialStep = o.MaxStep
	}
	return nil
}

// dp5 is the work space of one integration.
type dp5 struct {
	y, ynew, ytmp []float64
	k             [7][]float64 // stages; k[6] = f(t+h, ynew)
	r             [4][]float64 // dense output coefficients rcont2..rcont5
}

func newDP5(n int) *dp5 {
	back := make([]float64, 14*n)
	next := func() []float64 {
		s := back[:n:n]
		back = back[n:]
		return s
	}
	w := &dp5{y: next(), ynew: next(), ytmp: next()}
	for i := range w.k {
		w.k[i] = next()
	}
	for i := range w.r {
		w.r[i] = next()
	}
	return w
}

// initialStep is the starting-step heuristic of Hairer, Norsett and Wanner
// (Solving ODEs I, section II.4; routine HINIT of DOPRI5), with RMS norms. It
// uses w.k[0] = f(t, y) and evaluates f once more.
func (w *dp5) initialStep(f System, t, hMax, rtol, atol float64) float64 {
	var dnf, dny float64
	for i, yi := range w.y {
		sk := atol + rtol*math.Abs(yi)
		dnf += sq(w.k[0][i] / sk)
		dny += sq(yi / sk)
	}
	n := float64(len(w.y))
	dnf, dny = math.Sqrt(dnf/n), math.Sqrt(dny/n)
	h := 1e-6
	if dnf > 1e-5 && dny > 1e-5 {
		h = 0.01 * dny / dnf
	}
	h = math.Min(h, hMax)
	for i, yi := range w.y {
		w.ytmp[i] = yi + h*w.k[0][i]
	}
	f(t+h, w.ytmp, w.k[1])
	var der2 float64
	for i, yi := range w.y {
		sk := atol + rtol*math.Abs(yi)
		der2 += sq((w.k[1][i] - w.k[0][i]) / sk)
	}
	der2 = math.Sqrt(der2/n) / h
	der12 := math.Max(der2, dnf)
	h1 := math.Max(1e-6, h*1e-3)
	if der12 > 1e-15 {
		h1 = math.Pow(0.01/der12, 1.0/5)
	}
	h = math.Min(math.Min(100*h, h1), hMax)
	if !(h > 0) { // NaN from a non-finite f
		h = math.Min(1e-6, hMax)
	}
	return h
}

func sq(x float64) float64 { return x * x }

// step computes the stages, the new point w.ynew, its derivative w.k[6] and
// the error estimate (left in w.ytmp) of a step of size h from (t, w.y), with
// w.k[0] = f(t, w.y).
func (w *dp5) step(f System, t, h float64) {
	y, yt := w.y, w.ytmp
	k1, k2, k3, k4, k5, k6, k7 := w.k[0], w.k[1], w.k[2], w.k[3], w.k[4], w.k[5], w.k[6]
	for i := range y {
		yt[i] = y[i] + h*a21*k1[i]
	}
	f(t+c2*h, yt, k2)
	for i := range y {
		yt[i] = y[i] + h*(a31*k1[i]+a32*k2[i])
	}
	f(t+c3*h, yt, k3)
	for i := range y {
		yt[i] = y[i] + h*(a41*k1[i]+a42*k2[i]+a43*k3[i])
	}
	f(t+c4*h, yt, k4)
	for i := range y {
		yt[i] = y[i] + h*(a51*k1[i]+a52*k2[i]+a53*k3[i]+a54*k4[i])
	}
	f(t+c5*h, yt, k5)
	for i := range y {
		yt[i] = y[i] + h*(a61*k1[i]+a62*k2[i]+a63*k3[i]+a64*k4[i]+a65*k5[i])
	}
	f(t+h, yt, k6)
	yn := w.ynew
	for i := range y {
		yn[i] = y[i] + h*(a71*k1[i]+a73*k3[i]+a74*k4[i]+a75*k5[i]+a76*k6[i])
	}
	f(t+h, yn, k7)
	for i := range y {
		yt[i] = h * (e1*k1[i] + e3*k3[i] + e4*k4[i] + e5*k5[i] + e6*k6[i] + e7*k7[i])
	}
}

// errorNorm is the RMS of err_i / (atol + rtol*max(|y_i|, |ynew_i|)).
func (w *dp5) errorNorm(rtol, atol float64) float64 {
	var s float64
	for i, e := range w.ytmp {
		a, b := math.Abs(w.y[i]), math.Abs(w.ynew[i])
		if b > a {
			a = b
		}
		s += sq(e / (atol + rtol*a))
	}
	return math.Sqrt(s / float64(len(w.ytmp)))
}

// prepareDense sets the coefficients of the continuous extension of the
// accepted step of size h from w.y to w.ynew (routine DOPRI5 / CONTD5).
func (w *dp5) prepareDense(h float64) {
	k1, k3, k4, k5, k6, k7 := w.k[0], w.k[2], w.k[3], w.k[4], w.k[5], w.k[6]
	r2, r3, r4, r5 := w.r[0], w.r[1], w.r[2], w.r[3]
	for i, yi := range w.y {
		ydiff := w.ynew[i] - yi
		bspl := h*k1[i] - ydiff
		r2[i] = ydiff
		r3[i] = bspl
		r4[i] = ydiff - h*k7[i] - bspl
		r5[i] = h * (d1*k1[i] + d3*k3[i] + d4*k4[i] + d5*k5[i] + d6*k6[i] + d7*k7[i])
	}
}

// interpolate writes the continuous extension at t + theta*h into dst.
func (w *dp5) interpolate(theta float64, dst []float64) {
	theta1 := 1 - theta
	r2, r3, r4, r5 := w.r[0], w.r[1], w.r[2], w.r[3]
	for i, yi := range w.y {
		dst[i] = yi + theta*(r2[i]+theta1*(r3[i]+theta*(r4[i]+theta1*r5[i])))
	}
}
