package graph

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// DenseLimit is the largest N for which Spectrum uses the dense solver.
const DenseLimit = 2000

// DefaultLanczosSteps is the number of Lanczos steps Spectrum uses for graphs
// larger than DenseLimit.
const DefaultLanczosSteps = 80

// SpectrumInfo holds extreme eigenvalues of the adjacency matrix A (A_vv = 1
// for a self-loop).
type SpectrumInfo struct {
	Lambda1   float64 // largest eigenvalue
	Lambda2   float64 // second largest, counted with multiplicity
	LambdaMin float64 // smallest
	Dense     bool    // computed exactly (dense symmetric eigensolver)
	Steps     int     // Lanczos steps per phase (0 if Dense)
}

// Gap returns the spectral gap Lambda1 - Lambda2.
func (s SpectrumInfo) Gap() float64 { return s.Lambda1 - s.Lambda2 }

// Spectrum returns the extreme adjacency eigenvalues of g: exactly with
// AdjacencyEigenvalues when N <= DenseLimit, otherwise with Lanczos
// (SpectrumLanczos with DefaultLanczosSteps).
func Spectrum(g *Graph, rng *rand.Rand) (SpectrumInfo, error) {
	if g.n <= DenseLimit {
		ev, err := AdjacencyEigenvalues(g)
		if err != nil {
			return SpectrumInfo{}, err
		}
		n := len(ev)
		if n < 2 {
			return SpectrumInfo{}, errors.New("graph: Spectrum needs at least 2 vertices")
		}
		return SpectrumInfo{Lambda1: ev[n-1], Lambda2: ev[n-2], LambdaMin: ev[0], Dense: true}, nil
	}
	return SpectrumLanczos(g, DefaultLanczosSteps, rng)
}

// AdjacencyEigenvalues returns all eigenvalues of the adjacency matrix in
// increasing order, from gonum's dense symmetric eigensolver (mat.EigenSym):
// O(N^3) time and 8 N^2 bytes, so limited to N <= 4*DenseLimit. Accurate to
// rounding (about 1e-12 relative to the largest).
func AdjacencyEigenvalues(g *Graph) ([]float64, error) {
	n := g.n
	if n > 4*DenseLimit {
		return nil, fmt.Errorf("graph: AdjacencyEigenvalues: N = %d exceeds %d (use SpectrumLanczos)", n, 4*DenseLimit)
	}
	if n == 0 {
		return nil, nil
	}
	a := mat.NewSymDense(n, nil)
	_ = g.eachEdge(func(u, v int) error {
		a.SetSym(u, v, 1)
		return nil
	})
	var es mat.EigenSym
	if !es.Factorize(a, false) {
		return nil, errors.New("graph: AdjacencyEigenvalues: eigensolver did not converge")
	}
	return es.Values(nil), nil
}

// SpectrumLanczos estimates the extreme adjacency eigenvalues with the Lanczos
// method with full reorthogonalisation, in two phases of at most steps
// matrix-vector products each (cost O(steps*(M + steps*N)) time and
// steps*N*8 bytes).
//
// Phase 1 from a random start gives Lambda1, LambdaMin and the Ritz vector v1.
// Phase 2 runs in the orthogonal complement of v1 (every Lanczos vector is
// re-orthogonalised against it) and its top Ritz value is Lambda2. For a
// regular graph v1 is the constant vector exactly, so phase 1 is only used for
// LambdaMin and the deflation is exact.
//
// Accuracy: Ritz values are lower bounds of Lambda1 and (with exact deflation)
// Lambda2, and upper bounds of LambdaMin; they converge quickly to isolated
// extreme eigenvalues (Lambda1 of a connected graph: to rounding within a few
// dozen steps) and exactly once steps exceeds the number of distinct
// eigenvalues (complete graphs, hypercubes). An eigenvalue at the edge of a
// continuous bulk (Lambda2 of a random regular or Erdos-Renyi graph) converges
// more slowly, roughly like (width of the bulk)/steps^2: with 80 steps it is
// typically 1e-3..1e-2 below the true value. For a non-regular graph the
// error of v1 adds a small error to Lambda2 of the order of the phase-1
// residual. Lanczos finds each distinct eigenvalue once per phase, but
// Lambda2 = Lambda1 (a disconnected regular graph) is still found by phase 2.
func SpectrumLanczos(g *Graph, steps int, rng *rand.Rand) (SpectrumInfo, error) {
	n := g.n
	if n < 2 {
		return SpectrumInfo{}, errors.New("graph: SpectrumLanczos needs at least 2 vertices")
	}
	if steps < 2 {
		return SpectrumInfo{}, fmt.Errorf("graph: SpectrumLanczos: steps = %d out of range [2, N]", steps)
	}
	steps = min(steps, n)
	regular := isRegular(g)
	var v1 []float64
	if regular {
		v1 = make([]float64, n)
		for i := range v1 {
			v1[i] = 1 / math.Sqrt(float64(n))
		}
	}
	theta1, y1, q1 := lanczos(g, steps, nil, rng, !regular)
	info := SpectrumInfo{Lambda1: theta1[len(theta1)-1], LambdaMin: theta1[0], Steps: steps}
	if !regular {
		// Ritz vector of the largest Ritz value.
		v1 = make([]float64, n)
		k := len(theta1) - 1
		for j, q := range q1 {
			c := y1.At(j, k)
			for i := range v1 {
				v1[i] += c * q[i]
			}
		}
		normalize(v1)
	} else {
		info.Lambda1 = float64(g.Degree(0))
	}
	theta2, _, _ := lanczos(g, min(steps, n-1), v1, rng, false)
	info.Lambda2 = theta2[len(theta2)-1]
	return info, nil
}

func isRegular(g *Graph) bool {
	if g.complete {
		return true
	}
	if g.loops > 0 {
		return false
	}
	d := g.Degree(0)
	for v := 1; v < g.n; v++ {
		if g.Degree(v) != d {
			return false
		}
	}
	return true
}

// mulA sets y = A x.
func mulA(g *Graph, x, y []float64) {
	if g.complete {
		var s float64
		for _, v := range x {
			s += v
		}
		for i, v := range x {
			y[i] = s - v
		}
		return
	}
	for v := 0; v < g.n; v++ {
		var s float64
		for _, w := range g.Neighbors(v) {
			s += x[w]
		}
		y[v] = s
	}
}

func vdot(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

func normalize(x []float64) float64 {
	nrm := math.Sqrt(vdot(x, x))
	if nrm > 0 {
		for i := range x {
			x[i] /= nrm
		}
	}
	return nrm
}

// lanczos runs up to steps Lanczos steps with full reorthogonalisation in the
// orthogonal complement of defl (if not nil, unit norm), from a random start.
// It returns the Ritz values (increasing), and if vectors is set the
// eigenvectors of the tridiagonal matrix and the Lanczos basis.
func lanczos(g *Graph, steps int, defl []float64, rng *rand.Rand, vectors bool) ([]float64, *mat.Dense, [][]float64) {
	n := g.n
	project := func(x []float64) {
		if defl != nil {
			axpy(-vdot(defl, x), defl, x)
		}
	}
	q := make([]float64, n)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	project(q)
	normalize(q)
	var Q [][]float64
	var alpha, beta []float64
	w := make([]float64, n)
	for j := 0; j < steps; j++ {
		Q = append(Q, q)
		mulA(g, q, w)
		a := vdot(q, w)
		alpha = append(alpha, a)
		// Full reorthogonalisation (twice is enough), which also removes
		// the three-term recurrence terms.
		for pass := 0; pass < 2; pass++ {
			project(w)
			for _, p := range Q {
				axpy(-vdot(p, w), p, w)
			}
		}
		b := math.Sqrt(vdot(w, w))
		if j == steps-1 || b < 1e-10*math.Max(1, math.Abs(a)) {
			break
		}
		beta = append(beta, b)
		next := w
		for i := range next {
			next[i] /= b
		}
		q, w = next, make([]float64, n)
	}
	m := len(alpha)
	t := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		t.SetSym(i, i, alpha[i])
		if i+1 < m {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var es mat.EigenSym
	es.Factorize(t, vectors)
	vals := es.Values(nil)
	if !vectors {
		return vals, nil, nil
	}
	var y mat.Dense
	es.VectorsTo(&y)
	return vals, &y, Q
}
