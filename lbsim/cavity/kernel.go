package cavity

import (
	"context"
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim/service"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

// Kernel chooses how the exact solver integrates the arrival process of the
// single queue against the service law (see the package documentation).
type Kernel int

const (
	// KernelAuto picks by law: KernelMixture for exponential, hyperexponential
	// and Lomax service, KernelExpm for atoms and phase-type laws,
	// KernelUniformization for the other laws with a density.
	KernelAuto Kernel = iota
	// KernelMixture writes the law as a mixture of exponentials (S ~ Exp(T),
	// T discrete or Gamma(alpha, scale) for the Lomax law, integrated by the
	// trapezoidal rule in log T) and computes the cut sums by a recursion of
	// O(K) per node.
	KernelMixture
	// KernelExpm computes M = E[exp(B S)] by matrix exponentials (gonum's
	// Pade approximant) for laws with atoms, and by a Kronecker-sum linear
	// solve for phase-type laws.
	KernelExpm
	// KernelUniformization computes M = sum_k P(Poisson(Lambda S) = k) P^k with
	// P = I + B/Lambda, Lambda = d lambda, the weights exact for atoms and by
	// Gauss-Legendre quadrature of the density otherwise.
	KernelUniformization
)

func (k Kernel) String() string {
	switch k {
	case KernelMixture:
		return "mixture"
	case KernelExpm:
		return "expm"
	case KernelUniformization:
		return "uniformization"
	}
	return "auto"
}

// kernel computes, for a truncation level K and arrival rates lam[n] in state
// n = 0..K-1 (arrivals blocked at K), the time-average law p_0..p_K of the
// single FIFO queue.
type kernel interface {
	timeAverage(ctx context.Context, lam []float64) ([]float64, error)
	// refined is the same kernel with a finer discretisation (for the
	// quadrature error), or nil when the kernel has none.
	refined() kernel
	// missing is a bound on the probability mass the kernel's discretisation
	// leaves out of a row of M (0 when exact).
	missing() float64
}

// newKernel builds the kernel k for dist; fine > 0 asks for a finer
// discretisation (the step halved fine times).
func newKernel(k Kernel, dist service.Distribution, Lambda float64, fine int, tail float64) (kernel, error) {
	mean := dist.Mean()
	if k == KernelAuto {
		_, _, mix := service.ExpMixture(dist)
		_, _, gam := service.GammaMixture(dist)
		_, _, atoms := service.Atoms(dist)
		_, _, ph := service.PH(dist)
		switch {
		case mix || gam:
			k = KernelMixture
		case atoms || ph:
			k = KernelExpm
		default:
			k = KernelUniformization
		}
	}
	switch k {
	case KernelMixture:
		if rates, probs, ok := service.ExpMixture(dist); ok {
			return &mixture{t: rates, w: probs, mean: mean}, nil
		}
		if shape, scale, ok := service.GammaMixture(dist); ok {
			return gammaMixture(shape, scale, mean, 0.25/math.Pow(2, float64(fine)), fine), nil
		}
	case KernelExpm:
		if pts, probs, ok := service.Atoms(dist); ok {
			return &matrixKernel{mean: mean, build: func(B *mat.Dense) (*mat.Dense, []float64) { return atomsExpm(B, pts, probs) }}, nil
		}
		if alpha, T, ok := service.PH(dist); ok {
			return &matrixKernel{mean: mean, build: func(B *mat.Dense) (*mat.Dense, []float64) { return phKronecker(B, alpha, T) }}, nil
		}
	case KernelUniformization:
		w, miss, err := poissonWeights(dist, Lambda, fine, tail)
		if err != nil {
			return nil, err
		}
		u := &uniform{w: w, Lambda: Lambda, dist: dist, fine: fine, miss: miss, tail: tail}
		return &matrixKernel{mean: mean, build: u.build, fine: u, miss: miss}, nil
	default:
		return nil, fmt.Errorf("cavity: kernel = %d: must be auto, mixture, expm or uniformization", int(k))
	}
	return nil, fmt.Errorf("cavity: kernel %s cannot integrate %s", k, dist)
}

// fromDepartures turns the law pi[0..K-1] (unnormalised) that departures
// leave behind into the time-average law p_0..p_K. Level crossing: arrivals
// that find n (rate lam[n] p_n) and departures that leave n balance, so
// lam[n] p_n = c pi_n / sum(pi), where c is the throughput, one over the mean
// time between departures, mean + P(departure leaves 0)/lam[0]. topTime is the
// mean time spent at K per departure, or NaN to take p_K = 1 - sum of the rest.
func fromDepartures(pi, lam []float64, mean, topTime float64) []float64 {
	K := len(pi)
	tot := 0.0
	for _, v := range pi {
		tot += v
	}
	c := 1 / (mean + pi[0]/tot/lam[0])
	p := make([]float64, K+1)
	sum := 0.0
	for n := 0; n < K; n++ {
		if pi[n] > 0 {
			p[n] = c * pi[n] / tot / lam[n]
		}
		sum += p[n]
	}
	if math.IsNaN(topTime) {
		p[K] = math.Max(0, 1-sum)
	} else {
		p[K] = c * topTime / tot
	}
	return p
}

// ------------------------------------------------------------------ mixture

// mixture is the law S ~ Exp(rate T), P(T = t[i]) = w[i] (a quadrature of
// the mixing law for the Lomax law). Given T = t, the service outlasts the
// births from j to m + 1 with probability prod_{l=j}^m r_l(t),
// r_l(t) = lam_l/(lam_l + t) (the Laplace transform of the hypoexponential
// time at t), so the cut sums are sums over nodes of running products.
type mixture struct {
	t, w []float64
	mean float64
	fine kernel
	miss float64
}

// gammaMixture discretises T ~ Gamma(shape, rate) by the trapezoidal rule in
// y = log t with step h, over the range where the weights of the integrands
// (t^shape e^{-rate t}, and t^(shape-1) e^{-rate t} for the time at the top
// level) exceed 1e-20 of their maximum.
func gammaMixture(shape, rate, mean, h float64, fine int) *mixture {
	lg, _ := math.Lgamma(shape)
	lo := math.Log(1/rate) - 46/(shape-1)
	hi := math.Log((60 + 2*shape) / rate)
	m := &mixture{mean: mean}
	for y := lo; y <= hi; y += h {
		t := math.Exp(y)
		// Gamma density times dt = t dy.
		w := math.Exp(shape*math.Log(rate*t)-rate*t-lg) * h
		m.t, m.w = append(m.t, t), append(m.w, w)
	}
	sum := 0.0
	for _, w := range m.w {
		sum += w
	}
	m.miss = math.Abs(1 - sum)
	if fine < 2 {
		m.fine = gammaMixture(shape, rate, mean, h/2, fine+1)
	}
	return m
}

func (m *mixture) refined() kernel {
	if m.fine == nil {
		return nil
	}
	return m.fine
}

func (m *mixture) missing() float64 { return m.miss }

func (m *mixture) timeAverage(ctx context.Context, lam []float64) ([]float64, error) {
	K := len(lam)
	nodes := len(m.t)
	r := func(l, i int) float64 { return lam[l] / (lam[l] + m.t[i]) }
	pi := make([]float64, K)
	pi[0] = 1
	R := make([]float64, nodes) // R_i(m) = sum_{j<m} pi_j prod_{l=max(j,1)}^m r_l(t_i)
	for i := range R {
		R[i] = r(1, i)
	}
	for n := 1; n < K; n++ {
		if n&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// pi_n P(no arrival during a service started at n) = sum_{j<n} pi_j P(reach n+1).
		a, s := 0.0, 0.0
		for i, t := range m.t {
			a += m.w[i] * t / (t + lam[n])
			s += m.w[i] * R[i]
		}
		pi[n] = s / a
		if n+1 < K {
			for i := range R {
				R[i] = r(n+1, i) * (R[i] + pi[n]*r(n, i))
			}
		} else {
			for i := range R {
				R[i] += pi[n] * r(n, i)
			}
		}
	}
	// Mean time at K per departure: sum_j pi_j E[(S - H_{j..K-1})^+] with
	// E[(S - H)^+ | T = t] = P(S > H | t)/t.
	top := 0.0
	for i, t := range m.t {
		top += m.w[i] * R[i] / t
	}
	return fromDepartures(pi, lam, m.mean, top), nil
}

// ------------------------------------------------------------------- matrix

// matrixKernel computes M[j][e] = P(the service started with j tasks ends
// with e) for the truncated birth generator B, and top[j], the mean time a
// service started with j tasks spends at K (the last column of
// int_0^inf P(S > s) exp(B s) ds), and solves the cut equations
// pi_m M[m][m] = sum_{j<m} pi_j P(a service from max(j,1) ends above m).
type matrixKernel struct {
	mean  float64
	build func(B *mat.Dense) (M *mat.Dense, top []float64)
	fine  *uniform
	miss  float64
}

func (k *matrixKernel) refined() kernel {
	if k.fine == nil || k.fine.fine >= 1 {
		return nil
	}
	w, miss, err := poissonWeights(k.fine.dist, k.fine.Lambda, k.fine.fine+1, k.fine.tail)
	if err != nil {
		return nil
	}
	u := &uniform{w: w, Lambda: k.fine.Lambda, dist: k.fine.dist, fine: k.fine.fine + 1, miss: miss, tail: k.fine.tail}
	return &matrixKernel{mean: k.mean, build: u.build, fine: u, miss: miss}
}

func (k *matrixKernel) missing() float64 { return k.miss }

// birth is the generator of the pure-birth process on 0..K with rate lam[n]
// out of n < K (K absorbing).
func birth(lam []float64) *mat.Dense {
	K := len(lam)
	B := mat.NewDense(K+1, K+1, nil)
	for n, l := range lam {
		B.Set(n, n, -l)
		B.Set(n, n+1, l)
	}
	return B
}

func (k *matrixKernel) timeAverage(ctx context.Context, lam []float64) ([]float64, error) {
	K := len(lam)
	M, topCol := k.build(birth(lam))
	if M == nil {
		return nil, fmt.Errorf("cavity: singular system computing E[exp(B S)]")
	}
	// suf[j][m] = sum_{e > m} M[j][e], summed from the top (positive terms).
	suf := make([][]float64, K+1)
	for j := 1; j <= K; j++ {
		suf[j] = make([]float64, K+1)
		s := 0.0
		for e := K; e >= j; e-- {
			suf[j][e] = s
			s += math.Max(M.At(j, e), 0)
		}
	}
	pi := make([]float64, K)
	pi[0] = 1
	for n := 1; n < K; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := pi[0] * suf[1][n]
		for j := 1; j < n; j++ {
			s += pi[j] * suf[j][n]
		}
		pi[n] = s / M.At(n, n)
	}
	top := pi[0] * topCol[1]
	for j := 1; j < K; j++ {
		top += pi[j] * topCol[j]
	}
	return fromDepartures(pi, lam, k.mean, top), nil
}

// atomsExpm is sum_i probs[i] exp(points[i] B), and the last column of
// sum_i probs[i] int_0^points[i] exp(B s) ds, both read off the exponential of
// the augmented matrix [[B, e_K], [0, 0]] (Van Loan), taken incrementally
// over the increasing points.
func atomsExpm(B *mat.Dense, points, probs []float64) (*mat.Dense, []float64) {
	n, _ := B.Dims()
	A := mat.NewDense(n+1, n+1, nil)
	A.Slice(0, n, 0, n).(*mat.Dense).Copy(B)
	A.Set(n-1, n, 1)
	M := mat.NewDense(n, n, nil)
	top := make([]float64, n)
	E := mat.NewDense(n+1, n+1, nil)
	var step, ex, tmp mat.Dense
	prev := 0.0
	for i, s := range points {
		step.Scale(s-prev, A)
		ex.Exp(&step)
		if i == 0 {
			E.Copy(&ex)
		} else {
			tmp.Mul(E, &ex)
			E.Copy(&tmp)
		}
		for j := 0; j < n; j++ {
			for e := j; e < n; e++ {
				M.Set(j, e, M.At(j, e)+probs[i]*E.At(j, e))
			}
			top[j] += probs[i] * E.At(j, n)
		}
		prev = s
	}
	return M, top
}

func scaled(c float64, a *mat.Dense) *mat.Dense {
	var s mat.Dense
	s.Scale(c, a)
	return &s
}

// phKronecker is E[exp(B S)] for S ~ PH(alpha, T):
// (1 - sum alpha) I + (alpha x I) (-(T x I + I x B))^-1 (t x I), t = -T 1,
// and the last column of int P(S > s) exp(B s) ds =
// (alpha x I) (-(T x I + I x B))^-1 (1 x I).
func phKronecker(B *mat.Dense, alpha []float64, T [][]float64) (*mat.Dense, []float64) {
	n, _ := B.Dims()
	p := len(alpha)
	G := mat.NewDense(p*n, p*n, nil)
	rhs := mat.NewDense(p*n, n+1, nil)
	for a := 0; a < p; a++ {
		exit := 0.0
		for b := 0; b < p; b++ {
			exit -= T[a][b]
			for i := 0; i < n; i++ {
				G.Set(a*n+i, b*n+i, G.At(a*n+i, b*n+i)-T[a][b])
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				G.Set(a*n+i, a*n+j, G.At(a*n+i, a*n+j)-B.At(i, j))
			}
			rhs.Set(a*n+i, i, exit)
		}
		rhs.Set(a*n+n-1, n, 1)
	}
	var X mat.Dense
	if err := X.Solve(G, rhs); err != nil {
		return nil, nil
	}
	M := mat.NewDense(n, n, nil)
	top := make([]float64, n)
	mass := 0.0
	for a, w := range alpha {
		mass += w
		M.Add(M, scaled(w, mat.DenseCopyOf(X.Slice(a*n, (a+1)*n, 0, n))))
		for i := 0; i < n; i++ {
			top[i] += w * X.At(a*n+i, n)
		}
	}
	for i := 0; i < n; i++ {
		M.Set(i, i, M.At(i, i)+1-mass)
	}
	return M, top
}

// -------------------------------------------------------------- uniformization

// uniform is M = sum_k w_k P^k, P = I + B/Lambda, w_k = P(Poisson(Lambda S) = k).
type uniform struct {
	w      []float64
	Lambda float64
	dist   service.Distribution
	fine   int
	miss   float64
	tail   float64
}

// build also returns the last column of int P(S > s) exp(B s) ds =
// sum_k P(Poisson(Lambda S) > k)/Lambda P^k, the tail sums taken from the top.
func (u *uniform) build(B *mat.Dense) (*mat.Dense, []float64) {
	n, _ := B.Dims()
	stay := make([]float64, n) // P[e][e]
	up := make([]float64, n)   // P[e][e+1]
	for e := 0; e < n; e++ {
		stay[e] = 1 + B.At(e, e)/u.Lambda
		if e+1 < n {
			up[e] = B.At(e, e+1) / u.Lambda
		}
	}
	V := make([][]float64, n) // V = P^k, upper triangular
	M := make([][]float64, n)
	for j := range V {
		V[j] = make([]float64, n)
		V[j][j] = 1
		M[j] = make([]float64, n)
	}
	tail := make([]float64, len(u.w)) // P(Poisson(Lambda S) > k), within the kept weights
	acc := 0.0
	for k := len(u.w) - 1; k >= 0; k-- {
		tail[k] = acc
		acc += u.w[k]
	}
	top := make([]float64, n)
	for k, w := range u.w {
		if k > 0 {
			for j := 0; j < n; j++ {
				row := V[j]
				for e := n - 1; e > j; e-- {
					row[e] = row[e]*stay[e] + row[e-1]*up[e-1]
				}
				row[j] *= stay[j]
			}
		}
		for j := 0; j < n; j++ {
			for e := j; e < n; e++ {
				M[j][e] += w * V[j][e]
			}
			top[j] += tail[k] / u.Lambda * V[j][n-1]
		}
	}
	out := mat.NewDense(n, n, nil)
	for j := range M {
		out.SetRow(j, M[j])
	}
	return out, top
}

// poissonWeights returns w_k = P(Poisson(Lambda S) = k) for k = 0, 1, ... up
// to where the remaining mass is below tail (or k reaches 2e6), and what the
// left-out weights carry: the larger of their mass and Lambda times the
// service time in them (the arrivals the truncated sum misses, at most). Atoms give exact Poisson probabilities; a density is
// integrated by 16-point Gauss-Legendre on 8 panels (16 when fine) over
// [k - 12 sqrt(k+1) - 12, k + 12 sqrt(k+1) + 45]/Lambda, outside which the
// Poisson weight, a Gamma(k+1) density in Lambda s, is below e^-45 of its
// mass.
func poissonWeights(dist service.Distribution, Lambda float64, fine int, tail float64) ([]float64, float64, error) {
	pmf := func(k int, x float64) float64 {
		if x <= 0 {
			if k == 0 {
				return 1
			}
			return 0
		}
		lg, _ := math.Lgamma(float64(k + 1))
		return math.Exp(float64(k)*math.Log(x) - x - lg)
	}
	var weight func(k int) float64
	done := func(k int, sum float64) bool { return 1-sum < tail && float64(k) > Lambda*dist.Mean() }
	if pts, probs, ok := service.Atoms(dist); ok {
		weight = func(k int) float64 {
			s := 0.0
			for i, p := range pts {
				s += probs[i] * pmf(k, Lambda*p)
			}
			return s
		}
	} else if pdf, surv, ok := service.Density(dist); ok {
		// Stop where the law has less than tail beyond the lowest point of
		// the next window.
		done = func(k int, _ float64) bool {
			sk := math.Sqrt(float64(k + 1))
			return float64(k) > Lambda*dist.Mean() && surv(math.Max(0, float64(k+1)-12*sk-12)/Lambda) < tail
		}
		const nodes = 16
		xs, ws := make([]float64, nodes), make([]float64, nodes)
		unit := dist.Mean() / 4 / float64(int(1)<<fine)
		weight = func(k int) float64 {
			sk := math.Sqrt(float64(k + 1))
			lo := math.Max(0, (float64(k)-12*sk-12)/Lambda)
			hi := (float64(k) + 12*sk + 45) / Lambda
			// Panels narrow enough for the Poisson weight (an eighth of the
			// window) and for the density (a quarter of the mean, plus 5% of
			// the distance from 0: the laws vary on the scale of s there).
			s := 0.0
			for a := lo; a < hi; {
				b := math.Min(hi, a+math.Min((hi-lo)/float64(int(8)<<fine), unit+a/float64(int(20)<<fine)))
				quad.Legendre{}.FixedLocations(xs, ws, a, b)
				for i, x := range xs {
					s += ws[i] * pmf(k, Lambda*x) * pdf(x)
				}
				a = b
			}
			return s
		}
	} else {
		return nil, 0, fmt.Errorf("cavity: kernel uniformization cannot integrate %s", dist)
	}
	var w []float64
	sum, carried := 0.0, 0.0
	for k := 0; k < 2e6; k++ {
		v := weight(k)
		w = append(w, v)
		sum += v
		carried += v * float64(k+1) / Lambda
		if done(k, sum) {
			break
		}
	}
	// What the left-out weights would carry: E[N+1]/Lambda = E[S] + 1/Lambda
	// over all k, so the service time they leave out is the difference.
	missTime := math.Max(0, dist.Mean()+1/Lambda-carried)
	return w, math.Max(math.Max(0, 1-sum), Lambda*missTime), nil
}
