package csma

import (
	"errors"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
	"gonum.org/v1/gonum/mat"
)

func mustConflict(t testing.TB, spec string) *graph.Graph {
	t.Helper()
	g, err := Conflict(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustEnumerate(t testing.TB, spec string) *IndependentSets {
	t.Helper()
	s, err := Enumerate(mustConflict(t, spec), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func moments(t testing.TB, f Family, theta []float64) *Moments {
	t.Helper()
	var m Moments
	if err := f.Moments(theta, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// near reports |a - b| <= tol (1e-12 below: sums of a few exponentials,
// rounding only).
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The number of independent sets: Fibonacci numbers for paths, Lucas
// numbers for rings, n+1 for the complete graph, 63 and 1234 for the 3x3
// and 4x4 grids (OEIS A006506), and a brute-force count over all 2^9
// subsets for the 3x3 torus.
func TestEnumerateCounts(t *testing.T) {
	for spec, want := range map[string]int{"path:1": 2, "path:2": 3, "path:4": 8, "path:10": 144,
		"ring:5": 11, "ring:10": 123, "complete:6": 7, "grid:3x3": 63, "grid:4x4": 1234,
		"torus:3": bruteCount(mustConflict(t, "torus:3"))} {
		if got := len(mustEnumerate(t, spec).Sets); got != want {
			t.Errorf("%s: %d independent sets, want %d", spec, got, want)
		}
	}
	if _, err := Enumerate(mustConflict(t, "grid:5x5"), 1000); err == nil {
		t.Error("grid:5x5 has more than 1000 independent sets, but Enumerate did not refuse")
	}
}

func bruteCount(g *graph.Graph) int {
	n := g.N()
	count := 0
	for x := 0; x < 1<<n; x++ {
		ok := true
		for v := 0; v < n && ok; v++ {
			if x>>v&1 == 0 {
				continue
			}
			for _, u := range g.Neighbors(v) {
				if x>>u&1 == 1 {
					ok = false
				}
			}
		}
		if ok {
			count++
		}
	}
	return count
}

// Closed forms: a single node has s = e^θ/(1+e^θ), variance s(1-s), log Z
// = log(1+e^θ); the path of 2 has Z = 1 + e^a + e^b; the complete graph K_n has Z = 1 + Σ e^θ_i, s_i = e^θ_i/Z,
// Cov_ij = -s_i s_j (at most one node active); the path of 3 has Z = 1 +
// e^a + e^b + e^c + e^(a+c).
func TestMomentsClosedForms(t *testing.T) {
	const tol = 1e-12
	for _, th := range []float64{-3, 0, 0.7, 5} {
		m := moments(t, mustEnumerate(t, "path:1"), []float64{th})
		s := math.Exp(th) / (1 + math.Exp(th))
		if !near(m.Mean[0], s, tol) || !near(m.Cov.At(0, 0), s*(1-s), tol) || !near(m.LogZ, math.Log1p(math.Exp(th)), tol) {
			t.Errorf("single node, theta %v: s %v var %v logZ %v; want %v %v %v", th, m.Mean[0], m.Cov.At(0, 0), m.LogZ,
				s, s*(1-s), math.Log1p(math.Exp(th)))
		}
	}
	theta := []float64{0.3, -1, 2, 0.5, -0.2}
	m := moments(t, mustEnumerate(t, "complete:5"), theta)
	z := 1.0
	for _, x := range theta {
		z += math.Exp(x)
	}
	for i := range theta {
		si := math.Exp(theta[i]) / z
		if !near(m.Mean[i], si, tol) {
			t.Errorf("K5: s_%d = %v, want %v", i, m.Mean[i], si)
		}
		for j := range theta {
			want := -si * math.Exp(theta[j]) / z
			if i == j {
				want = si * (1 - si)
			}
			if !near(m.Cov.At(i, j), want, tol) {
				t.Errorf("K5: Cov_%d%d = %v, want %v", i, j, m.Cov.At(i, j), want)
			}
		}
	}
	// A path of 2: Z = 1 + e^a + e^b, never both active.
	m = moments(t, mustEnumerate(t, "path:2"), []float64{0.8, -0.4})
	z = 1 + math.Exp(0.8) + math.Exp(-0.4)
	if s0, s1 := math.Exp(0.8)/z, math.Exp(-0.4)/z; !near(m.Mean[0], s0, tol) || !near(m.Mean[1], s1, tol) ||
		!near(m.Cov.At(0, 1), -s0*s1, tol) || !near(m.LogZ, math.Log(z), tol) {
		t.Errorf("path:2: s %v, Cov_01 %v, log Z %v", m.Mean, m.Cov.At(0, 1), m.LogZ)
	}
	a, b, c := 0.4, 1.1, -0.6
	m = moments(t, mustEnumerate(t, "path:3"), []float64{a, b, c})
	z = 1 + math.Exp(a) + math.Exp(b) + math.Exp(c) + math.Exp(a+c)
	want := []float64{(math.Exp(a) + math.Exp(a+c)) / z, math.Exp(b) / z, (math.Exp(c) + math.Exp(a+c)) / z}
	for i := range want {
		if !near(m.Mean[i], want[i], tol) {
			t.Errorf("path:3: s_%d = %v, want %v", i, m.Mean[i], want[i])
		}
	}
	if !near(m.LogZ, math.Log(z), tol) || !near(m.Cov.At(0, 2), math.Exp(a+c)/z-want[0]*want[2], tol) {
		t.Errorf("path:3: log Z %v, Cov_02 %v", m.LogZ, m.Cov.At(0, 2))
	}
	// The Dense family of the same states gives the same moments.
	s := mustEnumerate(t, "grid:3x3")
	phi := make([][]float64, len(s.Sets))
	for k, x := range s.Sets {
		phi[k] = make([]float64, 9)
		for i := range 9 {
			phi[k][i] = float64(x >> i & 1)
		}
	}
	dense, err := NewDense(phi, nil)
	if err != nil {
		t.Fatal(err)
	}
	th := []float64{0.1, 0.2, -0.3, 1, 0, 0.5, -1, 0.7, 0.2}
	m1, m2 := moments(t, s, th), moments(t, dense, th)
	if !near(m1.LogZ, m2.LogZ, tol) || !mat.EqualApprox(m1.Cov, m2.Cov, tol) {
		t.Errorf("grid:3x3: IndependentSets and Dense disagree: log Z %v %v", m1.LogZ, m2.LogZ)
	}
}

// SolveTargets against closed forms: on K_n, s(theta) = gamma at theta_i =
// log(gamma_i / (1 - Σ gamma)); on a single node at log(gamma/(1-gamma)).
// Then s(theta*) = gamma to 1e-10 on a 3x3 grid.
func TestSolveTargets(t *testing.T) {
	gamma := []float64{0.1, 0.25, 0.2, 0.3}
	theta, _, err := SolveTargets(mustEnumerate(t, "complete:4"), gamma, 1e-13)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range gamma {
		if want := math.Log(g / (1 - 0.85)); !near(theta[i], want, 1e-10) {
			t.Errorf("K4: theta_%d = %v, want %v", i, theta[i], want)
		}
	}
	theta, _, _ = SolveTargets(mustEnumerate(t, "path:1"), []float64{0.9}, 1e-13)
	if want := math.Log(9); !near(theta[0], want, 1e-10) {
		t.Errorf("one node: theta = %v, want log 9", theta[0])
	}
	s := mustEnumerate(t, "grid:3x3")
	gamma = []float64{0.4, 0.2, 0.4, 0.2, 0.35, 0.2, 0.4, 0.2, 0.4}
	theta, it, err := SolveTargets(s, gamma, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	act, _ := s.Activity(theta)
	for i := range gamma {
		if !near(act[i], gamma[i], 1e-10) {
			t.Errorf("grid:3x3: s_%d = %v, want %v (%d Newton steps)", i, act[i], gamma[i], it)
		}
	}
	// A target of 1e-13 has theta* = log(2e-13) on a path of 2 nodes (the
	// residual alone stopped near -27.7, where s_1 is within 1e-12 of it);
	// 1e-20 has it beyond MaxTheta, and so have targets 1e-14 inside the edge
	// inequality: errors, not clipped or unconverged values.
	p2 := mustEnumerate(t, "path:2")
	if theta, _, err := SolveTargets(p2, []float64{0.5, 1e-13}, 1e-12); err != nil || !near(theta[1], math.Log(1e-13/(0.5-1e-13)), 1e-9) {
		t.Errorf("path:2, targets 0.5, 1e-13: theta %v, %v; want theta_1 = %v", theta, err, math.Log(1e-13/(0.5-1e-13)))
	}
	for _, gamma := range [][]float64{{0.5, 1e-20}, {0.5 - 1e-14, 0.5 - 1e-14}} {
		if theta, _, err := SolveTargets(p2, gamma, 1e-12); !errors.Is(err, ErrBeyondMaxTheta) {
			t.Errorf("path:2, targets %v: theta %v, err %v; want ErrBeyondMaxTheta", gamma, theta, err)
		}
	}
	// Outside the capacity region there is no finite optimum.
	if _, _, err := SolveTargets(mustEnumerate(t, "complete:3"), []float64{0.4, 0.4, 0.4}, 1e-12); err == nil {
		t.Error("K3 with targets summing to 1.2: no error")
	}
}

// SolveUtility: theta = V/s(theta) at the solution; for one node s =
// sigma(theta), checked directly; on a 3x3 grid the residual is below
// 1e-10 and the gradient Cov (V/s - theta) vanishes.
func TestSolveUtility(t *testing.T) {
	for _, spec := range []string{"path:1", "path:4", "ring:5", "grid:3x3"} {
		s := mustEnumerate(t, spec)
		for _, v := range []float64{0.3, 1, 2} {
			theta, _, err := SolveUtility(s, v, 1e-12)
			if err != nil {
				t.Fatalf("%s V=%v: %v", spec, v, err)
			}
			act, _ := s.Activity(theta)
			for i := range theta {
				if !near(theta[i], v/act[i], 1e-10) {
					t.Errorf("%s V=%v: theta_%d = %v, V/s = %v", spec, v, i, theta[i], v/act[i])
				}
			}
			if spec == "path:1" {
				if sig := 1 / (1 + math.Exp(-theta[0])); !near(act[0], sig, 1e-14) {
					t.Errorf("one node: s %v, sigma(theta) %v", act[0], sig)
				}
			}
		}
	}
}

// The capacity region: bipartite graphs by their edge inequalities, odd
// rings and triangles by the LP (the 5-ring's region has Σ s <= 2, a
// triangle's Σ s <= 1: targets that pass every edge inequality but not
// these are refused).
func TestCheckTargets(t *testing.T) {
	for _, c := range []struct {
		spec  string
		gamma []float64
		ok    bool
		how   Capacity
	}{
		{"path:4", []float64{0.5, 0.3, 0.3, 0.5}, true, Interior},
		{"path:4", []float64{0.5, 0.5, 0.3, 0.5}, false, 0},
		{"path:4", []float64{0.5, 0, 0.3, 0.5}, false, 0},
		{"ring:5", []float64{0.39, 0.39, 0.39, 0.39, 0.39}, true, Interior},
		{"ring:5", []float64{0.41, 0.41, 0.41, 0.41, 0.41}, false, 0},
		{"ring:5", []float64{0.4, 0.4, 0.4, 0.4, 0.4}, false, 0}, // on the boundary
		{"complete:3", []float64{0.3, 0.3, 0.3}, true, Interior},
		{"complete:3", []float64{0.4, 0.4, 0.4}, false, 0},
		{"grid:10x10", fill(100, 0.45), true, Interior},
		{"grid:10x10", fill(100, 0.5), false, 0},
		{"torus:9", fill(81, 0.3), true, Unchecked},
	} {
		how, err := CheckTargets(mustConflict(t, c.spec), c.gamma)
		if (err == nil) != c.ok || (c.ok && how != c.how) {
			t.Errorf("%s %v: %v, %v; want ok %v, %v", c.spec, c.gamma[:3], how, err, c.ok, c.how)
		}
	}
}

func fill(n int, x float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x
	}
	return out
}

// The spectral gap: a single node is a two-state chain with rates e^θ and
// 1, gap 1 + e^θ; on a path of 3 the gap equals the one of the generator
// itself (gonum's nonsymmetric eigensolver), and the bound mixing time is
// at least the relaxation time.
func TestSpectralGap(t *testing.T) {
	for _, th := range []float64{-2, 0, 1.5} {
		mix, err := mustEnumerate(t, "path:1").SpectralGap([]float64{th})
		if err != nil || !near(mix.Gap, 1+math.Exp(th), 1e-12) {
			t.Errorf("one node, theta %v: gap %v (%v), want %v", th, mix.Gap, err, 1+math.Exp(th))
		}
	}
	s := mustEnumerate(t, "path:3")
	theta := []float64{0.5, -0.4, 1.2}
	mix, err := s.SpectralGap(theta)
	if err != nil {
		t.Fatal(err)
	}
	m := len(s.Sets)
	q := mat.NewDense(m, m, nil)
	for k, x := range s.Sets {
		for i := range 3 {
			bit := uint64(1) << i
			var j int
			var r float64
			switch {
			case x&bit != 0:
				j, r = s.Index(x&^bit), 1
			case x&s.Neighbours(i) == 0:
				j, r = s.Index(x|bit), math.Exp(theta[i])
			default:
				continue
			}
			q.Set(k, j, r)
			q.Set(k, k, q.At(k, k)-r)
		}
	}
	var eig mat.Eigen
	if !eig.Factorize(q, mat.EigenNone) {
		t.Fatal("eigen")
	}
	gap := math.Inf(1)
	for _, v := range eig.Values(nil) {
		if -real(v) > 1e-9 {
			gap = math.Min(gap, -real(v))
		}
	}
	if !near(mix.Gap, gap, 1e-9) || mix.MixingTime < mix.RelaxationTime {
		t.Errorf("path:3: gap %v, generator's %v; mixing %v relaxation %v", mix.Gap, gap, mix.MixingTime, mix.RelaxationTime)
	}
}
