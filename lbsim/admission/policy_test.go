package admission

import (
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// levelRevenues returns, for each level L = 0..K, the revenue of the policy
// that admits iff fewer than L tasks are present: Σ_{k<=L} r_k c_k /
// Σ_{k<=L} c_k over the full-admission weights c, summed directly.
func levelRevenues(t *testing.T, sys System, r Revenue, maxTau int) (c, rev []float64) {
	t.Helper()
	c, err := sys.Stationary(maxTau)
	if err != nil {
		t.Fatal(err)
	}
	sq := math.Sqrt(float64(sys.Servers))
	n, z := 0.0, 0.0
	for k := range c {
		n += r.At(float64(k-sys.Servers)/sq) * c[k]
		z += c[k]
		rev = append(rev, n/z)
	}
	return c, rev
}

// The identity behind the proof in doc.go: the revenue of any randomized
// policy p is the convex combination Σ_L theta_L R(L) of the revenues of
// the levels L (admit iff k < L), theta_L = (u_L - u_{L+1}) C_L / Σ_j c_j
// u_j with u_k = Π_{j<k} p(j) and C_L = Σ_{k<=L} c_k. So no policy beats
// the best level, and for a unimodal r (CheckRevenue) the best level is
// s + tau*_s. Checked on 500 random policies per system (uniform p, p
// near 0/1, and thresholds with one randomized state) at s = 10, 25, 50:
// identity to 1e-12 relative, no policy above the best threshold by more
// than 1e-12.
func TestPoliciesAreMixturesOfThresholds(t *testing.T) {
	rng := mc.Stream(7)
	for _, s := range []int{10, 25, 50} {
		for _, beta := range []float64{-1, 0, 0.5, 1.5} {
			for _, r := range []Revenue{Linear{A: 1, B: 1}, Exponential{A: 1, B: 2}, Func(func(x float64) float64 { return -x * x })} {
				sys := System{Servers: s, Beta: beta}
				const maxTau = 40
				c, level := levelRevenues(t, sys, r, maxTau)
				opt, err := sys.OptimalThreshold(r)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 500 {
					p := make([]float64, s+maxTau)
					for k := range p {
						switch i % 3 {
						case 0:
							p[k] = rng.Float64()
						case 1:
							p[k] = math.Round(rng.Float64()*0.6+0.2) + (rng.Float64()-0.5)*0.02
							p[k] = math.Min(1, math.Max(1e-3, p[k]))
						default:
							if k < s+i%maxTau {
								p[k] = 1
							} else if k == s+i%maxTau {
								p[k] = rng.Float64()
							}
						}
					}
					got, err := sys.PolicyRevenue(r, p)
					if err != nil {
						t.Fatal(err)
					}
					u := make([]float64, len(c)+1)
					u[0] = 1
					for k := range p {
						u[k+1] = u[k] * p[k]
					}
					den, mix, cum := 0.0, 0.0, 0.0
					for k := range c {
						den += c[k] * u[k]
					}
					for k := range c {
						cum += c[k]
						mix += (u[k] - u[k+1]) * cum / den * level[k]
					}
					if math.Abs(got-mix) > 1e-12*math.Max(1, math.Abs(got)) {
						t.Fatalf("s=%d beta=%v %v: policy revenue %v, mixture of levels %v", s, beta, r, got, mix)
					}
					if got > opt.Revenue+1e-12 {
						t.Fatalf("s=%d beta=%v %v: a randomized policy earns %v > best threshold %v", s, beta, r, got, opt.Revenue)
					}
				}
				// The best level is s + tau*_s.
				best := 0
				for L := range level {
					if level[L] > level[best] {
						best = L
					}
				}
				if best != s+opt.Threshold {
					t.Errorf("s=%d beta=%v %v: best level %d, s + tau* = %d", s, beta, r, best, s+opt.Threshold)
				}
			}
		}
	}
}

// A threshold policy written as admission probabilities earns R_s(tau).
func TestPolicyRevenueOfThreshold(t *testing.T) {
	sys := System{Servers: 30, Beta: 0.3}
	r := Exponential{A: 1, B: 1}
	for tau := range 10 {
		p := make([]float64, 30+tau)
		for k := range p {
			p[k] = 1
		}
		got, _ := sys.PolicyRevenue(r, p)
		want, _ := sys.RevenueRate(r, tau)
		if math.Abs(got-want) > 1e-13 {
			t.Errorf("tau=%d: %v, R_s = %v", tau, got, want)
		}
	}
	if _, err := sys.PolicyRevenue(r, []float64{1, 2}); err == nil {
		t.Error("p = 2: want an error")
	}
}
