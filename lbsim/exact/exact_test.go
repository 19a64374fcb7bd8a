package exact_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
)

var errTooManyServers = errors.New("too many servers for this test policy")

func solve(t *testing.T, p exact.Problem) *exact.Solution {
	t.Helper()
	sol, err := exact.Solve(context.Background(), p)
	if err != nil {
		t.Fatalf("Solve(N=%d, lambda=%v, %s, cap=%d): %v", p.System.N, p.Lambda, p.Policy.Name(), p.Cap, err)
	}
	return sol
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.15g, want %.15g (|diff| %.3g > %.3g)", what, got, want, math.Abs(got-want), tol)
	}
}

// mm1k returns the stationary distribution of an M/M/1/K queue with arrival
// rate a and service rate mu: proportional to rho^l, l = 0..k.
func mm1k(a, mu float64, k int) []float64 {
	p := make([]float64, k+1)
	sum := 0.0
	for l := range p {
		p[l] = math.Pow(a/mu, float64(l))
		sum += p[l]
	}
	for l := range p {
		p[l] /= sum
	}
	return p
}

// forEachState calls f with every vector of n lengths in 0..k.
func forEachState(n, k int, f func(l []int)) {
	l := make([]int, n)
	for {
		f(l)
		j := 0
		for j < n && l[j] == k {
			l[j] = 0
			j++
		}
		if j == n {
			return
		}
		l[j]++
	}
}

// checkProductForm checks that the solution is the product of independent
// M/M/1/K queues with arrival rates a[j], and the measures that follow.
//
// Tolerance: the solves use Tol = 1e-12, so ||pi Q||_1 <= 1e-12 times the total
// rate (< 10 here); these chains mix in O(10) time units, so each probability
// is within ~1e-10 of the exact one. 1e-9 leaves a margin of 10.
func checkProductForm(t *testing.T, sol *exact.Solution, sys lbsim.System, a []float64) {
	t.Helper()
	const tol = 1e-9
	n, k := sys.N, sol.Cap
	marg := make([][]float64, n)
	accepted, busyJoin, mean := 0.0, 0.0, 0.0
	for j := range n {
		marg[j] = mm1k(a[j], sys.Rate(j), k)
		for l := range k + 1 {
			near(t, "QueueLength", sol.QueueLength[j][l], marg[j][l], tol)
			mean += float64(l) * marg[j][l]
		}
		accepted += a[j] * (1 - marg[j][k])
		busyJoin += a[j] * (1 - marg[j][0] - marg[j][k])
	}
	forEachState(n, k, func(l []int) {
		want := 1.0
		for j, lj := range l {
			want *= marg[j][lj]
		}
		near(t, "Prob", sol.Prob(l), want, tol)
	})
	total := 0.0
	for _, x := range a {
		total += x
	}
	near(t, "AcceptedRate", sol.AcceptedRate, accepted, tol)
	near(t, "LossProbability", sol.LossProbability, 1-accepted/total, tol)
	near(t, "MeanTasksPerServer", sol.MeanTasksPerServer, mean/float64(n), tol)
	near(t, "MeanSojourn", sol.MeanSojourn, mean/accepted, tol*10)
	near(t, "WaitProbability", sol.WaitProbability, busyJoin/accepted, tol)
}

// checkConsistent checks identities every stationary solution satisfies.
func checkConsistent(t *testing.T, sol *exact.Solution, p exact.Problem) {
	t.Helper()
	tol := p.Tol
	if tol == 0 {
		tol = exact.DefaultTol
	}
	n := p.System.N
	rate := p.Lambda * float64(n)
	for j := range n {
		rate += p.System.Rate(j)
	}
	if sol.Residual > tol*rate {
		t.Errorf("Residual %.3g > Tol*total rate %.3g", sol.Residual, tol*rate)
	}
	if sol.CutImbalance > math.Sqrt(tol) {
		t.Errorf("CutImbalance %.3g > sqrt(Tol)", sol.CutImbalance)
	}
	sum := 0.0
	for _, x := range sol.Distribution() {
		if x < 0 {
			t.Fatalf("negative probability %v", x)
		}
		sum += x
	}
	near(t, "sum of the distribution", sum, 1, 1e-12)
	if sol.States != len(sol.Distribution()) {
		t.Errorf("States = %d, distribution has %d", sol.States, len(sol.Distribution()))
	}
	if len(sol.Occupancy) != sol.Cap || sol.Q(0) != 1 || sol.Q(sol.Cap+1) != 0 || sol.Q(1) != sol.Occupancy[0] {
		t.Fatalf("Occupancy has %d values (q_1 = %v), want Cap = %d; Q(0) = %v, Q(Cap+1) = %v",
			len(sol.Occupancy), sol.Occupancy[0], sol.Cap, sol.Q(0), sol.Q(sol.Cap+1))
	}
	qsum := 0.0
	for i := 1; i <= sol.Cap; i++ {
		if sol.Q(i) > sol.Q(i-1)+1e-15 {
			t.Errorf("Occupancy increases at %d: %v > %v", i, sol.Q(i), sol.Q(i-1))
		}
		qsum += sol.Q(i)
	}
	// Sums over up to 2e6 states in different orders agree to n*eps in the
	// worst case, 4e-10 relative; typically far better. sumTol is 1e-10 relative.
	sumTol := func(x float64) float64 { return 1e-10 * max(1, math.Abs(x)) }
	near(t, "sum of q_i vs MeanTasksPerServer", qsum, sol.MeanTasksPerServer, sumTol(qsum))
	// Flow balance: accepted arrivals = departures. It holds only at
	// stationarity: the difference is the sum over the cuts between total
	// levels m and m+1 of the net flow across the cut, and the net flow across
	// one cut is the sum of (pi Q)_x over the states below it, so the
	// difference is at most (N*K+1)*||pi Q||_1.
	dep := 0.0
	for j := range n {
		dep += p.System.Rate(j) * (1 - sol.QueueLength[j][0])
	}
	near(t, "AcceptedRate vs departure rate", sol.AcceptedRate, dep, float64(n*sol.Cap+1)*sol.Residual+sumTol(dep))
	near(t, "AcceptedRate vs Lambda*N*(1-loss)", sol.AcceptedRate, p.Lambda*float64(n)*(1-sol.LossProbability), sumTol(sol.AcceptedRate))
	// Little's law.
	near(t, "MeanSojourn*AcceptedRate", sol.MeanSojourn*sol.AcceptedRate, sol.MeanTasksPerServer*float64(n), sumTol(sol.MeanTasksPerServer*float64(n)))
	// A task is lost only when some queue is full.
	if sol.LossProbability > sol.TruncationMass*(1+1e-9)+1e-15 {
		t.Errorf("LossProbability %v > TruncationMass %v", sol.LossProbability, sol.TruncationMass)
	}
	if p.Cap == 0 && !sol.CapLimited && sol.TruncationMass >= tol {
		t.Errorf("automatic cap %d left truncation mass %v >= Tol %v", sol.Cap, sol.TruncationMass, tol)
	}
	if c := sol.CapsTried; len(c) == 0 || c[len(c)-1] != sol.Cap {
		t.Errorf("CapsTried = %v, want it to end with Cap = %d", c, sol.Cap)
	}
}

// Random routing with equal rates splits the Poisson stream: N independent
// M/M/1 queues with load lambda, so q_i = lambda^i and the mean sojourn time
// is 1/(1-lambda).
//
// Tolerances: the automatic cap makes the truncation mass m < 1e-9 and the
// truncated q_i differ from lambda^i by at most lambda^(K+1)/(1-lambda^(K+1))
// <= m*lambda/(1-lambda) < 2.4e-9 for lambda <= 0.7; the iteration adds
// ~1e-9. Hence 1e-8 for q_i and the wait probability (lambda by PASTA). The
// mean sojourn time loses sum_{l>K} (l-K) lambda^l (1-lambda), about
// m*(K+lambda/(1-lambda)) < 1e-7 relative; 1e-6 relative.
func TestRandomRoutingIsMM1(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		for _, lambda := range []float64{0.3, 0.7} {
			p := exact.Problem{System: lbsim.System{N: n}, Lambda: lambda, Policy: uniformRouter{}}
			sol := solve(t, p)
			checkConsistent(t, sol, p)
			t.Logf("N=%d lambda=%v: cap %d (tried %v), %d states, %d iterations, residual %.2g, truncation %.2g",
				n, lambda, sol.Cap, sol.CapsTried, sol.States, sol.Iterations, sol.Residual, sol.TruncationMass)
			if sol.CapLimited || sol.TruncationMass >= 1e-9 {
				t.Errorf("N=%d lambda=%v: truncation mass %v at cap %d (limited %v)", n, lambda, sol.TruncationMass, sol.Cap, sol.CapLimited)
			}
			for i := 1; i <= sol.Cap; i++ {
				near(t, "q_i", sol.Q(i), math.Pow(lambda, float64(i)), 1e-8)
			}
			near(t, "MeanSojourn", sol.MeanSojourn, 1/(1-lambda), 1e-6/(1-lambda))
			near(t, "MeanTasksPerServer", sol.MeanTasksPerServer, lambda/(1-lambda), 1e-6/(1-lambda))
			near(t, "WaitProbability", sol.WaitProbability, lambda, 1e-8)
			if sol.LossProbability > 1e-9 {
				t.Errorf("LossProbability = %v, want < Tol", sol.LossProbability)
			}
			if n == 2 {
				// Product form, state by state.
				for a := range 6 {
					for b := range 6 {
						near(t, "Prob", sol.Prob([]int{a, b}), (1-lambda)*(1-lambda)*math.Pow(lambda, float64(a+b)), 1e-9)
					}
				}
			}
		}
	}
}

// At a fixed cap, random routing gives independent M/M/1/K queues, even when
// a server is overloaded (the truncated chain is stable for any lambda).
func TestRandomRoutingFixedCapIsMM1K(t *testing.T) {
	sys := lbsim.System{N: 2, Rates: []float64{1, 1.5}}
	for _, lambda := range []float64{0.4, 1.2} {
		p := exact.Problem{System: sys, Lambda: lambda, Policy: uniformRouter{}, Cap: 6, Tol: 1e-12}
		sol := solve(t, p)
		checkConsistent(t, sol, p)
		checkProductForm(t, sol, sys, []float64{lambda, lambda})
	}
}

// A policy that joins the task's own server makes server j an M/M/1 queue fed
// at rate lambda*N*w_j/sum(w).
func TestOwnServerIsIndependentMM1(t *testing.T) {
	sys := lbsim.System{N: 3, Rates: []float64{1, 2, 0.5}, OriginWeights: []float64{1, 3, 0.5}}
	const lambda = 0.4
	a := make([]float64, 3)
	for j, w := range sys.OriginWeights {
		a[j] = lambda * 3 * w / 4.5
	}

	// Fixed cap: exactly independent M/M/1/K queues.
	p := exact.Problem{System: sys, Lambda: lambda, Policy: ownServerRouter{}, Cap: 5, Tol: 1e-12}
	sol := solve(t, p)
	checkConsistent(t, sol, p)
	checkProductForm(t, sol, sys, a)

	// Automatic cap: the untruncated M/M/1 queues, within the truncation
	// (loads are at most 0.4, so the truncation bias is ~1e-9).
	p = exact.Problem{System: sys, Lambda: lambda, Policy: ownServerRouter{}}
	sol = solve(t, p)
	checkConsistent(t, sol, p)
	sojourn := 0.0
	for j := range 3 {
		rho := a[j] / sys.Rate(j)
		for l := range 10 {
			near(t, "QueueLength", sol.QueueLength[j][l], (1-rho)*math.Pow(rho, float64(l)), 1e-8)
		}
		sojourn += a[j] / (lambda * 3) / (sys.Rate(j) - a[j])
	}
	near(t, "MeanSojourn", sol.MeanSojourn, sojourn, 1e-6*sojourn)

	// An origin with weight zero feeds nothing: server 1 stays empty, and the
	// states where it is not are transient.
	sys.OriginWeights = []float64{1, 0, 1}
	p = exact.Problem{System: sys, Lambda: lambda, Policy: ownServerRouter{}, Cap: 4, Tol: 1e-12}
	sol = solve(t, p)
	checkConsistent(t, sol, p)
	near(t, "P(server 1 empty)", sol.QueueLength[1][0], 1, 1e-9)
	checkProductForm(t, sol, sys, []float64{0.6, 0, 0.6})
}

// A policy that declares no Needs.Origin must be asked with origin -1.
func TestNoOriginMeansMinusOne(t *testing.T) {
	sys := lbsim.System{N: 2, OriginWeights: []float64{1, 2}}
	p := exact.Problem{System: sys, Lambda: 0.5, Policy: originCheckRouter{}, Cap: 4, Tol: 1e-12}
	sol := solve(t, p)
	checkProductForm(t, sol, sys, []float64{0.5, 0.5})
}

// With one server every policy is the same M/M/1/K queue (automatic cap: M/M/1).
func TestSingleServerAnyPolicy(t *testing.T) {
	const lambda, mu, k = 0.6, 1.25, 10
	sys := lbsim.System{N: 1, Rates: []float64{mu}}
	for _, pol := range []lbsim.ExactRouter{uniformRouter{}, jsqRouter{}, roundRobinRouter{}, ownServerRouter{}, statesRouter{states: 3}} {
		p := exact.Problem{System: sys, Lambda: lambda, Policy: pol, Cap: k, Tol: 1e-12}
		sol := solve(t, p)
		checkConsistent(t, sol, p)
		checkProductForm(t, sol, sys, []float64{lambda})

		p.Cap, p.Tol = 0, 0
		sol = solve(t, p)
		checkConsistent(t, sol, p)
		rho := lambda / mu
		for i := 1; i <= sol.Cap; i++ {
			near(t, pol.Name()+" q_i", sol.Q(i), math.Pow(rho, float64(i)), 1e-8)
		}
		near(t, pol.Name()+" MeanSojourn", sol.MeanSojourn, 1/(mu-lambda), 1e-6/(mu-lambda))
	}
}

// Two servers under round robin, against a dense solve of the same chain.
func TestRoundRobinAgainstDense(t *testing.T) {
	for _, tc := range []struct {
		rates  []float64
		lambda float64
		k      int
	}{
		{nil, 0.7, 8},
		{[]float64{1, 1.3}, 0.8, 7},
	} {
		sys := lbsim.System{N: 2, Rates: tc.rates}
		p := exact.Problem{System: sys, Lambda: tc.lambda, Policy: roundRobinRouter{}, Cap: tc.k, Tol: 1e-12}
		sol := solve(t, p)
		checkConsistent(t, sol, p)
		want := denseRoundRobin2(t, tc.lambda, sys.Rate(0), sys.Rate(1), tc.k)
		compareDense(t, sol, want, 2)
	}
}

// JSQ against a dense solve of the same chain, for N = 2 (equal and unequal
// rates) and N = 3.
func TestJSQAgainstDense(t *testing.T) {
	for _, tc := range []struct {
		n      int
		rates  []float64
		lambda float64
		k      int
	}{
		{2, nil, 0.9, 12},
		{2, []float64{0.7, 1.4}, 0.8, 9},
		{3, nil, 0.8, 5},
		{2, nil, 1.5, 6}, // overloaded: the truncated chain is still stable
	} {
		sys := lbsim.System{N: tc.n, Rates: tc.rates}
		p := exact.Problem{System: sys, Lambda: tc.lambda, Policy: jsqRouter{}, Cap: tc.k, Tol: 1e-12}
		sol := solve(t, p)
		checkConsistent(t, sol, p)
		want := denseJSQ(t, sys, tc.lambda, tc.k)
		compareDense(t, sol, want, 1)
		t.Logf("JSQ N=%d rates=%v lambda=%v K=%d: %d iterations, residual %.2g, q1..3 = %.10f",
			tc.n, tc.rates, tc.lambda, tc.k, sol.Iterations, sol.Residual, sol.Occupancy[:3])
	}
}

// Identities that hold for any stationary solution, on chains without closed
// forms, with the automatic cap.
func TestMeasuresConsistent(t *testing.T) {
	for _, p := range []exact.Problem{
		{System: lbsim.System{N: 3}, Lambda: 0.8, Policy: jsqRouter{}},
		{System: lbsim.System{N: 3, Rates: []float64{0.5, 1, 1.5}}, Lambda: 0.7, Policy: jsqRouter{}},
		{System: lbsim.System{N: 3}, Lambda: 0.6, Policy: roundRobinRouter{}},
		{System: lbsim.System{N: 2}, Lambda: 0.9, Policy: jsqRouter{}, Tol: 1e-6},
	} {
		sol := solve(t, p)
		checkConsistent(t, sol, p)
		t.Logf("%s N=%d rates=%v lambda=%v: cap %d (tried %v), %d states, %d iterations, residual %.2g, cut %.2g, truncation %.2g, q1 %.10f, sojourn %.8f, wait %.8f",
			p.Policy.Name(), p.System.N, p.System.Rates, p.Lambda, sol.Cap, sol.CapsTried, sol.States, sol.Iterations,
			sol.Residual, sol.CutImbalance, sol.TruncationMass, sol.Q(1), sol.MeanSojourn, sol.WaitProbability)
	}
}

// The automatic cap stops at the state limit: with a note if the truncation
// mass is acceptable, with an error otherwise.
func TestAutoCapAtStateLimit(t *testing.T) {
	// 300 states allow K = 16 for N = 2 (17^2 = 289); the truncation mass is
	// 1-(1-0.5^17)^2 = 1.5e-5, above Tol but below MaxTruncationMass = 1e-4.
	p := exact.Problem{System: lbsim.System{N: 2}, Lambda: 0.5, Policy: uniformRouter{}, MaxStates: 300}
	sol := solve(t, p)
	checkConsistent(t, sol, p)
	if !sol.CapLimited || sol.Cap != 16 || !strings.Contains(sol.Note, "MaxStates") {
		t.Errorf("got cap %d, CapLimited %v, note %q; want cap 16, limited, a note about MaxStates", sol.Cap, sol.CapLimited, sol.Note)
	}
	near(t, "TruncationMass", sol.TruncationMass, 1-math.Pow(1-math.Pow(0.5, 16)/(2-math.Pow(0.5, 16)), 2), 1e-12)

	p.Lambda = 0.95
	_, err := exact.Solve(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "MaxTruncationMass") {
		t.Errorf("lambda 0.95 with 300 states: err = %v, want a MaxTruncationMass error", err)
	}
}

func TestSolutionLookups(t *testing.T) {
	p := exact.Problem{System: lbsim.System{N: 2}, Lambda: 0.5, Policy: roundRobinRouter{}, Cap: 3, Tol: 1e-12}
	sol := solve(t, p)
	if sol.PolicyStates != 2 || sol.States != 2*4*4 {
		t.Fatalf("PolicyStates %d, States %d; want 2 and 32", sol.PolicyStates, sol.States)
	}
	sum := 0.0
	forEachState(2, 3, func(l []int) { sum += sol.Prob(l) })
	near(t, "sum of Prob", sum, 1, 1e-12)
	near(t, "Prob vs ProbState", sol.Prob([]int{1, 2}), sol.ProbState([]int{1, 2}, 0)+sol.ProbState([]int{1, 2}, 1), 0)
	for _, bad := range [][]int{{4, 0}, {-1, 0}, {0}, {0, 0, 0}} {
		if got := sol.Prob(bad); got != 0 {
			t.Errorf("Prob(%v) = %v, want 0", bad, got)
		}
	}
	if got := sol.ProbState([]int{0, 0}, 2); got != 0 {
		t.Errorf("ProbState(pstate 2) = %v, want 0", got)
	}
}

func TestPrepare(t *testing.T) {
	p := exact.Problem{System: lbsim.System{N: 3}, Lambda: 0.5, Policy: preparedRouter{maxN: 2}, Cap: 3}
	if _, err := exact.Solve(context.Background(), p); !errors.Is(err, errTooManyServers) {
		t.Errorf("err = %v, want the Prepare error", err)
	}
	p.Policy = preparedRouter{maxN: 3}
	solve(t, p)
}

// The values the constructors of package lbsim return (typed Policy) are
// solved as they are, with no assertion to ExactRouter; Random among them
// makes each server an M/M/1/K queue, whose mean length is known.
func TestConstructorPolicies(t *testing.T) {
	const lambda, k = 0.7, 6
	for _, p := range []lbsim.Policy{lbsim.JSQd(2), lbsim.JSQdSampling(2, lbsim.WithReplacement), lbsim.JSQ(), lbsim.Random()} {
		sol := solve(t, exact.Problem{System: lbsim.System{N: 3}, Lambda: lambda, Policy: p, Cap: k})
		if p.Name() != "random" {
			continue
		}
		num, den := 0.0, 0.0
		for l := 0; l <= k; l++ {
			num += float64(l) * math.Pow(lambda, float64(l))
			den += math.Pow(lambda, float64(l))
		}
		near(t, "random: mean tasks per server", sol.MeanTasksPerServer, num/den, 1e-6)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := exact.Problem{System: lbsim.System{N: 3}, Lambda: 0.8, Policy: jsqRouter{}}
	if _, err := exact.Solve(ctx, p); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}

	// A deadline in the middle of a multi-second solve stops it promptly.
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	p = exact.Problem{System: lbsim.System{N: 4}, Lambda: 0.9, Policy: jsqRouter{}}
	start := time.Now()
	_, err := exact.Solve(ctx, p)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Solve returned %v after the start, 100ms deadline", d)
	}
}

func TestErrors(t *testing.T) {
	ok := exact.Problem{System: lbsim.System{N: 2}, Lambda: 0.5, Policy: uniformRouter{}, Cap: 4}
	route := func(f func(lengths []int, out []lbsim.Choice) []lbsim.Choice) exact.Problem {
		p := ok
		p.Policy = badRouter{route: f}
		return p
	}
	with := func(f func(p *exact.Problem)) exact.Problem {
		p := ok
		f(&p)
		return p
	}
	for _, tc := range []struct {
		name string
		p    exact.Problem
		want []string // substrings of the error
	}{
		{"zero lambda", with(func(p *exact.Problem) { p.Lambda = 0 }), []string{"Lambda", "positive"}},
		{"negative lambda", with(func(p *exact.Problem) { p.Lambda = -1 }), []string{"Lambda", "positive"}},
		{"NaN lambda", with(func(p *exact.Problem) { p.Lambda = math.NaN() }), []string{"Lambda", "finite"}},
		{"infinite lambda", with(func(p *exact.Problem) { p.Lambda = math.Inf(1) }), []string{"Lambda", "finite"}},
		{"no servers", with(func(p *exact.Problem) { p.System.N = 0 }), []string{"System.N", "at least 1"}},
		{"rates length", with(func(p *exact.Problem) { p.System.Rates = []float64{1} }), []string{"System.Rates", "one per server"}},
		{"zero rate", with(func(p *exact.Problem) { p.System.Rates = []float64{1, 0} }), []string{"System.Rates[1]", "positive"}},
		{"NaN rate", with(func(p *exact.Problem) { p.System.Rates = []float64{math.NaN(), 1} }), []string{"System.Rates[0]"}},
		{"nil policy", with(func(p *exact.Problem) { p.Policy = nil }), []string{"Policy", "nil"}},
		{"no exact routing", with(func(p *exact.Problem) { p.Policy = lbsim.JSWd(2) }), []string{`policy "jswd(d=2)"`, "cannot be solved exactly", "ExactRouter"}},
		{"wrapper without exact routing", with(func(p *exact.Problem) { p.Policy = lbsim.CountDraws(lbsim.JSQd(2)) }), []string{"cannot be solved exactly"}},
		{"negative cap", with(func(p *exact.Problem) { p.Cap = -1 }), []string{"Cap", "at least 1"}},
		{"negative tol", with(func(p *exact.Problem) { p.Tol = -1 }), []string{"Tol", "(0, 0.1]"}},
		{"large tol", with(func(p *exact.Problem) { p.Tol = 0.5 }), []string{"Tol"}},
		{"max states", with(func(p *exact.Problem) { p.MaxStates = 1 }), []string{"MaxStates"}},
		{"max iterations", with(func(p *exact.Problem) { p.MaxIterations = -1 }), []string{"MaxIterations"}},
		{"max truncation", with(func(p *exact.Problem) { p.MaxTruncationMass = 2 }), []string{"MaxTruncationMass"}},
		{"too many states", with(func(p *exact.Problem) { p.Cap = 2000 }), []string{"4004001 states", "MaxStates = 2000000"}},
		{"too many states, huge", with(func(p *exact.Problem) { p.System.N = 40; p.Cap = 1000 }), []string{"states", "MaxStates"}},
		{"too many servers for auto cap", with(func(p *exact.Problem) { p.System.N = 25; p.Cap = 0 }), []string{"Cap = 1", "33554432 states"}},
		{"policy states", with(func(p *exact.Problem) { p.Policy = statesRouter{states: 0} }), []string{"PolicyStates = 0"}},
		{"policy states too many", with(func(p *exact.Problem) { p.Policy = statesRouter{states: 1 << 20} }), []string{"states", "MaxStates"}},
		{"overloaded auto cap", with(func(p *exact.Problem) { p.Cap = 0; p.Lambda = 1 }), []string{"automatic cap", "Lambda*N"}},
		{"origin weights length", with(func(p *exact.Problem) { p.Policy = ownServerRouter{}; p.System.OriginWeights = []float64{1} }), []string{"OriginWeights", "one per server"}},
		{"negative origin weight", with(func(p *exact.Problem) {
			p.Policy = ownServerRouter{}
			p.System.OriginWeights = []float64{1, -1}
		}), []string{"OriginWeights[1]"}},
		{"zero origin weights", with(func(p *exact.Problem) { p.Policy = ownServerRouter{}; p.System.OriginWeights = []float64{0, 0} }), []string{"OriginWeights", "zero"}},
		{"nil pointer policy", with(func(p *exact.Problem) { p.Policy = (*ptrRouter)(nil) }), []string{"*exact_test.ptrRouter", "panicked"}},
		{"max iterations reached", with(func(p *exact.Problem) { p.Policy = jsqRouter{}; p.MaxIterations = 1 }), []string{"no convergence after 1 iterations", "MaxIterations"}},
		{"tol below rounding", with(func(p *exact.Problem) { p.Policy = jsqRouter{}; p.Cap = 30; p.Tol = 1e-20 }), []string{"no progress", "Tol"}},
		{"route sum", route(func(_ []int, out []lbsim.Choice) []lbsim.Choice {
			return append(out, lbsim.Choice{Server: 0, P: 0.5}, lbsim.Choice{Server: 1, P: 0.4})
		}), []string{`policy "test-bad"`, "summing to 0.9"}},
		{"route empty", route(func(_ []int, out []lbsim.Choice) []lbsim.Choice { return out }), []string{`policy "test-bad"`, "summing to 0"}},
		{"route server", route(func(_ []int, out []lbsim.Choice) []lbsim.Choice {
			return append(out, lbsim.Choice{Server: 2, P: 1})
		}), []string{`policy "test-bad"`, "server 2", "0..1"}},
		{"route next", route(func(_ []int, out []lbsim.Choice) []lbsim.Choice {
			return append(out, lbsim.Choice{Server: 0, Next: 1, P: 1})
		}), []string{`policy "test-bad"`, "next policy state 1"}},
		{"route negative", route(func(_ []int, out []lbsim.Choice) []lbsim.Choice {
			return append(out, lbsim.Choice{Server: 0, P: 2}, lbsim.Choice{Server: 1, P: -1})
		}), []string{`policy "test-bad"`, "probability -1"}},
		{"route NaN", route(func(_ []int, out []lbsim.Choice) []lbsim.Choice {
			return append(out, lbsim.Choice{Server: 0, P: math.NaN()})
		}), []string{`policy "test-bad"`, "NaN"}},
		{"route panics", route(func(lengths []int, out []lbsim.Choice) []lbsim.Choice {
			if lengths[1] == 3 {
				panic("boom")
			}
			return append(out, lbsim.Choice{Server: 0, P: 1})
		}), []string{`policy "test-bad"`, "panicked", "boom"}},
		{"route in a later state", route(func(lengths []int, out []lbsim.Choice) []lbsim.Choice {
			return append(out, lbsim.Choice{Server: 0, P: 1 - 1e-6*float64(lengths[0])})
		}), []string{`policy "test-bad"`, "lengths=[1 0]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sol, err := exact.Solve(context.Background(), tc.p)
			if err == nil {
				t.Fatalf("no error (solution with cap %d)", sol.Cap)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// A Route within 1e-9 of summing to 1 is accepted.
func TestRouteSumTolerance(t *testing.T) {
	p := exact.Problem{System: lbsim.System{N: 2}, Lambda: 0.5, Cap: 3, Policy: badRouter{route: func(_ []int, out []lbsim.Choice) []lbsim.Choice {
		return append(out, lbsim.Choice{Server: 0, P: 0.5 + 4e-10}, lbsim.Choice{Server: 1, P: 0.5})
	}}}
	solve(t, p)
}

// BenchmarkJSQ4 solves JSQ with N = 4, lambda = 0.9 and the automatic cap
// (which stops at the default state limit, K = 36, 1.9 million states).
func BenchmarkJSQ4(b *testing.B) {
	p := exact.Problem{System: lbsim.System{N: 4}, Lambda: 0.9, Policy: jsqRouter{}}
	for b.Loop() {
		sol, err := exact.Solve(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sol.States), "states")
		b.ReportMetric(float64(sol.Iterations), "iterations")
		b.ReportMetric(sol.TruncationMass, "truncation")
	}
}

// BenchmarkJSQ4Cap20 is one solve at a fixed cap (194481 states).
func BenchmarkJSQ4Cap20(b *testing.B) {
	p := exact.Problem{System: lbsim.System{N: 4}, Lambda: 0.9, Policy: jsqRouter{}, Cap: 20}
	for b.Loop() {
		if _, err := exact.Solve(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
}
