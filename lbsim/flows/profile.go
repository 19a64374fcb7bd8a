package flows

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxProfileSteps bounds the steps of a lambda profile.
const MaxProfileSteps = 10000

// Step is a step of a time-varying arrival rate: from time T on, packets
// arrive at rate Lambda per server (flows at Lambda*N/m).
type Step struct {
	T, Lambda float64
}

// ParseProfile reads a lambda profile "T1:L1,T2:L2,...": from time Tk on,
// the packet arrival rate per server is Lk (before T1 it is lambda). The
// times must be finite, > 0 and strictly increasing; each Lk a finite
// number > 0 (Options.Check then checks it against the servers like
// lambda).
func ParseProfile(spec string) ([]Step, error) {
	var steps []Step
	for item := range strings.SplitSeq(spec, ",") {
		if len(steps) == MaxProfileSteps {
			return nil, fmt.Errorf("more than %d steps", MaxProfileSteps)
		}
		ts, ls, ok := strings.Cut(strings.TrimSpace(item), ":")
		t, terr := strconv.ParseFloat(strings.TrimSpace(ts), 64)
		l, lerr := strconv.ParseFloat(strings.TrimSpace(ls), 64)
		switch {
		case !ok || terr != nil || lerr != nil:
			return nil, fmt.Errorf("step %d %q: want TIME:LAMBDA (two numbers)", len(steps)+1, item)
		case !(t > 0) || math.IsInf(t, 0):
			return nil, fmt.Errorf("step %d: time %v: must be a finite time > 0", len(steps)+1, t)
		case len(steps) > 0 && !(t > steps[len(steps)-1].T):
			return nil, fmt.Errorf("step %d: time %v: must be after the previous step's (%v)", len(steps)+1, t, steps[len(steps)-1].T)
		case !(l > 0) || math.IsInf(l, 0):
			return nil, fmt.Errorf("step %d: lambda %v: must be a finite rate > 0", len(steps)+1, l)
		}
		steps = append(steps, Step{T: t, Lambda: l})
	}
	return steps, nil
}

// profileSpec is the profile as ParseProfile reads it ("" without one).
func (o *Options) profileSpec() string {
	parts := make([]string, len(o.Profile))
	for i, s := range o.Profile {
		parts[i] = strconv.FormatFloat(s.T, 'g', -1, 64) + ":" + strconv.FormatFloat(s.Lambda, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// peakLambda is the largest arrival rate per server, of lambda and the
// profile's steps: what the estimates of records and flows in progress use.
func (o *Options) peakLambda() float64 {
	l := o.Lambda
	for _, s := range o.Profile {
		l = max(l, s.Lambda)
	}
	return l
}

// checkProfile refuses steps after the horizon (never reached) and, at each
// step, a load the servers cannot carry (checkLambda: every level must be
// stable on its own).
func (o *Options) checkProfile() error {
	for i, s := range o.Profile {
		if !(s.T > 0) || !(s.T < o.Horizon) || (i > 0 && !(s.T > o.Profile[i-1].T)) {
			return fmt.Errorf("%s: step %d: time %v: must be in (0, horizon = %v) and after the previous step's", keyLambdaProfile, i+1, s.T, o.Horizon)
		}
		if err := o.checkLambda(s.Lambda, fmt.Sprintf("%s: step %d (t = %v): lambda", keyLambdaProfile, i+1, s.T)); err != nil {
			return err
		}
	}
	return nil
}

// stop returns the end of the next stretch of run: end, or the next step's
// time if it comes first.
func (e *engine) stop(end float64) float64 {
	if e.step < len(e.o.Profile) && e.o.Profile[e.step].T < end {
		return e.o.Profile[e.step].T
	}
	return end
}

// nextStep applies the profile's next step: the flow arrival rate changes
// (flows in progress keep their packet rate).
func (e *engine) nextStep() {
	e.lf = e.o.Profile[e.step].Lambda * float64(e.n) / e.o.PacketsPerFlow
	e.step++
}
