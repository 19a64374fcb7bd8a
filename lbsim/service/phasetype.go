package service

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// PhaseType is the phase-type law PH(alpha, T), taken as it is: the time to
// absorption of the continuous-time Markov chain on phases 0..n-1 plus an
// absorbing state, started in phase i with probability alpha[i] (and absorbed
// at once, S = 0, with the remaining probability 1 - sum(alpha)), moving from
// i to j != i at rate T[i][j] and absorbed at rate -sum_j T[i][j].
//
// Requirements: alpha[i] >= 0 with 0 < sum(alpha) <= 1; T square n x n with
// T[i][i] < 0, T[i][j] >= 0 for i != j, row sums <= 0, and -T nonsingular
// (absorption reachable from every phase, so the mean is finite).
//
// E[S] = alpha (-T)^-1 1 and E[S^2] = 2 alpha (-T)^-2 1 (computed with
// gonum/mat). Sample simulates the chain. The hazard class is recognised for
// an exponential (one phase: constant), a hyperexponential (T diagonal:
// decreasing) and a hypoexponential / generalised Erlang series (alpha = e_0,
// each phase moving only to the next, the last one only absorbing:
// increasing); otherwise it is reported as neither.
func PhaseType(alpha []float64, T [][]float64) (Distribution, error) {
	return newPhaseType(alpha, T, 0)
}

// PhaseTypeWithMean is PhaseType(alpha, T) with T rescaled (the time axis
// stretched) so that the mean is the given one; the shape (SCV) is unchanged.
func PhaseTypeWithMean(alpha []float64, T [][]float64, mean float64) (Distribution, error) {
	if err := checkMean("phasetype", mean); err != nil {
		return nil, err
	}
	return newPhaseType(alpha, T, mean)
}

type phaseType struct {
	n       int
	alpha   []float64 // initial probabilities
	t       *mat.Dense
	initCum []float64 // cumulative alpha
	hold    []float64 // mean holding time 1/(-T[i][i])
	next    []float64 // row i: cumulative jump probabilities to 0..n-1, then absorption (n+1 per row)
	mean    float64
	m2      float64
	hazard  HazardClass
}

func newPhaseType(alpha []float64, T [][]float64, mean float64) (*phaseType, error) {
	const law = "phasetype"
	n := len(alpha)
	if n == 0 || n > maxPhases {
		return nil, paramError(law, "len(alpha)", n, fmt.Sprintf("between 1 and %d", maxPhases))
	}
	if len(T) != n {
		return nil, paramError(law, "len(T)", len(T), fmt.Sprintf("len(alpha) = %d (T must be n x n)", n))
	}
	sum := 0.0
	for i, a := range alpha {
		if !(a >= 0) || !finite(a) {
			return nil, paramError(law, fmt.Sprintf("alpha[%d]", i), a, "a finite number >= 0")
		}
		sum += a
	}
	if !(sum > 0) || sum > 1+1e-9 {
		return nil, paramError(law, "sum(alpha)", sum, "in (0, 1]")
	}
	for i, row := range T {
		if len(row) != n {
			return nil, paramError(law, fmt.Sprintf("len(T[%d])", i), len(row), fmt.Sprintf("%d (T must be n x n)", n))
		}
		rs := 0.0
		for j, v := range row {
			if !finite(v) {
				return nil, paramError(law, fmt.Sprintf("T[%d][%d]", i, j), v, "finite")
			}
			if i == j && !(v < 0) {
				return nil, paramError(law, fmt.Sprintf("T[%d][%d]", i, j), v, "< 0 (diagonal)")
			}
			if i != j && !(v >= 0) {
				return nil, paramError(law, fmt.Sprintf("T[%d][%d]", i, j), v, ">= 0 (off-diagonal)")
			}
			rs += v
		}
		if rs > 1e-12*-row[i] {
			return nil, paramError(law, fmt.Sprintf("row sum of T[%d]", i), rs, "<= 0")
		}
	}
	scale := 1.0
	p := &phaseType{n: n, alpha: make([]float64, n), t: mat.NewDense(n, n, nil)}
	for i := range T {
		for j, v := range T[i] {
			p.t.Set(i, j, v)
		}
	}
	copy(p.alpha, alpha)
	if sum > 1 {
		for i := range p.alpha {
			p.alpha[i] /= sum
		}
	}
	m, m2, err := phMoments(p.alpha, p.t)
	if err != nil {
		return nil, err
	}
	if mean > 0 {
		// Multiplying T by c divides S by c.
		scale = m / mean
		p.t.Scale(scale, p.t)
		m, m2 = mean, m2/(scale*scale)
	}
	p.mean, p.m2 = m, m2

	p.initCum = make([]float64, n)
	c := 0.0
	for i, a := range p.alpha {
		c += a
		p.initCum[i] = c
	}
	p.hold = make([]float64, n)
	p.next = make([]float64, n*(n+1))
	for i := 0; i < n; i++ {
		rate := -p.t.At(i, i)
		p.hold[i] = 1 / rate
		row := p.next[i*(n+1) : (i+1)*(n+1)]
		c := 0.0
		for j := 0; j < n; j++ {
			if j != i {
				c += p.t.At(i, j) / rate
			}
			row[j] = math.Min(c, 1)
		}
		row[n] = 1
		exit := 0.0
		for j := 0; j < n; j++ {
			exit -= p.t.At(i, j)
		}
		if exit <= 0 {
			// No absorption from i: make the last possible move certain, so
			// rounding never absorbs.
			last := -1
			for j := 0; j < n; j++ {
				if j != i && p.t.At(i, j) > 0 {
					last = j
				}
			}
			for j := last; j >= 0 && j < n; j++ {
				row[j] = 1
			}
		}
	}
	p.hazard = phHazard(p.alpha, p.t)
	return p, nil
}

// phMoments returns alpha (-T)^-1 1 and 2 alpha (-T)^-2 1.
func phMoments(alpha []float64, t *mat.Dense) (m1, m2 float64, err error) {
	n := len(alpha)
	var negT mat.Dense
	negT.Scale(-1, t)
	var lu mat.LU
	lu.Factorize(&negT)
	if c := lu.Cond(); !(c < 1e12) {
		return 0, 0, fmt.Errorf("service: phasetype: -T has condition number %g: must be nonsingular (absorption reachable from every phase)", c)
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	x := mat.NewVecDense(n, nil)
	if err := lu.SolveVecTo(x, false, mat.NewVecDense(n, ones)); err != nil {
		return 0, 0, fmt.Errorf("service: phasetype: solving (-T) x = 1: %v", err)
	}
	y := mat.NewVecDense(n, nil)
	if err := lu.SolveVecTo(y, false, x); err != nil {
		return 0, 0, fmt.Errorf("service: phasetype: solving (-T) y = x: %v", err)
	}
	a := mat.NewVecDense(n, append([]float64(nil), alpha...))
	m1 = mat.Dot(a, x)
	m2 = 2 * mat.Dot(a, y)
	if !(m1 > 0) || !finite(m1) || !(m2 > 0) || !finite(m2) {
		return 0, 0, fmt.Errorf("service: phasetype: moments E[S] = %g, E[S^2] = %g: must be finite and > 0 (is T a sub-generator with reachable absorption?)", m1, m2)
	}
	return m1, m2, nil
}

func phHazard(alpha []float64, t *mat.Dense) HazardClass {
	n := len(alpha)
	sum := 0.0
	for _, a := range alpha {
		sum += a
	}
	if math.Abs(sum-1) > 1e-12 {
		return HazardNeither // atom at zero
	}
	diagonal := true
	for i := 0; i < n && diagonal; i++ {
		for j := 0; j < n; j++ {
			if i != j && t.At(i, j) != 0 {
				diagonal = false
				break
			}
		}
	}
	if diagonal {
		// Mixture of exponentials: constant if all used rates are equal.
		first := 0.0
		for i, a := range alpha {
			if a == 0 {
				continue
			}
			if first == 0 {
				first = t.At(i, i)
			} else if t.At(i, i) != first {
				return HazardDecreasing
			}
		}
		return HazardConstant
	}
	// Series of exponential phases 0 -> 1 -> ... -> n-1 -> absorbed.
	if alpha[0] != 1 {
		return HazardNeither
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := t.At(i, j)
			switch {
			case i == j:
			case j == i+1:
				if v != -t.At(i, i) {
					return HazardNeither
				}
			default:
				if v != 0 {
					return HazardNeither
				}
			}
		}
	}
	return HazardIncreasing
}

// Sample simulates the chain: no allocation, a linear scan per jump.
func (p *phaseType) Sample(r *rand.Rand) float64 {
	n := p.n
	u := r.Float64()
	i := 0
	for i < n && u >= p.initCum[i] {
		i++
	}
	if i == n {
		return 0 // absorbed at once (the atom 1 - sum(alpha))
	}
	s := 0.0
	for {
		s += p.hold[i] * r.ExpFloat64()
		row := p.next[i*(n+1) : (i+1)*(n+1)]
		u := r.Float64()
		j := 0
		for j < n && u >= row[j] {
			j++
		}
		if j == n {
			return s
		}
		i = j
	}
}
func (p *phaseType) Mean() float64         { return p.mean }
func (p *phaseType) SecondMoment() float64 { return p.m2 }
func (p *phaseType) Hazard() HazardClass   { return p.hazard }
func (p *phaseType) String() string {
	return fmt.Sprintf("phasetype(n=%d,mean=%g)", p.n, p.mean)
}
