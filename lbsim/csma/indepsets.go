package csma

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// MaxEnumNodes is the most nodes Enumerate takes (a state is a 64-bit set).
const MaxEnumNodes = 64

// IndependentSets is the state space of a CSMA network on a conflict graph
// with at most 64 nodes: every independent set (the empty set included), as
// a bit set of its active nodes. It is the Family pi_theta(x) ∝
// exp(Σ_{i in x} theta_i), phi(x) the indicator vector of x.
type IndependentSets struct {
	n    int
	nbr  []uint64 // neighbours of each node, as a bit set
	Sets []uint64 // the independent sets, in increasing order
}

// Enumerate lists the independent sets of g, refusing (with an error) more
// than max of them or more than 64 nodes.
func Enumerate(g *graph.Graph, max int) (*IndependentSets, error) {
	n := g.N()
	if n > MaxEnumNodes {
		return nil, fmt.Errorf("csma: %d nodes: enumeration takes at most %d", n, MaxEnumNodes)
	}
	g, err := g.Materialize()
	if err != nil {
		return nil, err
	}
	s := &IndependentSets{n: n, nbr: make([]uint64, n)}
	for v := range n {
		for _, u := range g.Neighbors(v) {
			s.nbr[v] |= 1 << u
		}
	}
	// Depth-first over the nodes: node v joins the set when none of its
	// neighbours is in it.
	var rec func(v int, set uint64) bool
	rec = func(v int, set uint64) bool {
		if v == n {
			if len(s.Sets) >= max {
				return false
			}
			s.Sets = append(s.Sets, set)
			return true
		}
		if !rec(v+1, set) {
			return false
		}
		if s.nbr[v]&set == 0 {
			return rec(v+1, set|1<<v)
		}
		return true
	}
	if !rec(0, 0) {
		return nil, fmt.Errorf("csma: the conflict graph has more than %d independent sets", max)
	}
	slices.Sort(s.Sets)
	return s, nil
}

// Dim is the number of nodes.
func (s *IndependentSets) Dim() int { return s.n }

// Neighbours returns the neighbours of node v as a bit set.
func (s *IndependentSets) Neighbours(v int) uint64 { return s.nbr[v] }

// Index returns the position of the set x in Sets, or -1.
func (s *IndependentSets) Index(x uint64) int {
	if i, ok := slices.BinarySearch(s.Sets, x); ok {
		return i
	}
	return -1
}

// Moments computes log Z, the activities s_i = P(i active) and their
// covariances exactly, summing over the independent sets in log space.
func (s *IndependentSets) Moments(theta []float64, m *Moments) error {
	if len(theta) != s.n {
		return fmt.Errorf("csma: %d parameters, want %d", len(theta), s.n)
	}
	top := math.Inf(-1)
	logw := make([]float64, len(s.Sets))
	for k, x := range s.Sets {
		w := 0.0
		for y := x; y != 0; y &= y - 1 {
			w += theta[bits.TrailingZeros64(y)]
		}
		logw[k] = w
		top = math.Max(top, w)
	}
	m.reset(s.n)
	// Second moments in a flat upper triangle, then into Cov.
	second := make([]float64, s.n*s.n)
	z := 0.0
	for k, x := range s.Sets {
		w := math.Exp(logw[k] - top)
		z += w
		for y := x; y != 0; y &= y - 1 {
			i := bits.TrailingZeros64(y)
			m.Mean[i] += w
			for r := y; r != 0; r &= r - 1 {
				second[i*s.n+bits.TrailingZeros64(r)] += w
			}
		}
	}
	for i := range s.n {
		for j := i; j < s.n; j++ {
			m.Cov.SetSym(i, j, second[i*s.n+j])
		}
	}
	finishMoments(m, z, top)
	return nil
}

// Activity returns the exact activities s_i(theta).
func (s *IndependentSets) Activity(theta []float64) ([]float64, error) {
	var m Moments
	if err := s.Moments(theta, &m); err != nil {
		return nil, err
	}
	return m.Mean, nil
}
