package csma

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/lbsim/notebooks/lbsim/graph"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// MaxLPSets bounds the independent sets of the linear program of
// CheckTargets.
const MaxLPSets = 4096

// Capacity says how CheckTargets decided.
type Capacity int

const (
	// Interior: the targets are in the interior of the capacity region,
	// proved (edge inequalities of a bipartite graph, or the LP).
	Interior Capacity = iota
	// Unchecked: the necessary conditions hold, but the graph is neither
	// bipartite nor small enough for the LP.
	Unchecked
)

// CheckTargets reports whether the target activities gamma are in the
// interior of the capacity region of the conflict graph g: the convex hull
// of the indicator vectors of its independent sets (full-dimensional, so
// that its interior is where a finite theta attains gamma). It returns an
// error saying why not, naming the offending targets by index.
//
// Necessary, for every graph: 0 < gamma_i and gamma_i + gamma_j < 1 on
// every edge. For a bipartite graph (paths, even rings, grids) these are
// also sufficient: its stable-set polytope is {s >= 0, s_i + s_j <= 1 on
// edges}, the edge-node incidence matrix being totally unimodular, and the
// interior of a full-dimensional polytope is where its inequalities are
// strict. Otherwise, with at most MaxLPSets independent sets, the linear
// program "maximise t over p_x >= t, Σ p_x = 1, Σ p_x x = gamma" over the
// independent sets x (gonum's simplex) decides: gamma is interior iff it
// is a mixture giving every set positive weight, iff t* > 0. Larger
// non-bipartite graphs give Unchecked after the necessary conditions.
func CheckTargets(g *graph.Graph, gamma []float64) (Capacity, error) {
	n := g.N()
	if len(gamma) != n {
		return 0, fmt.Errorf("got %d values, want one per node of the conflict graph (%d)", len(gamma), n)
	}
	for i, x := range gamma {
		if !(x > 0 && x < 1) {
			return 0, fmt.Errorf("targets[%d] = %v: must be in (0, 1)", i, x)
		}
	}
	g, err := g.Materialize()
	if err != nil {
		return 0, err
	}
	for u := range n {
		for _, w := range g.Neighbors(u) {
			if v := int(w); u < v && !(gamma[u]+gamma[v] < 1) {
				return 0, fmt.Errorf("targets[%d] + targets[%d] = %v on the conflict %d-%d: must be below 1 (outside the capacity region)",
					u, v, gamma[u]+gamma[v], u, v)
			}
		}
	}
	if bipartite(g) {
		return Interior, nil
	}
	if n > MaxEnumNodes {
		return Unchecked, nil
	}
	sets, err := Enumerate(g, MaxLPSets)
	if err != nil {
		return Unchecked, nil
	}
	t, err := interiorMargin(sets, gamma)
	if err != nil {
		return 0, fmt.Errorf("outside the capacity region (no mixture of independent sets has these activities: %v)", err)
	}
	if !(t > 1e-9) {
		return 0, fmt.Errorf("on the boundary of the capacity region (the best mixture of independent sets gives weight %.3g to some set)", t)
	}
	return Interior, nil
}

// interiorMargin solves the LP of CheckTargets: the largest t with a
// mixture p_x >= t of the independent sets averaging gamma. Variables q_x =
// p_x - t >= 0 and t >= 0, in standard form for lp.Simplex.
func interiorMargin(s *IndependentSets, gamma []float64) (float64, error) {
	n, m := s.n, len(s.Sets)
	a := mat.NewDense(n+1, m+1, nil)
	b := make([]float64, n+1)
	copy(b, gamma)
	b[n] = 1
	for k, x := range s.Sets {
		for y := x; y != 0; y &= y - 1 {
			i := bits.TrailingZeros64(y)
			a.Set(i, k, 1)
			a.Set(i, m, a.At(i, m)+1) // t counts once per set holding i
		}
		a.Set(n, k, 1)
	}
	a.Set(n, m, float64(m))
	c := make([]float64, m+1)
	c[m] = -1
	opt, _, err := lp.Simplex(c, a, b, 1e-12, nil)
	if errors.Is(err, lp.ErrInfeasible) {
		return math.Inf(-1), err
	}
	if err != nil {
		return 0, err
	}
	return -opt, nil
}

// bipartite reports whether g is 2-colourable (breadth-first search).
func bipartite(g *graph.Graph) bool {
	n := g.N()
	colour := make([]int8, n)
	queue := make([]int, 0, n)
	for s := range n {
		if colour[s] != 0 {
			continue
		}
		colour[s] = 1
		queue = append(queue[:0], s)
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for _, w := range g.Neighbors(u) {
				switch colour[w] {
				case 0:
					colour[w] = -colour[u]
					queue = append(queue, int(w))
				case colour[u]:
					return false
				}
			}
		}
	}
	return true
}
