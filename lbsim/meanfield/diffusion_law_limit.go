package meanfield

import (
	"context"
	"fmt"
	"math"
)

// DiffusionLimitOptions configures JSQDiffusionLawLimit.
type DiffusionLimitOptions struct {
	// Beta > 0 is the Halfin-Whitt spare-capacity parameter.
	Beta float64
	// H0 is the coarsest lattice spacing (default 0.1) and Levels >= 2 the
	// number of spacings H0, H0/2, ..., H0/2^(Levels-1) (default 4).
	H0     float64
	Levels int
	// L1, L2 give the box (defaults DefaultDiffusionBox(Beta)).
	L1, L2 float64
	// Points1 (<= 0) and Points2 (>= 0) are where the distribution
	// functions of Qbar_1 and Qbar_2 are evaluated.
	Points1, Points2 []float64
}

// DefaultDiffusionBox is the default truncation of JSQDiffusionLawLimit:
// Qbar_1 >= -(beta + 10) (the law of Qbar_1 has a Gaussian tail of variance
// below 1 around -beta) and Qbar_2 <= max(25, 30/beta^2) (its tail is
// exponential, Banerjee and Mukherjee 2019, and heavier for small beta:
// E[Qbar_2] = 2.76 at beta = 0.5, 0.814 at 1, 0.078 at 2).
func DefaultDiffusionBox(beta float64) (l1, l2 float64) {
	return beta + 10, math.Max(25, 30/(beta*beta))
}

// DiffusionLawLimit is the stationary law of the JSQ diffusion from the
// lattice chains of JSQDiffusionLaw extrapolated to h = 0. Each Estimate's
// Numerical error is the discretisation error (the change of the
// extrapolate when the finest spacing is dropped and one order fewer is
// removed) plus the truncation error (the change at the coarsest spacing
// when the box grows by half in each direction); SE is 0.
type DiffusionLawLimit struct {
	Beta   float64
	H      []float64 // the spacings, coarsest first
	L1, L2 float64
	// Mean1 = E[Qbar_1] (= -beta in the limit, a sanity identity), Mean2 =
	// E[Qbar_2], Var1, Var2 the variances, Cov12 the covariance. Ito's
	// formula for (Qbar_1 + Qbar_2)^2 and for Qbar_1^2 (U grows only where
	// Qbar_1 = 0) gives the identities of the limit Var1 = 1 - beta Mean2/2
	// and Cov12 = beta Mean2/2, which every lattice also satisfies (to 1e-10,
	// measured): sanity identities.
	Mean1, Mean2, Var1, Var2, Cov12 Estimate
	// CDF1[k] = P(Qbar_1 <= Points1[k]), CDF2[k] = P(Qbar_2 <= Points2[k]).
	Points1, Points2 []float64
	CDF1, CDF2       []Estimate
	// Residual is the largest relative residual of the balance equations
	// over the lattices, EdgeMass the largest probability on the truncated
	// lines.
	Residual, EdgeMass float64
}

// JSQDiffusionLawLimit computes the stationary law of the Eschenfeldt-
// Gamarnik diffusion by Richardson extrapolation in h of the lattice chains
// (orders 1, 2, ..., Levels-1: the expansion of the lattice law is in integer
// powers of h). At beta = 1 with the defaults (about 0.2 s): E[Qbar_2] =
// 0.8140596 with discretisation error 3e-6; with Levels = 5, 0.8140595
// (error 1e-7). The spacings before extrapolation give 0.7540, 0.7833,
// 0.7985, 0.8062, 0.8101 for h = 0.1 ... 0.00625: first order, the
// difference halving with h.
func JSQDiffusionLawLimit(ctx context.Context, opt DiffusionLimitOptions) (*DiffusionLawLimit, error) {
	if opt.H0 == 0 {
		opt.H0 = 0.1
	}
	if opt.Levels == 0 {
		opt.Levels = 4
	}
	if opt.Levels < 2 || opt.Levels > 8 {
		return nil, fmt.Errorf("meanfield: levels = %d must be in [2, 8]", opt.Levels)
	}
	if !(opt.Beta > 0) || opt.Beta > 100 {
		return nil, fmt.Errorf("meanfield: beta = %v must be in (0, 100]", opt.Beta)
	}
	d1, d2 := DefaultDiffusionBox(opt.Beta)
	if opt.L1 == 0 {
		opt.L1 = d1
	}
	if opt.L2 == 0 {
		opt.L2 = d2
	}
	for k, x := range opt.Points1 {
		if math.IsNaN(x) || x > 0 {
			return nil, fmt.Errorf("meanfield: points1[%d] = %v must be <= 0", k, x)
		}
	}
	for k, x := range opt.Points2 {
		if math.IsNaN(x) || x < 0 {
			return nil, fmt.Errorf("meanfield: points2[%d] = %v must be >= 0", k, x)
		}
	}
	// The figures of one lattice law, in a fixed order.
	figures := func(l *DiffusionLaw) []float64 {
		f := []float64{l.Mean1, l.Mean2, l.Var1, l.Var2, l.Cov12}
		for _, x := range opt.Points1 {
			f = append(f, l.CDF1(x))
		}
		for _, x := range opt.Points2 {
			f = append(f, l.CDF2(x))
		}
		return f
	}
	out := &DiffusionLawLimit{Beta: opt.Beta, L1: opt.L1, L2: opt.L2,
		Points1: append([]float64(nil), opt.Points1...), Points2: append([]float64(nil), opt.Points2...)}
	var rows [][]float64
	for k := range opt.Levels {
		h := opt.H0 / float64(int(1)<<k)
		l, err := JSQDiffusionLaw(ctx, DiffusionLawOptions{Beta: opt.Beta, H: h, L1: opt.L1, L2: opt.L2})
		if err != nil {
			return nil, err
		}
		out.H = append(out.H, h)
		rows = append(rows, figures(l))
		out.Residual = math.Max(out.Residual, l.Residual)
		out.EdgeMass = math.Max(out.EdgeMass, l.EdgeMass)
	}
	big, err := JSQDiffusionLaw(ctx, DiffusionLawOptions{Beta: opt.Beta, H: opt.H0, L1: 1.5 * opt.L1, L2: 1.5 * opt.L2})
	if err != nil {
		return nil, err
	}
	bigRow := figures(big)
	orders := make([]float64, opt.Levels-1)
	for m := range orders {
		orders[m] = float64(m + 1)
	}
	est := make([]Estimate, len(bigRow))
	col := make([]float64, opt.Levels)
	for c := range est {
		for k := range col {
			col[k] = rows[k][c]
		}
		full, _, err := Richardson(out.H, col, orders)
		if err != nil {
			return nil, err
		}
		fewer, _, err := Richardson(out.H[1:], col[1:], orders[:len(orders)-1])
		if err != nil {
			return nil, err
		}
		est[c] = Estimate{Value: full, Numerical: math.Abs(full-fewer) + math.Abs(bigRow[c]-rows[0][c])}
	}
	out.Mean1, out.Mean2, out.Var1, out.Var2, out.Cov12 = est[0], est[1], est[2], est[3], est[4]
	out.CDF1 = est[5 : 5+len(opt.Points1)]
	out.CDF2 = est[5+len(opt.Points1):]
	return out, nil
}
