package redundancy

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/lbsim/notebooks/lbsim/pairs"
)

// ErrExactTooLarge is matched by the error of Exact when the pair
// distribution makes the chain of busy unions too large to solve.
var ErrExactTooLarge = errors.New("redundancy: the exact solution is too large")

// MaxExactServers bounds the servers of Exact and LightTraffic: unions are
// bitmasks indexed in arrays of 2^N entries.
const MaxExactServers = 20

// maxExactWork bounds (reachable unions) x (classes), the work of one level
// of the recursion and the size of its transition table.
const maxExactWork = 1 << 25

// ExactOptions tunes Exact; the zero value is the default.
type ExactOptions struct {
	// Tol is the probability mass left beyond the last level of
	// Solution.TasksDistribution (default 1e-12).
	Tol float64
	// LightTraffic is the number K of light-traffic coefficients a_1..a_K
	// of Solution.LightTraffic (default 8; < 0: none).
	LightTraffic int
	// MaxLevels bounds the levels n of the distribution (default 1e5).
	MaxLevels int
}

// Solution is the exact stationary behaviour of redundancy with
// cancel-on-complete (see the package documentation).
type Solution struct {
	// Servers is N, Lambda the arrival rate per server, TotalRate lambda*N.
	Servers   int     `json:"servers"`
	Lambda    float64 `json:"lambda"`
	TotalRate float64 `json:"total_rate"`
	// Classes is the number of sets of positive probability, Unions the
	// number of reachable unions of them (the aggregated states).
	Classes int `json:"classes"`
	Unions  int `json:"unions"`
	// LoadRatio is max over sets A of Lambda*P(S in A)/mu(A) (< 1: stable);
	// it is also the geometric decay rate of P(N = n).
	LoadRatio float64 `json:"load_ratio"`
	// TasksDistribution[n] is P(N = n), tasks in system, for n up to where
	// the mass beyond, TailMass, is below Tol.
	TasksDistribution []float64 `json:"tasks_distribution"`
	TailMass          float64   `json:"tail_mass"`
	// MeanTasks is E[N] (exact, not truncated); MeanResponse E[N]/Lambda
	// (Little's law).
	MeanTasks    float64 `json:"mean_tasks"`
	MeanResponse float64 `json:"mean_response"`
	// Busy[j] is P(server j busy): some task present has j in its set.
	Busy []float64 `json:"busy"`
	// Occupancy holds q_1 only, the mean fraction of busy servers: the
	// aggregation by unions does not keep how many replicas a server holds,
	// so q_2, q_3, ... are not available from it.
	Occupancy []float64 `json:"occupancy"`
	// LightTraffic holds a_1..a_K of E[N] = sum_k a_k Lambda^k.
	LightTraffic []float64 `json:"light_traffic"`
}

// system is the aggregated chain: reachable unions U (bitmasks, ascending)
// and the class rates. Going from U, a class c arrival moves to U|S_c.
type system struct {
	n      int
	masks  []uint32  // S_c
	p      []float64 // P(set c)
	unions []uint32  // reachable unions, ascending (unions[0] = 0)
	muU    []float64 // mu(U)
	next   []int32   // next[u*C+c]: index of unions[u] | masks[c]
}

func newSystem(dist *pairs.Dist, rates []float64) (*system, error) {
	n := dist.N()
	if n > MaxExactServers {
		return nil, fmt.Errorf("redundancy: servers = %d: the exact solution takes at most %d servers", n, MaxExactServers)
	}
	sets, err := dist.Sets()
	if err != nil {
		return nil, err
	}
	s := &system{n: n}
	for _, set := range sets {
		var m uint32
		for _, j := range set.Servers {
			m |= 1 << j
		}
		s.masks = append(s.masks, m)
		s.p = append(s.p, set.P)
	}
	if len(s.masks) == 0 {
		return nil, errors.New("redundancy: pairs: no set of positive probability")
	}
	// The size check comes before and during the enumeration of the
	// unions, whose work is (unions) x (sets): the empty union and each set
	// are reachable, so there are at least sets+1 unions, and the
	// enumeration stops as soon as the unions found are too many (for d = 10
	// of 20 servers, 184756 sets, the whole enumeration took minutes).
	c := len(s.masks)
	tooLarge := func(unions int, atLeast string) error {
		return fmt.Errorf("%w: %s%d reachable unions x %d sets: more than %d transitions for the exact solution",
			ErrExactTooLarge, atLeast, unions, c, maxExactWork)
	}
	if (c+1)*c > maxExactWork {
		return nil, tooLarge(c+1, "at least ")
	}
	reach := make([]bool, 1<<n)
	reach[0] = true
	index := make([]int32, 1<<n)
	for u := range reach {
		if !reach[u] {
			continue
		}
		if (len(s.unions)+1)*c > maxExactWork {
			return nil, tooLarge(len(s.unions)+1, "at least ")
		}
		index[u] = int32(len(s.unions))
		s.unions = append(s.unions, uint32(u))
		for _, m := range s.masks {
			reach[uint32(u)|m] = true
		}
	}
	s.next = make([]int32, len(s.unions)*c)
	s.muU = make([]float64, len(s.unions))
	for k, u := range s.unions {
		for i, m := range s.masks {
			s.next[k*c+i] = index[u|m]
		}
		for x := u; x != 0; x &= x - 1 {
			s.muU[k] += rates[bits.TrailingZeros32(x)]
		}
	}
	return s, nil
}

// CheckExactSize returns an error wrapping ErrExactTooLarge if the exact
// solution of dist (Exact) is too large to compute, found from the sets of
// dist alone, in bounded work; nil if it can be computed.
func CheckExactSize(dist *pairs.Dist) error {
	rates := make([]float64, dist.N())
	for j := range rates {
		rates[j] = 1
	}
	_, err := newSystem(dist, rates)
	return err
}

// stay returns the rate factor of the classes inside union k, w*P(S in U)/mu(U):
// the diagonal of the level operator T (w = Lambda), and the largest over k.
func (s *system) stay(w float64) ([]float64, float64) {
	c := len(s.masks)
	r := make([]float64, len(s.unions))
	worst := 0.0
	for k := range s.unions {
		p := 0.0
		for i := range c {
			if s.next[k*c+i] == int32(k) {
				p += s.p[i]
			}
		}
		if k > 0 {
			r[k] = w * p / s.muU[k]
			worst = math.Max(worst, r[k])
		}
	}
	return r, worst
}

// level maps the (unnormalised) masses f of the unions at level n to those
// at level n+1: g(U') = sum_{U, c: U|S_c = U'} f(U) w p_c / mu(U').
func (s *system) level(f, g []float64, w float64) {
	c := len(s.masks)
	clear(g)
	for k, x := range f {
		if x == 0 {
			continue
		}
		x *= w
		row := s.next[k*c : k*c+c]
		for i, t := range row {
			g[t] += x * s.p[i]
		}
	}
	g[0] = 0 // the empty union is left at the first arrival
	for k := 1; k < len(g); k++ {
		g[k] /= s.muU[k]
	}
}

// solveBack returns h = (I - T)^{-1} b: h(U) = b(U) + sum_U' T(U, U') h(U'),
// by back-substitution from the largest union (T only moves to supersets).
func (s *system) solveBack(b, stay []float64, w float64) []float64 {
	c := len(s.masks)
	h := make([]float64, len(s.unions))
	for k := len(s.unions) - 1; k >= 0; k-- {
		acc := b[k]
		for i, t := range s.next[k*c : k*c+c] {
			if int(t) != k {
				acc += w * s.p[i] / s.muU[t] * h[t]
			}
		}
		h[k] = acc / (1 - stay[k])
	}
	return h
}

// solveForward returns v = e_0 (I - T)^{-1}, the total unnormalised mass of
// each union over all levels.
func (s *system) solveForward(stay []float64, w float64) []float64 {
	c := len(s.masks)
	v := make([]float64, len(s.unions))
	v[0] = 1
	for k := range s.unions {
		v[k] /= 1 - stay[k]
		for i, t := range s.next[k*c : k*c+c] {
			if int(t) != k {
				v[t] += v[k] * w * s.p[i] / s.muU[t]
			}
		}
	}
	return v
}

// Exact computes the stationary distribution of redundancy with
// cancel-on-complete from its product form, aggregated by the union of the
// servers of the tasks present. lambda is the arrival rate per server,
// rates the service rates (nil: all 1). It refuses unstable inputs.
func Exact(dist *pairs.Dist, lambda float64, rates []float64, opts ExactOptions) (*Solution, error) {
	rates, err := checkInput(dist, lambda, rates)
	if err != nil {
		return nil, err
	}
	if opts.Tol == 0 {
		opts.Tol = 1e-12
	}
	if !(opts.Tol > 0 && opts.Tol < 1) {
		return nil, fmt.Errorf("redundancy: Tol = %v: must be in (0, 1)", opts.Tol)
	}
	if opts.LightTraffic == 0 {
		opts.LightTraffic = 8
	}
	if opts.MaxLevels == 0 {
		opts.MaxLevels = 1e5
	}
	s, err := newSystem(dist, rates)
	if err != nil {
		return nil, err
	}
	n := s.n
	w := lambda * float64(n)
	stay, ratio := s.stay(w)
	if !(ratio < 1-stableMargin) {
		_, worst, _ := LoadRatio(dist, lambda, rates)
		return nil, stabilityError(lambda, ratio, worst, n)
	}
	sol := &Solution{Servers: n, Lambda: lambda, TotalRate: w, Classes: len(s.masks), Unions: len(s.unions),
		LoadRatio: ratio}

	// Normalising constant Z = h(0) with h = (I-T)^{-1} 1, and E[N] Z =
	// h2(0) - h(0) with h2 = (I-T)^{-1} h, since sum_n n T^n = (I-T)^{-2} -
	// (I-T)^{-1}. To avoid cancellation in light traffic the solves work with
	// e = h - 1 = (I-T)^{-1} T1 and h2 - h = (I-T)^{-1} e.
	c := len(s.masks)
	t1 := make([]float64, len(s.unions))
	for k := range t1 {
		for i, t := range s.next[k*c : k*c+c] {
			t1[k] += w * s.p[i] / s.muU[t]
		}
	}
	e := s.solveBack(t1, stay, w)
	e2 := s.solveBack(e, stay, w)
	z := 1 + e[0]
	sol.MeanTasks = e2[0] / z
	sol.MeanResponse = sol.MeanTasks / w

	// Union distribution: P(U) = v(U)/Z.
	v := s.solveForward(stay, w)
	sol.Busy = make([]float64, n)
	q1 := 0.0
	for k, u := range s.unions {
		pu := v[k] / z
		for x := u; x != 0; x &= x - 1 {
			sol.Busy[bits.TrailingZeros32(x)] += pu
		}
		q1 += pu * float64(bits.OnesCount32(u)) / float64(n)
	}
	sol.Occupancy = []float64{q1}

	// P(N = n) level by level; the mass beyond level n is exactly
	// F_n . (h - 1) = F_n . e (T h = h - 1), so the loop stops when it is
	// below Tol.
	f := make([]float64, len(s.unions))
	g := make([]float64, len(s.unions))
	f[0] = 1
	for lv := 0; ; lv++ {
		mass, tail := 0.0, 0.0
		for k, x := range f {
			mass += x
			tail += x * e[k]
		}
		sol.TasksDistribution = append(sol.TasksDistribution, mass/z)
		sol.TailMass = math.Max(0, tail/z)
		if sol.TailMass < opts.Tol {
			break
		}
		if lv >= opts.MaxLevels || math.IsNaN(tail) {
			return nil, fmt.Errorf("redundancy: lambda = %v: P(N > %d) = %.3g is still above Tol = %v (load ratio %.6g); "+
				"raise MaxLevels", lambda, lv, sol.TailMass, opts.Tol, ratio)
		}
		s.level(f, g, w)
		f, g = g, f
	}
	if opts.LightTraffic > 0 {
		sol.LightTraffic = s.lightTraffic(opts.LightTraffic)
	}
	return sol, nil
}

// LightTraffic returns a_1..a_k of the expansion E[N] = sum_k a_k Lambda^k
// in the total arrival rate Lambda = lambda*N (rates nil: all 1). It needs
// no lambda: f_n(U) = Lambda^n g_n(U), so P(N = n) = Lambda^n G_n / sum_m
// Lambda^m G_m with G_n = sum_U g_n(U), and the coefficients follow by
// dividing the power series sum_n n G_n x^n by sum_n G_n x^n.
func LightTraffic(dist *pairs.Dist, rates []float64, k int) ([]float64, error) {
	s, err := lightSystem(dist, rates, k, "coefficients")
	if err != nil {
		return nil, err
	}
	return s.lightTraffic(k), nil
}

// lightSystem checks the input of a light-traffic expansion to order k
// (what names the k things asked for) and builds its system.
func lightSystem(dist *pairs.Dist, rates []float64, k int, what string) (*system, error) {
	rates, err := checkInput(dist, 1, rates)
	if err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, fmt.Errorf("redundancy: k = %d %s: must be >= 1", k, what)
	}
	return newSystem(dist, rates)
}

func (s *system) lightTraffic(k int) []float64 {
	gs := s.levelSums(k) // G_0..G_k
	// a = A / B with A_n = n G_n, B_n = G_n, B_0 = 1:
	// a_n = A_n - sum_{j=1..n} B_j a_{n-j}.
	a := make([]float64, k+1)
	for n := 1; n <= k; n++ {
		a[n] = float64(n) * gs[n]
		for j := 1; j <= n; j++ {
			a[n] -= gs[j] * a[n-j]
		}
	}
	return a[1:]
}
