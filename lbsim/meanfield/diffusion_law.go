package meanfield

import (
	"context"
	"fmt"
	"math"
)

// The stationary law of the Eschenfeldt-Gamarnik diffusion (see
// diffusion.go) by a deterministic method: the Markov-chain approximation of
// Kushner and Dupuis. The generator
//
//	L f = f_11 + (-beta - x_1 + x_2) f_1 - x_2 f_2   on x_1 < 0 < x_2,
//	f_2 - f_1 = 0 on x_1 = 0   (reflection in the direction (-1, +1)),
//
// is discretised on the lattice x_1 = -i h (i = 0..M1), x_2 = j h (j =
// 0..M2) by a continuous-time chain whose local drift and variance match
// the diffusion's: from (i, j),
//
//	to (i-1, j) at rate 1/h^2 + b/(2h),  to (i+1, j) at rate 1/h^2 - b/(2h),
//	to (i, j-1) at rate j,              b = -beta + i h + j h,
//
// (upwind rates 1/h^2 + max(+-b, 0)/h where a central rate would be
// negative, far in the tail), and the move of x_1 above 0 from i = 0 is
// reflected to (0, j+1): the boundary pushes x_2 up by what it takes from
// x_1. The box truncates at i = M1 (no move to M1+1) and j = M2 (no push
// from (0, M2)). The drift of x_1 + x_2 is -beta - x_1 in every state away
// from the truncation, so the chain has E[x_1] = -beta exactly up to the
// truncated mass, as the diffusion does: a check of the solver, not of the
// discretisation.
//
// Solution. The only move to a higher j is the push from (0, j), so the
// levels j form a chain whose upward blocks have rank one and the
// stationary vector pi_j of level j is pi_{j-1}(0) v_j for a vector v_j that
// linear level reduction finds from the top down: pi_{M2} A_{M2} = -c e_0,
// and pi_j (A_j + (j+1) e_0 v_{j+1}^T) = -c e_0 below, with A_j the
// tridiagonal block of level j and c = pi_{j-1}(0) times the push rate.
// Each level costs two tridiagonal solves (Thomas; the blocks are
// diagonally dominant M-matrices, so no pivoting is needed) and a
// Sherman-Morrison correction for the rank-one row: O(M1 M2) in all, 0.1 s
// for four million states. Every quantity in the recursion is nonnegative.
//
// The discretisation error of means and distribution functions is O(h)
// (measured: see JSQDiffusionLawExtrapolated), removed by Richardson
// extrapolation in h.

// DiffusionLawOptions configures JSQDiffusionLaw.
type DiffusionLawOptions struct {
	// Beta > 0 is the Halfin-Whitt spare-capacity parameter.
	Beta float64
	// H > 0 is the lattice spacing; L1 and L2 (multiples of H, rounded) the
	// box -L1 <= Qbar_1 <= 0, 0 <= Qbar_2 <= L2. The lattice has
	// (L1/H + 1)(L2/H + 1) states, at most MaxDiffusionLawStates.
	H, L1, L2 float64
}

// MaxDiffusionLawStates bounds the lattice of JSQDiffusionLaw (about 24
// bytes per state).
const MaxDiffusionLawStates = 1 << 24

// DiffusionLaw is the stationary law of the lattice chain of JSQDiffusionLaw.
type DiffusionLaw struct {
	Beta, H float64
	// M1 and M2 are the largest lattice indices: Qbar_1 = -i H for i =
	// 0..M1, Qbar_2 = j H for j = 0..M2.
	M1, M2 int
	// P1[i] = P(Qbar_1 = -i H) and P2[j] = P(Qbar_2 = j H), the marginals.
	P1, P2 []float64
	// Mean1, Mean2 are E[Qbar_1], E[Qbar_2]; Var1, Var2 the variances and
	// Cov12 the covariance.
	Mean1, Mean2, Var1, Var2, Cov12 float64
	// EdgeMass is the probability of the outermost lattice lines i = M1 and
	// j = M2, where the truncation acts.
	EdgeMass float64
	// Residual is max over states of |(pi Q)(s)| / (pi(s) q(s)), pi Q the
	// balance equations and q(s) the total rate out of s, over the states
	// with pi(s) > 1e-250: the relative error of the linear algebra.
	Residual float64
}

// JSQDiffusionLaw computes the stationary law of the lattice-chain
// approximation of the JSQ diffusion at spacing opt.H on the box [-L1, 0] x
// [0, L2]. It polls ctx once per level.
func JSQDiffusionLaw(ctx context.Context, opt DiffusionLawOptions) (*DiffusionLaw, error) {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case bad(opt.Beta) || opt.Beta <= 0 || opt.Beta > 100:
		return nil, fmt.Errorf("meanfield: beta = %v must be in (0, 100]", opt.Beta)
	case bad(opt.H) || opt.H <= 0 || opt.H > 1:
		return nil, fmt.Errorf("meanfield: h = %v must be in (0, 1]", opt.H)
	case bad(opt.L1) || opt.L1 < 2*opt.H || opt.L1 > 1e4:
		return nil, fmt.Errorf("meanfield: l1 = %v must be in [2h, 1e4] (h = %v)", opt.L1, opt.H)
	case bad(opt.L2) || opt.L2 < 2*opt.H || opt.L2 > 1e4:
		return nil, fmt.Errorf("meanfield: l2 = %v must be in [2h, 1e4] (h = %v)", opt.L2, opt.H)
	}
	h, beta := opt.H, opt.Beta
	m1, m2 := int(math.Round(opt.L1/h)), int(math.Round(opt.L2/h))
	if s := float64(m1+1) * float64(m2+1); s > MaxDiffusionLawStates {
		return nil, fmt.Errorf("meanfield: h = %v gives %.3g lattice states on the box (%v, %v): at most %d",
			h, s, opt.L1, opt.L2, MaxDiffusionLawStates)
	}
	n := m1 + 1
	// up(i, j) is the rate of x_1 += h (to i-1, or the push from i = 0),
	// down(i, j) that of x_1 -= h (to i+1).
	rates := func(i, j int) (up, down float64) {
		b := -beta + float64(i+j)*h
		d := 1 / (h * h)
		up, down = d+b/(2*h), d-b/(2*h)
		if up < 0 || down < 0 {
			up, down = d+math.Max(b, 0)/h, d+math.Max(-b, 0)/h
		}
		return up, down
	}
	// Level block A_j as a tridiagonal matrix: sub[i] = A[i][i-1], diag[i],
	// sup[i] = A[i][i+1].
	sub, diag, sup := make([]float64, n), make([]float64, n), make([]float64, n)
	level := func(j int) {
		for i := range n {
			up, down := rates(i, j)
			out := float64(j) // x_2 -= h at rate j
			sub[i], sup[i] = 0, 0
			if i > 0 {
				sub[i] = up
				out += up
			} else if j < m2 {
				out += up // the push to (0, j+1) leaves the level
			}
			if i < m1 {
				sup[i] = down
				out += down
			}
			diag[i] = -out
		}
	}
	v := make([][]float64, m2+1) // pi_j = pi_{j-1}(0) v_j, j >= 1
	work := newTriWork(n)
	g, w := make([]float64, n), make([]float64, n)
	for j := m2; j >= 0; j-- {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		level(j)
		// Row system x B = rhs with B = A_j + e_0 w^T: B^T x = rhs, B^T =
		// A_j^T + w e_0^T.
		clear(w)
		if j < m2 {
			for i, x := range v[j+1] {
				w[i] = float64(j+1) * x
			}
		}
		clear(g)
		if j > 0 {
			up, _ := rates(0, j-1)
			g[0] = -up
		}
		x := make([]float64, n)
		if j > 0 {
			// y = A^-T g, z = A^-T w, x = y - z y_0/(1 + z_0).
			y := work.solveT(sub, diag, sup, g, make([]float64, n))
			if j < m2 {
				z := work.solveT(sub, diag, sup, w, make([]float64, n))
				f := y[0] / (1 + z[0])
				for i := range x {
					x[i] = y[i] - f*z[i]
				}
			} else {
				copy(x, y)
			}
		} else {
			// Level 0: pi_0 B_0 = 0 with pi_0(0) = 1, i.e. A_0^T pi_0 = -w.
			for i := range g {
				g[i] = -w[i]
			}
			work.solveT(sub, diag, sup, g, x)
		}
		v[j] = x
	}
	// pi_0 = v[0] (scaled to pi_0(0) = 1), pi_j = pi_{j-1}(0) v_j, kept as
	// pi_j = exp(logA[j]) u_j with u_j = v_j / max(v_j) so that long boxes
	// neither overflow nor underflow before the normalisation.
	logA := make([]float64, m2+1)
	for j := range v {
		top := 0.0
		for _, x := range v[j] {
			top = math.Max(top, x)
		}
		if !(top > 0) || math.IsInf(top, 0) {
			return nil, fmt.Errorf("meanfield: the lattice chain at beta = %v, h = %v on the box (%v, %v) has no positive stationary vector (level %d): enlarge l1",
				beta, h, opt.L1, opt.L2, j)
		}
		for i := range v[j] {
			v[j][i] /= top
		}
		logA[j] = math.Log(top)
		if j > 0 {
			logA[j] += logA[j-1] + math.Log(v[j-1][0])
		}
	}
	maxLog := math.Inf(-1)
	for _, a := range logA {
		maxLog = math.Max(maxLog, a)
	}
	total := 0.0
	for j := range v {
		s := math.Exp(logA[j] - maxLog)
		for i := range v[j] {
			v[j][i] *= s
			total += v[j][i]
		}
	}
	law := &DiffusionLaw{Beta: beta, H: h, M1: m1, M2: m2, P1: make([]float64, n), P2: make([]float64, m2+1)}
	for j := range v {
		for i := range v[j] {
			v[j][i] /= total
			p := v[j][i]
			law.P1[i] += p
			law.P2[j] += p
			x1, x2 := -float64(i)*h, float64(j)*h
			law.Mean1 += p * x1
			law.Mean2 += p * x2
			if i == m1 || j == m2 {
				law.EdgeMass += p
			}
		}
	}
	for j := range v {
		for i, p := range v[j] {
			d1, d2 := -float64(i)*h-law.Mean1, float64(j)*h-law.Mean2
			law.Var1 += p * d1 * d1
			law.Var2 += p * d2 * d2
			law.Cov12 += p * d1 * d2
		}
	}
	// The residual of the balance equations, state by state.
	for j := 0; j <= m2; j++ {
		level(j)
		for i := range n {
			p := v[j][i]
			if p <= 1e-250 {
				continue
			}
			in := 0.0
			if i > 0 {
				in += v[j][i-1] * sup[i-1]
			}
			if i < m1 {
				in += v[j][i+1] * sub[i+1]
			}
			if j < m2 {
				in += v[j+1][i] * float64(j+1)
			}
			if i == 0 && j > 0 {
				up, _ := rates(0, j-1)
				in += v[j-1][0] * up
			}
			out := -diag[i] * p
			law.Residual = math.Max(law.Residual, math.Abs(in-out)/out)
		}
	}
	return law, nil
}

// triWork holds the scratch of the Thomas algorithm.
type triWork struct{ c []float64 }

func newTriWork(n int) *triWork { return &triWork{c: make([]float64, n)} }

// solveT solves A^T x = r for the tridiagonal A given by sub[i] = A[i][i-1],
// diag[i] = A[i][i], sup[i] = A[i][i+1], writing x and returning it. A^T has
// A[i-1][i] = sup[i-1] below the diagonal and A[i+1][i] = sub[i+1] above it.
func (t *triWork) solveT(sub, diag, sup, r, x []float64) []float64 {
	n := len(diag)
	c := t.c
	// Row i of A^T: sup[i-1] x[i-1] + diag[i] x[i] + sub[i+1] x[i+1] = r[i].
	upper := func(i int) float64 {
		if i+1 < n {
			return sub[i+1]
		}
		return 0
	}
	c[0] = upper(0) / diag[0]
	x[0] = r[0] / diag[0]
	for i := 1; i < n; i++ {
		m := diag[i] - sup[i-1]*c[i-1]
		c[i] = upper(i) / m
		x[i] = (r[i] - sup[i-1]*x[i-1]) / m
	}
	for i := n - 2; i >= 0; i-- {
		x[i] -= c[i] * x[i+1]
	}
	return x
}

// CDF1 returns P(Qbar_1 <= x) of the lattice law with the atoms split at
// their lattice points (half of P1[i] below -i H), interpolated linearly
// between lattice points; 1 at x >= 0 and 0 below the box.
func (l *DiffusionLaw) CDF1(x float64) float64 {
	if x >= 0 {
		return 1
	}
	// F at -i H: sum_{m > i} P1[m] + P1[i]/2; G(i) = 1 - F.
	u := -x / l.H
	i := int(math.Floor(u))
	if i >= l.M1 {
		return 0
	}
	// halfMass(P1, i) is P(Qbar_1 > -i H) + P1[i]/2 = 1 - F(-i H).
	f := u - float64(i)
	return 1 - ((1-f)*halfMass(l.P1, i) + f*halfMass(l.P1, i+1))
}

// CDF2 returns P(Qbar_2 <= x) of the lattice law, with the same convention
// as CDF1: 0 at x <= 0 and 1 above the box.
func (l *DiffusionLaw) CDF2(x float64) float64 {
	if x <= 0 {
		return 0
	}
	u := x / l.H
	j := int(math.Floor(u))
	if j >= l.M2 {
		return 1
	}
	f := u - float64(j)
	return (1-f)*halfMass(l.P2, j) + f*halfMass(l.P2, j+1)
}

// halfMass is p[0] + ... + p[i-1] + p[i]/2 (0 at i = 0): the lattice law's
// mass below its i-th point, the point's own mass split in half, which
// interpolated linearly between points gives CDF1 and CDF2.
func halfMass(p []float64, i int) float64 {
	if i == 0 {
		return 0
	}
	s := p[i] / 2
	for m := 0; m < i; m++ {
		s += p[m]
	}
	return s
}
