package exact_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
)

// The oracles below build the generator of a truncated chain densely, from
// the description of the policy rather than from its Route method, and solve
// pi Q = 0, sum pi = 1 directly (LU), as an independent check of Solve.

// denseStationary solves pi Q = 0 with sum pi = 1: the transposed system with
// its last equation replaced by the normalization.
func denseStationary(t *testing.T, q *mat.Dense) []float64 {
	t.Helper()
	n, _ := q.Dims()
	a := mat.DenseCopyOf(q.T())
	for j := range n {
		a.Set(n-1, j, 1)
	}
	b := mat.NewVecDense(n, nil)
	b.SetVec(n-1, 1)
	var x mat.VecDense
	if err := x.SolveVec(a, b); err != nil {
		t.Fatalf("dense solve: %v", err)
	}
	return x.RawVector().Data
}

// denseGenerator fills the diagonal of q so that rows sum to zero.
func fillDiagonal(q *mat.Dense) {
	n, _ := q.Dims()
	for i := range n {
		s := 0.0
		for j := range n {
			if j != i {
				s += q.At(i, j)
			}
		}
		q.Set(i, i, -s)
	}
}

// denseRoundRobin2 is the truncated round-robin chain on two servers. State
// (p, a, b) has index p*(k+1)^2 + a + b*(k+1); the task goes to server p and
// the pointer flips even when the task is lost at the cap.
func denseRoundRobin2(t *testing.T, lambda, mu0, mu1 float64, k int) []float64 {
	r := k + 1
	n := 2 * r * r
	idx := func(p, a, b int) int { return p*r*r + a + b*r }
	q := mat.NewDense(n, n, nil)
	for p := range 2 {
		for a := range r {
			for b := range r {
				i := idx(p, a, b)
				na, nb := a, b
				if p == 0 && a < k {
					na++
				}
				if p == 1 && b < k {
					nb++
				}
				q.Set(i, idx(1-p, na, nb), q.At(i, idx(1-p, na, nb))+2*lambda)
				if a > 0 {
					q.Set(i, idx(p, a-1, b), mu0)
				}
				if b > 0 {
					q.Set(i, idx(p, a, b-1), mu1)
				}
			}
		}
	}
	fillDiagonal(q)
	return denseStationary(t, q)
}

// denseJSQ is the truncated JSQ chain: the task joins a shortest queue,
// uniformly among ties, and is lost if that queue holds k tasks.
func denseJSQ(t *testing.T, sys lbsim.System, lambda float64, k int) []float64 {
	n := sys.N
	r := k + 1
	size := int(math.Pow(float64(r), float64(n)))
	decode := func(i int) []int {
		l := make([]int, n)
		for j := range n {
			l[j] = i % r
			i /= r
		}
		return l
	}
	stride := make([]int, n)
	stride[0] = 1
	for j := 1; j < n; j++ {
		stride[j] = stride[j-1] * r
	}
	q := mat.NewDense(size, size, nil)
	for i := range size {
		l := decode(i)
		shortest := []int{}
		for j := range n {
			switch {
			case len(shortest) == 0 || l[j] < l[shortest[0]]:
				shortest = []int{j}
			case l[j] == l[shortest[0]]:
				shortest = append(shortest, j)
			}
		}
		for _, j := range shortest {
			if l[j] < k {
				q.Set(i, i+stride[j], q.At(i, i+stride[j])+lambda*float64(n)/float64(len(shortest)))
			}
		}
		for j := range n {
			if l[j] > 0 {
				q.Set(i, i-stride[j], sys.Rate(j))
			}
		}
	}
	fillDiagonal(q)
	return denseStationary(t, q)
}

// compareDense compares the distribution of sol with want, indexed the same
// way (policy state slowest, server 0 fastest).
//
// Tolerance: Solve ran with Tol = 1e-12, so ||pi Q||_1 <= 1e-12 times a total
// rate below 5; the error in pi is at most that times the norm of the group
// inverse of Q, about the mixing time (< 100 for these loads and caps), so
// 5e-10. The LU solve of a system of at most 242 states is accurate to ~1e-13.
// Hence 1e-9 per state.
func compareDense(t *testing.T, sol *exact.Solution, want []float64, policyStates int) {
	t.Helper()
	got := sol.Distribution()
	if len(got) != len(want) || sol.PolicyStates != policyStates {
		t.Fatalf("%d states and %d policy states, want %d and %d", len(got), sol.PolicyStates, len(want), policyStates)
	}
	worst := 0.0
	for i := range got {
		worst = math.Max(worst, math.Abs(got[i]-want[i]))
	}
	if worst > 1e-9 {
		t.Errorf("largest difference from the dense solve %.3g > 1e-9", worst)
	}
	t.Logf("%d states: largest difference from the dense solve %.2g", len(got), worst)
}
