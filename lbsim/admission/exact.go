package admission

import (
	"errors"
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim/param"
)

// System is an M/M/s queue in the QED regime: Servers unit-rate servers and
// Poisson arrivals at rate Lambda() = s - Beta*sqrt(s). Beta may be
// negative or zero: with a finite threshold the controlled chain is stable
// whatever the load.
type System struct {
	Servers int
	Beta    float64
}

// Lambda returns the arrival rate s - beta*sqrt(s).
func (sys System) Lambda() float64 {
	s := float64(sys.Servers)
	return s - sys.Beta*math.Sqrt(s)
}

// Check reports an error naming the bad field: servers < 1, beta not
// finite, or an arrival rate <= 0.
func (sys System) Check() error {
	if sys.Servers < 1 {
		return fmt.Errorf("servers = %d: must be at least 1", sys.Servers)
	}
	if math.IsNaN(sys.Beta) || math.IsInf(sys.Beta, 0) {
		return fmt.Errorf("beta = %v: must be finite", sys.Beta)
	}
	if l := sys.Lambda(); !(l > 0) {
		return fmt.Errorf("beta = %v: the arrival rate s - beta*sqrt(s) = %v must be > 0 (beta < sqrt(s) = %v)",
			sys.Beta, l, math.Sqrt(float64(sys.Servers)))
	}
	return nil
}

// underflow is where a term's log-weight, relative to the largest, is
// dropped: exp(-750) is below the smallest float64.
const underflow = 750

// pollEvery is how many states the scans add between checks for an
// interrupt (param.Interrupted): a scan over s = 10^15 servers adds about
// 10^9 states, a minute of work.
const pollEvery = 1 << 16

// interrupted is param.Interrupted every pollEvery steps (step k).
func interrupted(k int) error {
	if k%pollEvery != 0 {
		return nil
	}
	return param.Interrupted()
}

// sums accumulates N = Σ w_k r_k and Z = Σ w_k over states given by their
// log-weights, scaled by exp(-m) with m the largest log-weight so far (an
// online log-sum-exp), so that neither overflows for s up to 1e6 and
// beyond.
type sums struct{ m, n, z float64 }

func newSums() sums { return sums{m: math.Inf(-1)} }

func (a *sums) add(lw, rv float64) {
	if lw > a.m {
		f := math.Exp(a.m - lw)
		a.n *= f
		a.z *= f
		a.m = lw
	}
	w := math.Exp(lw - a.m)
	a.n += w * rv
	a.z += w
}

// scan walks the stationary law of the threshold chain. The chain moves
// k -> k+1 at rate lambda while k < s + tau and k -> k-1 at rate min(k, s),
// so pi(k) is proportional to lambda^k/k! up to s and to
// pi(s) (lambda/s)^(k-s) above. scan first sums the states 0..s (log-weights
// relative to state s, built from s down by adding log((k+1)/lambda); it
// stops once the weights fall below exp(-750) of the largest and can only
// fall further), then yields R_s(0), R_s(1), ... as it adds the queue
// states s+1, s+2, ... one by one: O(s + T) in all, no allocation.
type scan struct {
	s           int
	sqrtS, logR float64
	r           Revenue
	acc         sums
	tau         int
}

func newScan(sys System, r Revenue) (*scan, error) {
	if err := sys.Check(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, errors.New("revenue: nil")
	}
	s, lambda := sys.Servers, sys.Lambda()
	sc := &scan{s: s, sqrtS: math.Sqrt(float64(s)), logR: math.Log(lambda / float64(s)), r: r, acc: newSums()}
	sc.acc.add(0, r.At(0))
	lw := 0.0
	for k := s - 1; k >= 0; k-- {
		lw += math.Log(float64(k+1) / lambda) // pi(k)/pi(k+1) = (k+1)/lambda
		if float64(k+1) < lambda && lw < sc.acc.m-underflow {
			break // log((j+1)/lambda) < 0 for every j < k: the rest is smaller still
		}
		if err := interrupted(k); err != nil {
			return nil, err
		}
		sc.acc.add(lw, r.At(float64(k-s)/sc.sqrtS))
	}
	return sc, nil
}

// value is R_s(tau) for the current tau.
func (sc *scan) value() float64 { return sc.acc.n / sc.acc.z }

// next raises the threshold by one: it adds state s + tau + 1.
func (sc *scan) next() {
	sc.tau++
	sc.acc.add(float64(sc.tau)*sc.logR, sc.r.At(float64(sc.tau)/sc.sqrtS))
}

// RevenueRate returns R_s(tau), the long-run revenue rate of the threshold
// policy that admits an arrival iff fewer than s + tau tasks are present:
// Σ_k pi(k) r((k-s)/sqrt(s)) over the stationary law pi of the controlled
// chain on {0, ..., s+tau}.
func (sys System) RevenueRate(r Revenue, tau int) (float64, error) {
	c, err := sys.RevenueCurve(r, tau, tau)
	if err != nil {
		return math.NaN(), err
	}
	return c[0], nil
}

// MaxCurve bounds the length of a revenue curve.
const MaxCurve = 1 << 24

// RevenueCurve returns R_s(tau) for tau = lo, ..., hi, in O(s + hi).
func (sys System) RevenueCurve(r Revenue, lo, hi int) ([]float64, error) {
	if lo < 0 || hi < lo {
		return nil, fmt.Errorf("thresholds %d:%d: want 0 <= lo <= hi", lo, hi)
	}
	if hi-lo >= MaxCurve {
		return nil, fmt.Errorf("thresholds %d:%d: at most %d thresholds", lo, hi, MaxCurve)
	}
	sc, err := newScan(sys, r)
	if err != nil {
		return nil, err
	}
	out := make([]float64, 0, hi-lo+1)
	for {
		if sc.tau >= lo {
			out = append(out, sc.value())
		}
		if sc.tau == hi {
			return out, nil
		}
		if err := interrupted(sc.tau); err != nil {
			return nil, err
		}
		sc.next()
	}
}

// Optimum is the best threshold of a system: Threshold is tau*_s (the
// number of waiting places), Revenue is R_s(tau*_s).
type Optimum struct {
	Threshold int
	Revenue   float64
}

// MaxThreshold returns the largest threshold OptimalThreshold searches:
// 10^6 + 1000*ceil(sqrt(s)), a thousand times the QED scale.
func MaxThreshold(s int) int { return 1_000_000 + 1000*int(math.Ceil(math.Sqrt(float64(s)))) }

// ErrNoOptimum reports that R_s(tau) still increases at MaxThreshold: the
// revenue does not drop below the revenue rate (as for b = 0, where r is
// flat above 0).
var ErrNoOptimum = errors.New("no finite optimal threshold: the revenue function does not drop below the revenue rate")

// OptimalThreshold returns the smallest threshold tau*_s maximising
// R_s(tau) over tau >= 0, in O(s + tau*_s).
//
// Raising the threshold from tau to tau+1 adds state s+tau+1 with weight
// w > 0, so R_s(tau+1) = (N + w r_{tau+1})/(Z + w) lies strictly between
// R_s(tau) and r_{tau+1} = r((tau+1)/sqrt(s)): R increases iff r_{tau+1} >
// R_s(tau). Once r_{tau+1} <= R_s(tau), R_s(tau+1) >= r_{tau+1} >= r_{tau+2}
// (r is nonincreasing above 0), so R never increases again: R_s is
// unimodal and tau*_s = min{tau : r((tau+1)/sqrt(s)) <= R_s(tau)}, the
// discrete fundamental equation.
//
// It returns an error if CheckRevenue rejects r.
func (sys System) OptimalThreshold(r Revenue) (Optimum, error) {
	if err := CheckRevenue(r); err != nil {
		return Optimum{}, err
	}
	sc, err := newScan(sys, r)
	if err != nil {
		return Optimum{}, err
	}
	limit := MaxThreshold(sys.Servers)
	for {
		R := sc.value()
		if r.At(float64(sc.tau+1)/sc.sqrtS) <= R {
			return Optimum{Threshold: sc.tau, Revenue: R}, nil
		}
		if sc.tau >= limit {
			return Optimum{}, fmt.Errorf("%w (searched thresholds up to %d)", ErrNoOptimum, limit)
		}
		if err := interrupted(sc.tau); err != nil {
			return Optimum{}, err
		}
		sc.next()
	}
}

// Stationary returns the stationary law pi(0), ..., pi(s+tau) of the
// threshold chain (for checks and plots: it allocates s+tau+1 values).
func (sys System) Stationary(tau int) ([]float64, error) {
	if err := sys.Check(); err != nil {
		return nil, err
	}
	if tau < 0 {
		return nil, fmt.Errorf("threshold = %d: must be >= 0", tau)
	}
	s, lambda := sys.Servers, sys.Lambda()
	lw := make([]float64, s+tau+1)
	for k := s - 1; k >= 0; k-- {
		lw[k] = lw[k+1] + math.Log(float64(k+1)/lambda)
	}
	logR := math.Log(lambda / float64(s))
	for j := 1; j <= tau; j++ {
		lw[s+j] = float64(j) * logR
	}
	m := math.Inf(-1)
	for _, x := range lw {
		m = math.Max(m, x)
	}
	z := 0.0
	for k, x := range lw {
		lw[k] = math.Exp(x - m)
		z += lw[k]
	}
	for k := range lw {
		lw[k] /= z
	}
	return lw, nil
}
