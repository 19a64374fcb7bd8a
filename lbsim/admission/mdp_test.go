package admission

import (
	"errors"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim/mc"
	"gonum.org/v1/gonum/mat"
)

// policyGain solves the generator of a deterministic policy densely: pi Q = 0, Σ pi = 1.
func policyGain(t *testing.T, m *MDP, policy []int) float64 {
	t.Helper()
	n := len(m.Actions)
	q := mat.NewDense(n, n, nil)
	for k, a := range policy {
		act := m.Actions[k][a]
		for i, j := range act.To {
			q.Set(j, k, q.At(j, k)+act.Rates[i])
			q.Set(k, k, q.At(k, k)-act.Rates[i])
		}
	}
	// Replace the last balance equation by the normalization.
	for k := range n {
		q.Set(n-1, k, 1)
	}
	rhs := mat.NewVecDense(n, nil)
	rhs.SetVec(n-1, 1)
	var pi mat.VecDense
	if err := pi.SolveVec(q, rhs); err != nil {
		t.Fatal(err)
	}
	g := 0.0
	for k, a := range policy {
		g += pi.AtVec(k) * m.Actions[k][a].Reward
	}
	return g
}

// Random small MDPs (4 states, 2 or 3 actions each, every action leading to
// every other state with a random rate, so every policy is irreducible):
// value iteration and the LP find the best of all deterministic policies,
// enumerated and solved densely, to 1e-10; Evaluate brackets each policy's gain.
func TestMDPAgainstEnumeration(t *testing.T) {
	rng := mc.Stream(11)
	for trial := range 20 {
		n := 4
		m := &MDP{Actions: make([][]Action, n)}
		for k := range n {
			for range 2 + rng.IntN(2) {
				act := Action{Reward: rng.Float64()*4 - 1}
				for j := range n {
					if j != k {
						act.To = append(act.To, j)
						act.Rates = append(act.Rates, 0.1+3*rng.Float64())
					}
				}
				m.Actions[k] = append(m.Actions[k], act)
			}
		}
		best := math.Inf(-1)
		policy := make([]int, n)
		var walk func(k int)
		walk = func(k int) {
			if k == n {
				g := policyGain(t, m, policy)
				e, err := m.Evaluate(policy, 1e-12, 1_000_000)
				if err != nil {
					t.Fatal(err)
				}
				if g < e.Lower-1e-12 || g > e.Upper+1e-12 {
					t.Fatalf("trial %d policy %v: gain %v outside the Evaluate bracket [%v, %v]", trial, policy, g, e.Lower, e.Upper)
				}
				best = math.Max(best, g)
				return
			}
			for a := range m.Actions[k] {
				policy[k] = a
				walk(k + 1)
			}
		}
		walk(0)
		g, err := m.RelativeValueIteration(1e-12, 1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		if best < g.Lower-1e-12 || best > g.Upper+1e-12 {
			t.Fatalf("trial %d: best policy %v outside the VI bracket [%v, %v]", trial, best, g.Lower, g.Upper)
		}
		if math.Abs(policyGain(t, m, g.Policy)-best) > 1e-10 {
			t.Fatalf("trial %d: VI's policy earns %v, the best %v", trial, policyGain(t, m, g.Policy), best)
		}
		sol, err := m.SolveLP(nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sol.Gain-best) > 1e-10 {
			t.Fatalf("trial %d: LP %v, best policy %v", trial, sol.Gain, best)
		}
	}
}

// The admission MDP: over every policy, the optimum is the best threshold,
// R_s(tau*_s), to 1e-12 by value iteration and the scaled LP (s = 20, 50,
// 100, linear and exponential revenue, beta = -1, 0.5, 2), the LP's
// occupation measure is the threshold chain's stationary law, and the
// optimal policy admits iff k < s + tau*_s.
func TestAdmissionMDPThresholdOptimal(t *testing.T) {
	for _, s := range []int{20, 50, 100} {
		for _, beta := range []float64{-1, 0.5, 2} {
			for _, r := range []Revenue{Linear{A: 1, B: 1}, Exponential{A: 1, B: 2}} {
				sys := System{Servers: s, Beta: beta}
				opt, err := sys.OptimalThreshold(r)
				if err != nil {
					t.Fatal(err)
				}
				K := s + 2*opt.Threshold + 10
				m, w, err := sys.AdmissionMDP(r, K, 1)
				if err != nil {
					t.Fatal(err)
				}
				g, err := m.RelativeValueIteration(1e-12, 1_000_000)
				if err != nil {
					t.Fatal(err)
				}
				if opt.Revenue < g.Lower-1e-13 || opt.Revenue > g.Upper+1e-13 {
					t.Errorf("s = %d, beta = %v, %v: R_s(tau*) = %.15g outside [%.15g, %.15g]", s, beta, r, opt.Revenue, g.Lower, g.Upper)
				}
				if l := AdmitLevel(g.Policy); l != s+opt.Threshold {
					t.Errorf("s = %d, beta = %v, %v: VI admits below %d, tau* gives %d", s, beta, r, l, s+opt.Threshold)
				}
				sol, err := m.SolveLP(w)
				if err != nil {
					t.Errorf("s = %d, beta = %v, %v: %v", s, beta, r, err)
					continue
				}
				if math.Abs(sol.Gain-opt.Revenue) > 1e-12 {
					t.Errorf("s = %d, beta = %v, %v: LP %.15g, R_s(tau*) %.15g", s, beta, r, sol.Gain, opt.Revenue)
				}
				pi, err := sys.Stationary(opt.Threshold)
				if err != nil {
					t.Fatal(err)
				}
				z := 0.0
				for _, p := range pi {
					z += p
				}
				worst := 0.0
				for k := range K {
					x := 0.0
					for _, o := range sol.Occupation[k] {
						x += o
					}
					want := 0.0
					if k < len(pi) {
						want = pi[k] / z
					}
					worst = math.Max(worst, math.Abs(x-want))
				}
				if worst > 1e-10 {
					t.Errorf("s = %d, beta = %v, %v: LP occupation off the threshold law by %v", s, beta, r, worst)
				}
				e, err := m.Evaluate(LevelPolicy(K, s+opt.Threshold), 1e-12, 1_000_000)
				if err != nil {
					t.Fatal(err)
				}
				if opt.Revenue < e.Lower-1e-13 || opt.Revenue > e.Upper+1e-13 {
					t.Errorf("s = %d: Evaluate of the threshold [%v, %v], RevenueRate %v", s, e.Lower, e.Upper, opt.Revenue)
				}
			}
		}
	}
}

// A revenue with its maximum below s (outside the paper's hypothesis): the
// optimum over all policies is a level below s, above every threshold with
// tau >= 0.
func TestAdmissionMDPPeakBelow(t *testing.T) {
	sys := System{Servers: 20, Beta: 0.5}
	r := Func(func(x float64) float64 { return 1 - math.Abs(x+1) })
	m, _, err := sys.AdmissionMDP(r, 50, 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.RelativeValueIteration(1e-12, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if l := AdmitLevel(g.Policy); l >= 20 {
		t.Fatalf("optimal level %d, want below s = 20", l)
	}
	curve, err := sys.RevenueCurve(r, 0, 29)
	if err != nil {
		t.Fatal(err)
	}
	for tau, v := range curve {
		if v > g.Lower-1e-3 {
			t.Fatalf("threshold %d earns %v, the optimum [%v, %v]", tau, v, g.Lower, g.Upper)
		}
	}
}

func TestMDPErrors(t *testing.T) {
	sys := System{Servers: 5, Beta: 0}
	lin := Linear{A: 1, B: 1}
	if _, _, err := sys.AdmissionMDP(lin, 6, 1); err == nil {
		t.Error("states <= s + batch accepted")
	}
	if _, _, err := sys.AdmissionMDP(lin, 20, 0); err == nil {
		t.Error("batch 0 accepted")
	}
	if _, _, err := sys.AdmissionMDP(nil, 20, 1); err == nil {
		t.Error("nil revenue accepted")
	}
	m, _, err := sys.AdmissionMDP(lin, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.RelativeValueIteration(1e-15, 3); !errors.Is(err, ErrNotConverged) {
		t.Errorf("3 iterations: %v, want ErrNotConverged", err)
	}
	if _, err := m.Evaluate([]int{1}, 1e-9, 100); err == nil {
		t.Error("short policy accepted")
	}
	if _, err := m.Evaluate(LevelPolicy(20, 20), 1e-9, 100); err == nil {
		t.Error("admitting at the truncation accepted")
	}
	bad := &MDP{Actions: [][]Action{{{Reward: 1, To: []int{0}, Rates: []float64{1}}}}}
	if _, err := bad.RelativeValueIteration(1e-9, 10); err == nil {
		t.Error("self-loop accepted")
	}
	if _, err := m.SolveLP(make([]float64, 20)); err == nil {
		t.Error("zero weights accepted")
	}
}
