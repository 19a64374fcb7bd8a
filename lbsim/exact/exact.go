package exact

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim"
)

// Defaults for the zero values of Problem's fields.
const (
	DefaultTol               = 1e-9
	DefaultMaxStates         = 2_000_000
	DefaultMaxTruncationMass = 1e-4
	DefaultMaxIterations     = 20_000

	// firstAutoCap is the first cap tried when Problem.Cap is 0.
	firstAutoCap = 8
	// maxStatesLimit bounds MaxStates: state indices are stored as int32.
	maxStatesLimit = math.MaxInt32
)

// Problem is one truncated chain to solve: a system of servers, an arrival
// rate, a routing policy and the truncation.
type Problem struct {
	// System gives the number of servers (N >= 1), their service rates (nil
	// means all 1) and the origin weights (nil means uniform), which matter,
	// and are checked, only for policies that use origins (lbsim.Needs.Origin).
	System lbsim.System
	// Lambda is the arrival rate per server: tasks arrive at total rate
	// Lambda*N. It must be positive and finite. The truncated chain is stable
	// for any Lambda, but an automatic cap needs Lambda*N < sum of the rates.
	Lambda float64
	// Policy routes the tasks: any policy the constructors of package lbsim
	// return. Solve needs its exact routing distribution (lbsim.ExactRouter)
	// and refuses a policy without one (JSWd, or a wrapper such as
	// lbsim.CountDraws) with an error naming it. If it implements
	// lbsim.Preparer, Solve calls Prepare and uses the returned policy when
	// that is an ExactRouter.
	Policy lbsim.Policy
	// Cap is the largest queue length K >= 1 of each server: a task routed to a
	// server holding K tasks is lost (the policy state still moves to the
	// Next of the routing choice). Zero chooses K automatically, increasing it
	// until the truncation mass is below Tol (see Solve).
	Cap int
	// Tol is the target both for convergence and, when Cap is 0, for the
	// truncation mass. The iteration stops when ||pi Q||_1 <= Tol * (Lambda*N +
	// sum of the rates), the total rate of the chain, and the flows across the
	// cuts between adjacent levels (of the total and of each queue) balance to
	// relative accuracy sqrt(Tol), which keeps the tail, and so the truncation
	// mass, accurate. Zero means DefaultTol; otherwise it must be in (0, 0.1].
	Tol float64
	// MaxStates limits the number of states (N lengths and the policy state).
	// Zero means DefaultMaxStates; at most 2^31-1.
	MaxStates int
	// MaxTruncationMass is the largest truncation mass accepted when the
	// automatic cap cannot reach Tol within MaxStates: such a solution is
	// returned with CapLimited set; above it Solve fails. Zero means
	// DefaultMaxTruncationMass. Unused when Cap is set.
	MaxTruncationMass float64
	// MaxIterations limits the iterations of one solve. Zero means
	// DefaultMaxIterations.
	MaxIterations int
}

// Solution is the stationary distribution of a truncated chain and the
// performance measures derived from it.
type Solution struct {
	// Cap is the per-server cap K used, PolicyStates the number of policy
	// states and States the size of the state space, PolicyStates*(K+1)^N.
	Cap, PolicyStates, States int
	// Transitions is the number of distinct arrival transitions stored;
	// departures (N per state at most) are implicit.
	Transitions int
	// CapsTried lists the caps solved, in order; the last is Cap.
	CapsTried []int
	// CapLimited is set when the automatic cap stopped at the state limit with
	// the truncation mass above Tol (but within MaxTruncationMass); Note says so.
	CapLimited bool
	Note       string

	// Occupancy[i-1] = q_i = E[number of servers with at least i tasks]/N
	// for i = 1..Cap, indexed as lbsim.Result.Occupancy is; Q(i) reads it
	// by level.
	Occupancy []float64
	// QueueLength[j][l] = P(server j holds l tasks), l = 0..Cap.
	QueueLength [][]float64
	// MeanTasksPerServer is E[total tasks]/N = sum_{i>=1} q_i.
	MeanTasksPerServer float64
	// AcceptedRate is the rate of tasks that join a queue (Lambda*N minus
	// losses at the cap); it equals the departure rate.
	AcceptedRate float64
	// LossProbability is the fraction of tasks lost at the cap.
	LossProbability float64
	// MeanSojourn is the mean time an accepted task spends in the system,
	// E[total tasks]/AcceptedRate (Little's law).
	MeanSojourn float64
	// WaitProbability is the probability that an accepted task joins a busy
	// server (by PASTA, averaged over the stationary state and the routing).
	WaitProbability float64
	// TruncationMass is the stationary probability that some queue is at the cap.
	TruncationMass float64

	// Residual is ||pi Q||_1 of the returned distribution, CutImbalance the
	// largest relative imbalance of the flows across a cut between adjacent
	// levels (of the total or of one queue), and Iterations the number of
	// iterations of the last solve.
	Residual     float64
	CutImbalance float64
	Iterations   int

	n, k, size int
	pi         []float64
}

// Prob returns the stationary probability that the queue lengths are lengths,
// summed over the policy states. It returns 0 for lengths of the wrong size or
// with a value outside 0..Cap.
func (s *Solution) Prob(lengths []int) float64 {
	p := 0.0
	for ps := range s.PolicyStates {
		p += s.ProbState(lengths, ps)
	}
	return p
}

// ProbState returns the stationary probability of queue lengths lengths and
// policy state pstate, or 0 if they are outside the state space.
func (s *Solution) ProbState(lengths []int, pstate int) float64 {
	if len(lengths) != s.n || pstate < 0 || pstate >= s.PolicyStates {
		return 0
	}
	idx, stride := pstate*s.size, 1
	for _, l := range lengths {
		if l < 0 || l > s.k {
			return 0
		}
		idx += l * stride
		stride *= s.k + 1
	}
	return s.pi[idx]
}

// Q returns q_i, the expected fraction of servers with at least i tasks:
// 1 for i <= 0, 0 above the cap.
func (s *Solution) Q(i int) float64 {
	switch {
	case i <= 0:
		return 1
	case i > len(s.Occupancy):
		return 0
	}
	return s.Occupancy[i-1]
}

// Distribution returns the stationary distribution, indexed by
// pstate*(Cap+1)^N + sum_j lengths[j]*(Cap+1)^j. It is the Solution's own
// slice: do not modify it.
func (s *Solution) Distribution() []float64 { return s.pi }

// problem is a validated Problem with its defaults filled in.
type problem struct {
	Problem
	ps      int
	origins []origin
	target  float64 // residual target
	cutTol  float64 // cut imbalance target
}

func validate(p Problem) (*problem, error) {
	q := &problem{Problem: p}
	sys := p.System
	n := sys.N
	if n < 1 {
		return nil, fmt.Errorf("System.N = %d: must be at least 1", n)
	}
	if !(p.Lambda > 0) || math.IsInf(p.Lambda, 0) {
		return nil, fmt.Errorf("Lambda = %v: must be positive and finite", p.Lambda)
	}
	sumMu := 0.0
	if sys.Rates != nil {
		if len(sys.Rates) != n {
			return nil, fmt.Errorf("System.Rates has %d values: want one per server (%d)", len(sys.Rates), n)
		}
		for j, r := range sys.Rates {
			if !(r > 0) || math.IsInf(r, 0) {
				return nil, fmt.Errorf("System.Rates[%d] = %v: must be positive and finite", j, r)
			}
		}
	}
	for j := range n {
		sumMu += sys.Rate(j)
	}
	if p.Policy == nil {
		return nil, errors.New("Policy is nil: want an lbsim.ExactRouter")
	}
	if _, ok := p.Policy.(lbsim.ExactRouter); !ok {
		return nil, fmt.Errorf("policy %q cannot be solved exactly: it does not state its routing distribution (lbsim.ExactRouter)", policyName(p.Policy))
	}
	if q.Cap < 0 {
		return nil, fmt.Errorf("Cap = %d: must be at least 1, or 0 to choose it automatically", q.Cap)
	}
	switch {
	case q.Tol == 0:
		q.Tol = DefaultTol
	case !(q.Tol > 0 && q.Tol <= 0.1):
		return nil, fmt.Errorf("Tol = %v: must be in (0, 0.1], or 0 for the default %g", q.Tol, DefaultTol)
	}
	switch {
	case q.MaxStates == 0:
		q.MaxStates = DefaultMaxStates
	case q.MaxStates < 2 || q.MaxStates > maxStatesLimit:
		return nil, fmt.Errorf("MaxStates = %d: must be in [2, %d], or 0 for the default %d", q.MaxStates, maxStatesLimit, DefaultMaxStates)
	}
	switch {
	case q.MaxTruncationMass == 0:
		q.MaxTruncationMass = DefaultMaxTruncationMass
	case !(q.MaxTruncationMass > 0 && q.MaxTruncationMass < 1):
		return nil, fmt.Errorf("MaxTruncationMass = %v: must be in (0, 1), or 0 for the default %g", q.MaxTruncationMass, DefaultMaxTruncationMass)
	}
	switch {
	case q.MaxIterations == 0:
		q.MaxIterations = DefaultMaxIterations
	case q.MaxIterations < 0:
		return nil, fmt.Errorf("MaxIterations = %d: must be positive, or 0 for the default %d", q.MaxIterations, DefaultMaxIterations)
	}

	// Origins: where tasks appear and at which rate.
	lt := p.Lambda * float64(n)
	if lbsim.NeedsOf(p.Policy).Origin {
		w := sys.OriginWeights
		if w == nil {
			for j := range n {
				q.origins = append(q.origins, origin{server: j, rate: p.Lambda})
			}
		} else {
			if len(w) != n {
				return nil, fmt.Errorf("System.OriginWeights has %d values: want one per server (%d)", len(w), n)
			}
			sum := 0.0
			for j, x := range w {
				if !(x >= 0) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("System.OriginWeights[%d] = %v: must be finite and >= 0", j, x)
				}
				sum += x
			}
			if !(sum > 0) {
				return nil, errors.New("System.OriginWeights are all zero: at least one must be positive")
			}
			for j, x := range w {
				if x > 0 {
					q.origins = append(q.origins, origin{server: j, rate: lt * x / sum})
				}
			}
		}
	} else {
		q.origins = []origin{{server: -1, rate: lt}}
	}

	q.ps = 1
	if sr, ok := p.Policy.(lbsim.StatefulRouter); ok {
		q.ps = sr.PolicyStates(sys)
		if q.ps < 1 {
			return nil, fmt.Errorf("policy %q: PolicyStates = %d, want at least 1", policyName(p.Policy), q.ps)
		}
	}
	if n > 127 { // server indices are stored as int8; 2^N states would exceed the limit anyway
		return nil, fmt.Errorf("System.N = %d: at most 127 servers (the state space has at least 2^N states)", n)
	}
	if q.Cap > 0 {
		if stateCount(n, q.Cap, q.ps, q.MaxStates) < 0 {
			return nil, fmt.Errorf("Cap = %d: the state space has %s states (%d policy states x (Cap+1)^%d), more than MaxStates = %d",
				q.Cap, countString(n, q.Cap, q.ps), q.ps, n, q.MaxStates)
		}
	} else {
		if lt >= sumMu {
			return nil, fmt.Errorf("Lambda = %v: the automatic cap needs Lambda*N = %v below the total service rate %v; set Cap to solve the overloaded truncated chain", p.Lambda, lt, sumMu)
		}
		if maxCap(n, q.ps, q.MaxStates) < 1 {
			return nil, fmt.Errorf("System.N = %d: even Cap = 1 needs %s states (%d policy states x 2^%d), more than MaxStates = %d",
				n, countString(n, 1, q.ps), q.ps, n, q.MaxStates)
		}
	}
	q.target = q.Tol * (lt + sumMu)
	q.cutTol = math.Sqrt(q.Tol)
	return q, nil
}

// countString formats ps*(k+1)^n, which may overflow an int.
func countString(n, k, ps int) string {
	c := float64(ps) * math.Pow(float64(k+1), float64(n))
	if c < 1e15 {
		return fmt.Sprintf("%.0f", c)
	}
	return fmt.Sprintf("%.3g", c)
}

// Solve computes the stationary distribution of the chain of p truncated at
// p.Cap tasks per server and the measures of its Solution.
//
// With p.Cap = 0 it solves with cap 8 (or the largest cap within MaxStates, if
// smaller) and then raises the cap, guided by the geometric decay of the
// truncation mass over the caps already solved, until the truncation mass is
// below Tol. Each solve starts from the previous distribution. If the largest
// cap within MaxStates still leaves a truncation mass above Tol, Solve returns
// that solution with CapLimited set and an explanatory Note when the mass is at
// most MaxTruncationMass, and an error otherwise.
//
// Solve returns an error for invalid input, for a policy whose Route returns an
// invalid distribution (probabilities not summing to 1 within 1e-9, a server or
// policy state out of range) or panics, when the iteration does not converge
// within MaxIterations, and when ctx is done.
func Solve(ctx context.Context, p Problem) (sol *Solution, err error) {
	// The policy's methods are user code: turn their panics into errors.
	// (Route's panics are caught where the state is known, in buildChain.)
	defer func() {
		if r := recover(); r != nil {
			sol, err = nil, fmt.Errorf("policy %q panicked: %v", policyName(p.Policy), r)
		}
	}()
	q, err := validate(p)
	if err != nil {
		return nil, err
	}
	if pr, ok := q.Policy.(lbsim.Preparer); ok {
		prepared, err := pr.Prepare(q.System)
		if err != nil {
			return nil, fmt.Errorf("policy %q: %w", policyName(q.Policy), err)
		}
		if er, ok := prepared.(lbsim.ExactRouter); ok && er != nil {
			q.Policy = er
		}
	}
	if q.Cap > 0 {
		return q.solveAt(ctx, q.Cap, nil)
	}

	kmax := maxCap(q.System.N, q.ps, q.MaxStates)
	k := min(firstAutoCap, kmax)
	var (
		tried []int
		ks    []int
		mass  []float64
	)
	for {
		sol, err = q.solveAt(ctx, k, sol)
		if err != nil {
			return nil, err
		}
		tried = append(tried, k)
		sol.CapsTried = tried
		if sol.TruncationMass < q.Tol {
			return sol, nil
		}
		if k >= kmax {
			break
		}
		ks, mass = append(ks, k), append(mass, sol.TruncationMass)
		k = nextCap(ks, mass, q.Tol, kmax)
	}
	if sol.TruncationMass > q.MaxTruncationMass {
		return nil, fmt.Errorf("truncation mass %.3g at Cap = %d exceeds MaxTruncationMass = %g, and a larger cap would exceed MaxStates = %d (the chain is too heavily loaded for this state limit: raise MaxStates or set Cap)",
			sol.TruncationMass, k, q.MaxTruncationMass, q.MaxStates)
	}
	sol.CapLimited = true
	sol.Note = fmt.Sprintf("cap %d is the largest within MaxStates = %d; its truncation mass %.3g is above Tol = %g (accepted up to MaxTruncationMass = %g)",
		k, q.MaxStates, sol.TruncationMass, q.Tol, q.MaxTruncationMass)
	return sol, nil
}

// nextCap chooses the next cap from the truncation masses of the caps solved so
// far. The mass decays roughly geometrically in the cap; with two points the
// decay rate predicts the cap that reaches tol (plus a margin of 2), otherwise
// the cap doubles. The result is in (last, 4*last] and at most kmax.
func nextCap(ks []int, mass []float64, tol float64, kmax int) int {
	last := ks[len(ks)-1]
	k := 2 * last
	if n := len(ks); n >= 2 && mass[n-1] > 0 && mass[n-2] > mass[n-1] {
		logRate := math.Log(mass[n-1]/mass[n-2]) / float64(ks[n-1]-ks[n-2])
		need := math.Log(tol/mass[n-1]) / logRate
		if need < float64(4*last) {
			k = last + int(math.Ceil(need)) + 2
		} else {
			k = 4 * last
		}
	}
	k = min(max(k, last+1), 4*last, kmax)
	return k
}

// solveAt solves the chain with cap k, starting from the distribution of prev
// (a solution at a smaller cap) if not nil.
func (q *problem) solveAt(ctx context.Context, k int, prev *Solution) (*Solution, error) {
	c, err := buildChain(ctx, q.System, q.Lambda, q.Policy.(lbsim.ExactRouter), q.ps, k, q.origins)
	if err != nil {
		return nil, err
	}
	pi := make([]float64, c.states)
	if prev != nil {
		c.extend(pi, prev)
	} else {
		for i := range pi {
			pi[i] = 1
		}
	}
	res, err := c.solve(ctx, pi, q.target, q.cutTol, q.MaxIterations)
	if err != nil {
		return nil, err
	}
	return c.solution(pi, res), nil
}

// extend fills pi with a starting point built from a solution at a smaller
// cap: states within the old cap keep their probability; beyond it, the
// probability of the nearest old state times r_j per task above the old cap at
// server j, where r_j is the ratio of the last two probabilities of the old
// marginal of server j (clamped to [0.01, 0.99]).
func (c *chain) extend(pi []float64, prev *Solution) {
	l := make([]int, c.n)
	clamped := make([]int, c.n)
	ratio := make([]float64, c.n)
	for j, dist := range prev.QueueLength {
		r := 0.5
		if k := len(dist) - 1; k >= 1 && dist[k-1] > 0 {
			r = dist[k] / dist[k-1]
		}
		ratio[j] = min(max(r, 0.01), 0.99)
	}
	for t := range pi {
		s := t / c.size
		scale := 1.0
		for j, lj := range l {
			clamped[j] = min(lj, prev.k)
			if lj > prev.k {
				scale *= math.Pow(ratio[j], float64(lj-prev.k))
			}
		}
		pi[t] = prev.ProbState(clamped, s)*scale + 1e-300
		next(l, c.k)
	}
}

// solution computes the measures from the stationary distribution pi.
func (c *chain) solution(pi []float64, res solveResult) *Solution {
	st := res.st
	n := float64(c.n)
	sol := &Solution{
		Cap:          c.k,
		PolicyStates: c.ps,
		States:       c.states,
		Transitions:  len(c.inSrc),
		CapsTried:    []int{c.k},
		Occupancy:    make([]float64, c.k),
		QueueLength:  st.server,
		Residual:     st.residual,
		CutImbalance: res.cut,
		Iterations:   res.iterations,
		n:            c.n,
		k:            c.k,
		size:         c.size,
		pi:           pi,
	}
	for _, dist := range st.server {
		tail := 0.0
		for i := c.k; i >= 1; i-- {
			tail += dist[i]
			sol.Occupancy[i-1] += tail / n
		}
	}
	sol.MeanTasksPerServer = st.meanTotal / n
	sol.AcceptedRate = st.accepted
	sol.LossProbability = max(0, 1-st.accepted/c.lambdaTotal)
	if st.accepted > 0 {
		sol.MeanSojourn = st.meanTotal / st.accepted
		sol.WaitProbability = st.busyJoin / st.accepted
	}
	sol.TruncationMass = st.truncation
	return sol
}
