package exact

import (
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// anderson is Anderson acceleration (type II, Walker and Ni 2011) of a
// fixed-point iteration x <- g(x) on probability vectors.
//
// With residuals f_i = g(x_i) - x_i, it keeps the differences dF and dG of the
// last m residuals and images, finds gamma minimizing ||f_k - dF gamma||_2 and
// moves to x_{k+1} = g(x_k) - dG gamma. For a linear iteration this is
// equivalent to GMRES. A combination with a negative entry is rejected in
// favour of g(x_k), which keeps every iterate a probability vector.
type anderson struct {
	m          int
	dF, dG     [][]float64 // oldest first; at most m columns
	spare      [][]float64 // recycled columns
	fPrev      []float64
	gPrev      []float64
	fCur       []float64
	have       bool
	accepted   int // accelerated steps taken
	rejections int // accelerated steps rejected for a negative entry
}

func newAnderson(m, n int) *anderson {
	a := &anderson{m: m}
	if m > 0 {
		a.fPrev, a.gPrev, a.fCur = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	return a
}

func (a *anderson) column(n int) []float64 {
	if k := len(a.spare); k > 0 {
		c := a.spare[k-1]
		a.spare = a.spare[:k-1]
		return c
	}
	return make([]float64, n)
}

// step replaces x, the current iterate, by the next one given g = g(x). Both
// are normalized probability vectors, and so is the result.
func (a *anderson) step(x, g []float64) {
	if a.m == 0 {
		copy(x, g)
		return
	}
	floats.SubTo(a.fCur, g, x)
	if a.have {
		if len(a.dF) == a.m {
			a.spare = append(a.spare, a.dF[0], a.dG[0])
			a.dF, a.dG = a.dF[1:], a.dG[1:]
		}
		df, dg := a.column(len(x)), a.column(len(x))
		floats.SubTo(df, a.fCur, a.fPrev)
		floats.SubTo(dg, g, a.gPrev)
		a.dF, a.dG = append(a.dF, df), append(a.dG, dg)
	}
	copy(a.fPrev, a.fCur)
	copy(a.gPrev, g)
	a.have = true
	copy(x, g)
	k := len(a.dF)
	if k == 0 {
		return
	}

	// Normal equations (dF^T dF) gamma = dF^T f, slightly regularized: the
	// columns become nearly dependent as the iteration converges.
	gram := mat.NewSymDense(k, nil)
	rhs := mat.NewVecDense(k, nil)
	trace := 0.0
	for i := range k {
		for j := i; j < k; j++ {
			gram.SetSym(i, j, floats.Dot(a.dF[i], a.dF[j]))
		}
		rhs.SetVec(i, floats.Dot(a.dF[i], a.fCur))
		trace += gram.At(i, i)
	}
	if !(trace > 0) {
		return
	}
	for i := range k {
		gram.SetSym(i, i, gram.At(i, i)+1e-12*trace/float64(k))
	}
	var chol mat.Cholesky
	var gamma mat.VecDense
	if !chol.Factorize(gram) || chol.SolveVecTo(&gamma, rhs) != nil {
		a.reset()
		return
	}
	for i := range k {
		floats.AddScaled(x, -gamma.AtVec(i), a.dG[i])
	}
	for _, v := range x {
		if !(v >= 0) { // negative or NaN
			copy(x, g)
			a.rejections++
			return
		}
	}
	s := floats.Sum(x)
	if !(s > 0) {
		copy(x, g)
		a.rejections++
		return
	}
	floats.Scale(1/s, x)
	a.accepted++
}

// reset forgets the history.
func (a *anderson) reset() {
	a.spare = append(a.spare, a.dF...)
	a.spare = append(a.spare, a.dG...)
	a.dF, a.dG = a.dF[:0], a.dG[:0]
}
