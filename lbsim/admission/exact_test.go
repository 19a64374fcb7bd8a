package admission

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// directRevenue solves pi Q = 0, Σ pi = 1 for the generator Q of the
// threshold chain by a dense linear solve (the last balance equation
// replaced by the normalisation) and returns Σ pi(k) r((k-s)/sqrt(s)).
func directRevenue(t *testing.T, sys System, r Revenue, tau int) float64 {
	t.Helper()
	s, lambda := sys.Servers, sys.Lambda()
	n := s + tau + 1
	q := mat.NewDense(n, n, nil)
	for k := range n {
		if k+1 < n {
			q.Set(k, k+1, lambda)
			q.Set(k, k, q.At(k, k)-lambda)
		}
		if k > 0 {
			mu := float64(min(k, s))
			q.Set(k, k-1, mu)
			q.Set(k, k, q.At(k, k)-mu)
		}
	}
	// Rows of A are the balance equations (columns of Q), the last one
	// replaced by Σ pi = 1.
	a := mat.NewDense(n, n, nil)
	a.Copy(q.T())
	b := mat.NewVecDense(n, nil)
	for k := range n {
		a.Set(n-1, k, 1)
	}
	b.SetVec(n-1, 1)
	var pi mat.VecDense
	if err := pi.SolveVec(a, b); err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for k := range n {
		sum += pi.AtVec(k) * r.At(float64(k-s)/math.Sqrt(float64(s)))
	}
	return sum
}

// The O(s + T) log-space scan agrees with a direct solve of the generator
// to 1e-10 (both are exact up to rounding; the direct solve of a system of
// size <= 46 loses a few digits to its condition number, nothing more).
func TestRevenueAgainstGenerator(t *testing.T) {
	laws := []Revenue{Linear{A: 1, B: 1}, Linear{A: 0.3, B: 2}, Exponential{A: 2, B: 0.5},
		Func(func(x float64) float64 { return -x * x })}
	for _, s := range []int{1, 2, 5, 10, 30} {
		for _, beta := range []float64{-1, 0, 0.5, 0.9} {
			sys := System{Servers: s, Beta: beta}
			if sys.Check() != nil {
				continue
			}
			for _, r := range laws {
				curve, err := sys.RevenueCurve(r, 0, 15)
				if err != nil {
					t.Fatal(err)
				}
				for tau, got := range curve {
					if want := directRevenue(t, sys, r, tau); math.Abs(got-want) > 1e-10 {
						t.Errorf("s=%d beta=%v %v tau=%d: scan %v, direct solve %v", s, beta, r, tau, got, want)
					}
				}
			}
		}
	}
}

// erlangB is the Erlang loss probability B(s, lambda), by the stable
// recursion B(k) = lambda B(k-1)/(k + lambda B(k-1)).
func erlangB(s int, lambda float64) float64 {
	b := 1.0
	for k := 1; k <= s; k++ {
		b = lambda * b / (float64(k) + lambda*b)
	}
	return b
}

// At tau = 0 the system is the Erlang loss system: with r = 1 at 0 and 0
// elsewhere R_s(0) = pi(s) = B(s, lambda). As tau -> ∞ with beta > 0 it is
// the M/M/s queue: with r = 1 on [0, ∞) and 0 below, R_s(tau) -> P(wait) =
// C(s, lambda) = B/(1 - rho(1 - B)) (Erlang C), rho = lambda/s. Tolerance
// 1e-12 relative: both sides are exact, the scan sums up to 1e6 terms.
func TestErlangClosedForms(t *testing.T) {
	atZero := Func(func(x float64) float64 {
		if x == 0 {
			return 1
		}
		return 0
	})
	queued := Func(func(x float64) float64 {
		if x >= 0 {
			return 1
		}
		return 0
	})
	for _, s := range []int{1, 10, 100, 10_000, 1_000_000} {
		for _, beta := range []float64{0.1, 0.5, 1, 2} {
			sys := System{Servers: s, Beta: beta}
			if sys.Check() != nil {
				continue
			}
			lambda, rho := sys.Lambda(), sys.Lambda()/float64(s)
			b := erlangB(s, lambda)
			got, err := sys.RevenueRate(atZero, 0)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-b) > 1e-12*b {
				t.Errorf("s=%d beta=%v: R_s(0) = %v, Erlang B %v", s, beta, got, b)
			}
			// rho^tau < 1e-18 beyond tau = 41.5/(-log rho).
			tau := int(math.Ceil(41.5 / -math.Log(rho)))
			got, err = sys.RevenueRate(queued, tau)
			if err != nil {
				t.Fatal(err)
			}
			if c := b / (1 - rho*(1-b)); math.Abs(got-c) > 1e-12*c {
				t.Errorf("s=%d beta=%v: R_s(%d) = %v, Erlang C %v", s, beta, tau, got, c)
			}
		}
	}
}

// tau*_s maximises the curve, and it is the smallest maximiser.
func TestOptimalThresholdMaximisesCurve(t *testing.T) {
	for _, s := range []int{1, 7, 100, 2500} {
		for _, beta := range []float64{-1, 0, 0.5} {
			for _, r := range []Revenue{Linear{A: 1, B: 1}, Linear{A: 3, B: 0.5}, Exponential{A: 1, B: 2}} {
				sys := System{Servers: s, Beta: beta}
				if sys.Check() != nil {
					continue
				}
				opt, err := sys.OptimalThreshold(r)
				if err != nil {
					t.Fatal(err)
				}
				curve, _ := sys.RevenueCurve(r, 0, opt.Threshold+50)
				best := 0
				for tau, v := range curve {
					if v > curve[best] {
						best = tau
					}
				}
				if best != opt.Threshold || curve[best] != opt.Revenue {
					t.Errorf("s=%d beta=%v %v: optimum %+v, curve maximum %d (%v)", s, beta, r, opt, best, curve[best])
				}
			}
		}
	}
}

func TestNoOptimumAndBadSystems(t *testing.T) {
	_, err := System{Servers: 4, Beta: 0.5}.OptimalThreshold(Linear{A: 1, B: 0})
	if err == nil {
		t.Error("b = 0: want ErrNoOptimum")
	}
	for _, sys := range []System{{Servers: 0, Beta: 0}, {Servers: 4, Beta: 2}, {Servers: 4, Beta: math.NaN()}} {
		if _, err := sys.OptimalThreshold(Linear{A: 1, B: 1}); err == nil {
			t.Errorf("%+v: want an error", sys)
		}
	}
}

func TestStationarySumsToOne(t *testing.T) {
	pi, err := System{Servers: 1_000_000, Beta: -0.5}.Stationary(3000)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, p := range pi {
		sum += p
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("Σ pi = %v", sum)
	}
}

func BenchmarkOptimalThreshold1e6(b *testing.B) {
	sys := System{Servers: 1_000_000, Beta: 0.5}
	for b.Loop() {
		if _, err := sys.OptimalThreshold(Linear{A: 1, B: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
