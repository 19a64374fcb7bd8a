package exact_test

import (
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
)

// binomial returns C(a, b).
func binomial(a, b int) float64 {
	c := 1.0
	for i := range b {
		c = c * float64(a-i) / float64(i+1)
	}
	return c
}

// Under random routing the N queues are independent M/M/1 queues, so the total
// is negative binomial: P(total = n) = C(n+N-1, N-1) (1-lambda)^N lambda^n.
// Tolerance 1e-8: the truncation mass (< Tol = 1e-10 here) and the residual
// bound how far the solved distribution is from the product form.
func TestTasksDistributionRandomRouting(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		for _, lambda := range []float64{0.3, 0.7} {
			sol := solve(t, exact.Problem{System: lbsim.System{N: n}, Lambda: lambda, Policy: uniformRouter{}, Tol: 1e-10})
			p := sol.TasksDistribution()
			if len(p) != n*sol.Cap+1 {
				t.Fatalf("N=%d: %d levels, want N*Cap+1 = %d", n, len(p), n*sol.Cap+1)
			}
			sum, mean := 0.0, 0.0
			for m, v := range p {
				sum += v
				mean += float64(m) * v
				if m <= 30 {
					want := binomial(m+n-1, n-1) * math.Pow(1-lambda, float64(n)) * math.Pow(lambda, float64(m))
					near(t, "P(total = n)", v, want, 1e-8)
				}
			}
			near(t, "sum of P(total = n)", sum, 1, 1e-12)
			// E[total] must agree with the occupancy: sum_i q_i * N.
			near(t, "E[total]", mean, sol.MeanTasksPerServer*float64(n), 1e-9)
		}
	}
}

// At a fixed cap, random routing gives independent M/M/1/K queues (here with
// unequal rates): the total is their convolution, state by state from Prob.
func TestTasksDistributionFixedCap(t *testing.T) {
	sys := lbsim.System{N: 2, Rates: []float64{1, 1.5}}
	const k = 5
	sol := solve(t, exact.Problem{System: sys, Lambda: 0.8, Policy: uniformRouter{}, Cap: k, Tol: 1e-12})
	a, b := mm1k(0.8, 1, k), mm1k(0.8, 1.5, k)
	p := sol.TasksDistribution()
	for m := range p {
		want, byProb := 0.0, 0.0
		for x := max(0, m-k); x <= min(m, k); x++ {
			want += a[x] * b[m-x]
			byProb += sol.Prob([]int{x, m - x})
		}
		near(t, "P(total = n) against M/M/1/K products", p[m], want, 1e-9)
		near(t, "P(total = n) against Prob", p[m], byProb, 1e-15)
	}
}
