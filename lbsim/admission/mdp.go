package admission

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// Optimality over every policy (mdp.go). PolicyRevenue and the proof in
// doc.go cover randomized stationary policies of the birth-death chain. The
// admission problem is also a Markov decision process on a finite state
// space {0, ..., K} (K: a truncation far above s + tau*_s), and two
// standard solvers give its optimal long-run revenue over every
// non-anticipating policy, stationary or not, randomized or not, without
// assuming the threshold form:
//
//   - RelativeValueIteration: the continuous-time process is uniformized
//     at a rate Λ above every state's total rate (so that every state has
//     a self-loop and the discrete chain is aperiodic), and V <- T V - (T
//     V)(0) is iterated with (T V)(k) = max_a [r(k, a)/Λ + Σ_j P_a(k, j)
//     V(j)]. For any V, Λ min_k (T V - V)(k) <= g* <= Λ max_k (T V -
//     V)(k) (Odoni's bounds; g* the optimal gain from any state), so the
//     result is a bracket [Lower, Upper] of the optimum, not an estimate;
//     it is iterated until the bracket is narrower than the tolerance.
//   - SolveLP: the occupation-measure linear program, maximise Σ r(k, a)
//     x(k, a) over x >= 0 with the balance equations Σ_a x(j, a) q_a(j) =
//     Σ_{k,a} x(k, a) q_a(k, j) and Σ x = 1, whose optimum is the optimal
//     gain of a unichain MDP (Puterman, ch. 8.8 and 9.5). The simplex
//     fails on the raw program (pi(0) ~ 1e-21 at s = 50, below its
//     tolerances; doc.go), so the variables are scaled, x(k, a) = w_k
//     y(k, a) with w the stationary weights of full admission, and balance
//     row j divided by w_j Λ: then every balance coefficient is a rate over
//     Λ and the y are of one order. The normalization row keeps the w, so
//     the truncation must not reach far into states of negligible weight:
//     with K = s + 2 tau*_s + 10 the scaled LP matches R_s(tau*_s) to 1e-12
//     for s = 20..100 and beta = -1..2 (tests); with K = s + 4 tau*_s + 10
//     it reports a singular basis at beta = 2. Value iteration has no such
//     limit (its bracket stops closing near 1e-11 at s = 1000, rounding).
//
// AdmissionMDP builds the admission problem, with arrivals one at a time
// (the paper's model) or in batches admitted all or none (a model outside
// the paper, where the chain can jump over a rejecting state and
// thresholds need not be optimal).

// Action is one action of an MDP state: the reward rate earned while the
// state is occupied under it and the transition rates it sets.
type Action struct {
	Reward float64
	To     []int
	Rates  []float64
}

// MDP is a finite continuous-time Markov decision process with
// average-reward criterion: Actions[k] are the actions available in state k
// (at least one each).
type MDP struct {
	Actions [][]Action
}

// Gain is the optimal (or a policy's) long-run reward rate bracketed by
// value iteration: Lower <= g <= Upper. Policy is a maximising action per
// state at the last iteration.
type Gain struct {
	Lower, Upper float64
	Policy       []int
	Iterations   int
}

// Mid is the middle of the bracket and Half its half-width.
func (g Gain) Mid() float64  { return (g.Lower + g.Upper) / 2 }
func (g Gain) Half() float64 { return (g.Upper - g.Lower) / 2 }

// ErrNotConverged is returned by RelativeValueIteration when the bracket
// is still wider than the tolerance after the iterations allowed.
var ErrNotConverged = errors.New("value iteration: the bracket did not close to the tolerance")

func (m *MDP) check() (rate float64, err error) {
	n := len(m.Actions)
	if n == 0 {
		return 0, errors.New("mdp: no states")
	}
	for k, acts := range m.Actions {
		if len(acts) == 0 {
			return 0, fmt.Errorf("mdp: state %d has no action", k)
		}
		for a, act := range acts {
			if len(act.To) != len(act.Rates) {
				return 0, fmt.Errorf("mdp: state %d action %d: %d targets, %d rates", k, a, len(act.To), len(act.Rates))
			}
			if math.IsNaN(act.Reward) || math.IsInf(act.Reward, 0) {
				return 0, fmt.Errorf("mdp: state %d action %d: reward %v", k, a, act.Reward)
			}
			out := 0.0
			for i, j := range act.To {
				if j < 0 || j >= n || j == k {
					return 0, fmt.Errorf("mdp: state %d action %d: target %d (states 0..%d, no self-loops)", k, a, j, n-1)
				}
				if !(act.Rates[i] > 0) || math.IsInf(act.Rates[i], 0) {
					return 0, fmt.Errorf("mdp: state %d action %d: rate %v", k, a, act.Rates[i])
				}
				out += act.Rates[i]
			}
			rate = math.Max(rate, out)
		}
	}
	if rate == 0 {
		return 0, errors.New("mdp: no transitions")
	}
	return rate, nil
}

// uniformRate is the uniformization rate: 1/16 above the largest total
// rate, so that every state keeps a self-loop of probability >= 1/17.
func uniformRate(maxOut float64) float64 { return maxOut * 17 / 16 }

// RelativeValueIteration brackets the optimal gain over all policies to
// within tol (Upper - Lower <= tol), iterating at most maxIter times; it
// returns the bracket reached with ErrNotConverged otherwise.
func (m *MDP) RelativeValueIteration(tol float64, maxIter int) (Gain, error) {
	return m.iterate(nil, tol, maxIter)
}

// Evaluate brackets the gain of the stationary deterministic policy that
// takes action policy[k] in state k, by the same iteration with one action
// per state.
func (m *MDP) Evaluate(policy []int, tol float64, maxIter int) (Gain, error) {
	if len(policy) != len(m.Actions) {
		return Gain{}, fmt.Errorf("mdp: policy has %d states, the MDP %d", len(policy), len(m.Actions))
	}
	for k, a := range policy {
		if a < 0 || a >= len(m.Actions[k]) {
			return Gain{}, fmt.Errorf("mdp: policy[%d] = %d: state %d has %d actions", k, a, k, len(m.Actions[k]))
		}
	}
	return m.iterate(policy, tol, maxIter)
}

func (m *MDP) iterate(fixed []int, tol float64, maxIter int) (Gain, error) {
	maxOut, err := m.check()
	if err != nil {
		return Gain{}, err
	}
	if !(tol > 0) {
		return Gain{}, fmt.Errorf("mdp: tolerance %v must be > 0", tol)
	}
	L := uniformRate(maxOut)
	n := len(m.Actions)
	v, next := make([]float64, n), make([]float64, n)
	g := Gain{Lower: math.Inf(-1), Upper: math.Inf(1), Policy: make([]int, n)}
	for it := 1; it <= maxIter; it++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for k, acts := range m.Actions {
			best, arg := math.Inf(-1), 0
			for a, act := range acts {
				if fixed != nil && a != fixed[k] {
					continue
				}
				// r/Λ + Σ_j P(k, j) V(j) - V(k), with P(k, k) = 1 - out/Λ.
				x := act.Reward / L
				for i, j := range act.To {
					x += act.Rates[i] / L * (v[j] - v[k])
				}
				if x > best {
					best, arg = x, a
				}
			}
			next[k] = v[k] + best
			g.Policy[k] = arg
			lo, hi = math.Min(lo, best), math.Max(hi, best)
		}
		g.Lower, g.Upper, g.Iterations = L*lo, L*hi, it
		ref := next[0]
		for k := range next {
			v[k] = next[k] - ref
		}
		if g.Upper-g.Lower <= tol {
			return g, nil
		}
	}
	return g, fmt.Errorf("%w: [%.15g, %.15g] after %d iterations, tolerance %g", ErrNotConverged, g.Lower, g.Upper, maxIter, tol)
}

// LPSolution is the optimum of the occupation-measure linear program:
// Gain = Σ r x and Occupation[k][a] = x(k, a), the long-run fraction of
// time in state k under action a.
type LPSolution struct {
	Gain       float64
	Occupation [][]float64
}

// SolveLP solves the occupation-measure linear program with gonum's simplex
// (tolerance 1e-12 on the reduced costs). weights w_k > 0 scale the
// variables, x(k, a) = w_k y(k, a); nil means w = 1. Good weights are
// close to the stationary law of the optimal policy (for the admission
// problem: of full admission, AdmissionMDP's second result).
func (m *MDP) SolveLP(weights []float64) (LPSolution, error) {
	maxOut, err := m.check()
	if err != nil {
		return LPSolution{}, err
	}
	n := len(m.Actions)
	w := make([]float64, n)
	top := 0.0
	for k := range w {
		w[k] = 1
		if weights != nil {
			if len(weights) != n {
				return LPSolution{}, fmt.Errorf("mdp: %d weights for %d states", len(weights), n)
			}
			w[k] = weights[k]
		}
		if !(w[k] > 0) || math.IsInf(w[k], 0) {
			return LPSolution{}, fmt.Errorf("mdp: weight %d is %v: must be positive", k, w[k])
		}
		top = math.Max(top, w[k])
	}
	for k := range w {
		w[k] /= top
	}
	L := uniformRate(maxOut)
	col := make([][]int, n)
	cols := 0
	for k, acts := range m.Actions {
		for range acts {
			col[k] = append(col[k], cols)
			cols++
		}
	}
	// Rows 0..n-2: balance of states 0..n-2 (the last is implied); row n-1: normalization.
	a := mat.NewDense(n, cols, nil)
	b := make([]float64, n)
	c := make([]float64, cols)
	for k, acts := range m.Actions {
		for ai, act := range acts {
			j := col[k][ai]
			c[j] = -act.Reward * w[k]
			a.Set(n-1, j, w[k])
			out := 0.0
			for i, to := range act.To {
				out += act.Rates[i]
				if to < n-1 {
					a.Set(to, j, a.At(to, j)-act.Rates[i]*w[k]/(w[to]*L))
				}
			}
			if k < n-1 {
				a.Set(k, j, a.At(k, j)+out/L)
			}
		}
	}
	b[n-1] = 1
	opt, y, err := lp.Simplex(c, a, b, 1e-12, nil)
	if err != nil {
		return LPSolution{}, fmt.Errorf("mdp: simplex: %w", err)
	}
	sol := LPSolution{Gain: -opt, Occupation: make([][]float64, n)}
	for k := range m.Actions {
		for _, j := range col[k] {
			sol.Occupation[k] = append(sol.Occupation[k], w[k]*y[j])
		}
	}
	return sol, nil
}

// Admission actions: Reject (action 0) and Admit (action 1, absent where
// a batch would exceed the truncation).
const (
	Reject = 0
	Admit  = 1
)

// AdmissionMDP is the admission problem of sys with revenue r on the states
// 0..states-1: in state k the revenue rate is r((k-s)/sqrt(s)), tasks leave
// at rate min(k, s), and arrivals come at rate lambda in batches of batch
// tasks (1: the paper's model), admitted all or none: action Admit moves to
// k + batch at rate lambda (only where k + batch < states), Reject keeps
// them out. weights are the stationary weights of full admission for batch
// 1 (scaled to a largest of 1), to scale SolveLP; for other batches the
// same weights, a fair scale.
func (sys System) AdmissionMDP(r Revenue, states, batch int) (*MDP, []float64, error) {
	if err := sys.Check(); err != nil {
		return nil, nil, err
	}
	if r == nil {
		return nil, nil, errors.New("revenue: nil")
	}
	if batch < 1 {
		return nil, nil, fmt.Errorf("batch = %d: must be at least 1", batch)
	}
	s := sys.Servers
	if states < s+batch+1 {
		return nil, nil, fmt.Errorf("states = %d: must exceed s + batch = %d", states, s+batch)
	}
	lambda, sq := sys.Lambda(), math.Sqrt(float64(s))
	m := &MDP{Actions: make([][]Action, states)}
	lw := make([]float64, states)
	for k := range states {
		rev := r.At(float64(k-s) / sq)
		var reject Action
		reject.Reward = rev
		if k > 0 {
			reject.To, reject.Rates = []int{k - 1}, []float64{float64(min(k, s))}
		}
		acts := []Action{reject}
		if k+batch < states {
			admit := Action{Reward: rev, To: append([]int{k + batch}, reject.To...),
				Rates: append([]float64{lambda}, reject.Rates...)}
			acts = append(acts, admit)
		}
		m.Actions[k] = acts
		if k > 0 {
			lw[k] = lw[k-1] + math.Log(lambda/float64(min(k, s)))
		}
	}
	top := math.Inf(-1)
	for _, x := range lw {
		top = math.Max(top, x)
	}
	w := make([]float64, states)
	for k, x := range lw {
		// Floor the weights (see weightFloor).
		w[k] = math.Max(math.Exp(x-top), weightFloor)
	}
	return m, w, nil
}

// AdmitLevel is the first state from 0 at which policy rejects (the
// level L of "admit iff k < L" when the policy is a threshold on the states
// it reaches), or len(policy) if it never does.
func AdmitLevel(policy []int) int {
	for k, a := range policy {
		if a != Admit {
			return k
		}
	}
	return len(policy)
}

// LevelPolicy is the policy "admit iff k < level" on states states.
func LevelPolicy(states, level int) []int {
	p := make([]int, states)
	for k := range min(level, states) {
		p[k] = Admit
	}
	return p
}

// weightFloor is the smallest LP weight relative to the largest, so that no
// weight underflows to 0 (the weights only change the variables; any
// positive floor keeps the program the same). Raising it does not rescue
// the simplex where the weights span too many orders: there it loses
// accuracy instead (2e-9 at s = 20, beta = 2 with a floor of 1e-8).
var weightFloor = 1e-250
