package csma

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Step is the step-size schedule a_m = A / m^P of window m = 1, 2, ...
// (P = 0: constant steps).
type Step struct{ A, P float64 }

// At is a_m.
func (s Step) At(m int) float64 {
	if s.P == 0 {
		return s.A
	}
	return s.A / math.Pow(float64(m), s.P)
}

func (s Step) String() string {
	switch s.P {
	case 0:
		return strconv.FormatFloat(s.A, 'g', -1, 64)
	case 1:
		return strconv.FormatFloat(s.A, 'g', -1, 64) + "/m"
	}
	return strconv.FormatFloat(s.A, 'g', -1, 64) + "/m^" + strconv.FormatFloat(s.P, 'g', -1, 64)
}

// ParseStep reads a step schedule: "A" (constant), "A/m" or "A/m^P", with
// A a finite number > 0 and P in (0, 1].
func ParseStep(spec string) (Step, error) {
	a, rest, ok := strings.Cut(strings.TrimSpace(spec), "/")
	s := Step{}
	var err error
	if s.A, err = strconv.ParseFloat(strings.TrimSpace(a), 64); err != nil {
		return s, fmt.Errorf("want A, A/m or A/m^P with A a number")
	}
	if !(s.A > 0) || math.IsInf(s.A, 0) {
		return s, fmt.Errorf("A = %v: the step must be a finite number > 0", s.A)
	}
	if !ok {
		return s, nil
	}
	rest = strings.TrimSpace(rest)
	if rest == "m" {
		s.P = 1
		return s, nil
	}
	p, found := strings.CutPrefix(rest, "m^")
	if !found {
		return s, fmt.Errorf("want A, A/m or A/m^P; got /%s", rest)
	}
	if s.P, err = strconv.ParseFloat(p, 64); err != nil || !(s.P > 0 && s.P <= 1) {
		return s, fmt.Errorf("P = %q: the power of m must be a number in (0, 1]", p)
	}
	return s, nil
}

// Schedule gives the step and the length of each window: window m lasts
// T_m = Window m^Growth.
type Schedule struct {
	Step   Step
	Window float64
	Growth float64
}

// Length is T_m.
func (s Schedule) Length(m int) float64 {
	if s.Growth == 0 {
		return s.Window
	}
	return s.Window * math.Pow(float64(m), s.Growth)
}

// TotalTime is the summed length of windows 1..m.
func (s Schedule) TotalTime(m int) float64 {
	if s.Growth == 0 {
		return s.Window * float64(m)
	}
	t := 0.0
	for k := 1; k <= m; k++ {
		t += s.Length(k)
	}
	return t
}

// ErrDiverged reports that theta left [-MaxTheta, MaxTheta].
var ErrDiverged = errors.New("theta diverged")

// Online is the online gradient algorithm: the process runs with the
// current theta; after window m (of length T_m) theta moves by a_m times
// the gradient estimated from the window's measurements, and the process
// continues from its current state (it is not restarted, which is what
// makes the estimates biased: the state at the start of a window follows
// the law of the previous theta, not pi_theta).
type Online struct {
	Process   Process
	Objective Objective
	Schedule  Schedule
	// Theta is the current parameter vector.
	Theta []float64
	// M is the number of windows done; Time the process time; Events the
	// process's transitions.
	M      int
	Time   float64
	Events int64

	mean, second, grad []float64
}

// Window is what one window measured.
type Window struct {
	M           int
	Start, Time float64
	// Theta is the parameter used during the window, Next the one after
	// the update; Mean the measured mean of phi (the activities); Grad the
	// gradient estimate.
	Theta, Next, Mean, Grad []float64
	Events                  int64
}

// NewOnline returns the algorithm from theta0 (nil: zeros).
func NewOnline(p Process, obj Objective, sched Schedule, theta0 []float64) (*Online, error) {
	d := p.Dim()
	if theta0 == nil {
		theta0 = make([]float64, d)
	}
	if len(theta0) != d {
		return nil, fmt.Errorf("csma: %d initial parameters, want %d", len(theta0), d)
	}
	for i, t := range theta0 {
		if !(math.Abs(t) <= MaxTheta) {
			return nil, fmt.Errorf("csma: theta0[%d] = %v: want a number in [-%v, %v]", i, t, MaxTheta, MaxTheta)
		}
	}
	if !(sched.Window > 0) || math.IsInf(sched.Window, 0) || !(sched.Growth >= 0) || !(sched.Step.A > 0) {
		return nil, fmt.Errorf("csma: schedule %+v: want a window > 0, growth >= 0 and a step > 0", sched)
	}
	o := &Online{Process: p, Objective: obj, Schedule: sched, Theta: append([]float64(nil), theta0...)}
	p.SetTheta(o.Theta)
	return o, nil
}

// Run runs windows more windows, calling each (if not nil) after every
// window with what it measured (the slices are reused: copy what you
// keep). It stops with an error wrapping ErrDiverged if theta leaves
// [-MaxTheta, MaxTheta] or is NaN, and with ctx's error when cancelled.
func (o *Online) Run(ctx context.Context, windows int, each func(*Window)) error {
	d := o.Process.Dim()
	if len(o.mean) != d {
		o.mean, o.grad = make([]float64, d), make([]float64, d)
		o.second = nil
	}
	if o.Objective.SecondMoments() && o.second == nil {
		o.second = make([]float64, d*d)
	}
	var second []float64
	if o.Objective.SecondMoments() {
		second = o.second
	}
	o.Process.SetTheta(o.Theta) // Theta or Process may have changed since the last call
	win := Window{Theta: make([]float64, d)}
	for range windows {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := o.M + 1
		t := o.Schedule.Length(m)
		events, err := o.Process.Measure(ctx, t, o.mean, second)
		o.Events += events
		if err != nil {
			return err
		}
		o.Objective.Gradient(o.Theta, o.mean, second, o.grad)
		copy(win.Theta, o.Theta)
		a := o.Schedule.Step.At(m)
		for i, g := range o.grad {
			o.Theta[i] += a * g
			if !(math.Abs(o.Theta[i]) <= MaxTheta) {
				return fmt.Errorf("%w at window %d: theta[%d] = %v is beyond ±%v (activation rate e^theta); "+
					"the targets may be outside the capacity region or the step too large", ErrDiverged, m, i, o.Theta[i], MaxTheta)
			}
		}
		o.Process.SetTheta(o.Theta)
		win.M, win.Start, win.Time, win.Events = m, o.Time, t, events
		win.Next, win.Mean, win.Grad = o.Theta, o.mean, o.grad
		o.M = m
		o.Time += t
		if each != nil {
			each(&win)
		}
	}
	return nil
}
