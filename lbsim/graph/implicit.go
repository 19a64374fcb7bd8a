package graph

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Shape describes an implicit graph: one whose neighbours are computed from
// the vertex id instead of being stored. Ring, Circulant and Torus make such
// graphs; they cost O(1) memory (plus the shifts) until some code asks for
// the stored lists (Neighbors, Offsets, Adjacency, Validate, Equal, ...),
// which are then made once, on first demand, exactly as a stored graph's.
//
// Neighbour i of v (0 <= i < Degree(v)), in the graph's own order (not
// increasing; see NeighborAt):
//
//   - circulant (Side == 0): v + Shifts[i/2] for even i, v - Shifts[i/2] for
//     odd i, mod N; every shift s satisfies 1 <= s and 2s < N and the shifts
//     are distinct and increasing, so the 2 len(Shifts) neighbours are
//     distinct;
//   - torus (Side = L >= 3, N = L*L, v = x + L*y): (x+1, y), (x-1, y),
//     (x, y+1), (x, y-1), mod L.
type Shape struct {
	Shifts []int
	Side   int
}

// implicit holds a Shape and the stored lists, made at most once.
type implicit struct {
	shape Shape
	lists lazyLists
}

// lazyLists holds the CSR lists of a graph that computes its edges (Ring,
// Circulant, Torus, ErdosRenyiImplicit), made at most once, on demand.
type lazyLists struct {
	once sync.Once
	made atomic.Bool // set once off and adj are made (for Bytes)
	off  []uint64
	adj  []uint32
}

// get returns the lists, making them with mk on the first call.
func (l *lazyLists) get(mk func() ([]uint64, []uint32)) ([]uint64, []uint32) {
	l.once.Do(func() {
		l.off, l.adj = mk()
		l.made.Store(true)
	})
	return l.off, l.adj
}

// set stores lists made elsewhere, unless get or set already stored some.
func (l *lazyLists) set(off []uint64, adj []uint32) {
	l.once.Do(func() {
		l.off, l.adj = off, adj
		l.made.Store(true)
	})
}

// madeSoFar returns the lists if they have been made, nil otherwise.
func (l *lazyLists) madeSoFar() ([]uint64, []uint32) {
	if !l.made.Load() {
		return nil, nil
	}
	return l.off, l.adj
}

// Circulant returns the implicit circulant graph on n vertices with the
// given shifts: v ~ v ± s (mod n) for each shift s. The shifts must be
// distinct with 1 <= s and 2s < n (so that v + s and v - s differ and every
// vertex has degree 2 len(shifts)); they are stored sorted. Ring(n, k) is
// Circulant(n, [1..k]).
func Circulant(n int, shifts []int) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: Circulant: n = %d out of range [0, %d]", n, MaxVertices)
	}
	s := slices.Clone(shifts)
	slices.Sort(s)
	for i, x := range s {
		if x < 1 || 2*x >= n {
			return nil, fmt.Errorf("graph: Circulant: shift %d out of range [1, %d] for n = %d (need 2s < n)", x, (n-1)/2, n)
		}
		if i > 0 && x == s[i-1] {
			return nil, fmt.Errorf("graph: Circulant: shift %d repeated", x)
		}
	}
	return &Graph{n: n, shape: &implicit{shape: Shape{Shifts: s}}}, nil
}

// Implicit reports whether g is an implicit graph (Ring, Circulant, Torus) and
// returns its shape. The shape's slices must not be modified.
func (g *Graph) Implicit() (Shape, bool) {
	if g.shape == nil {
		return Shape{}, false
	}
	return g.shape.shape, true
}

// NeighborAt returns neighbour i of v, 0 <= i < Degree(v): on an implicit
// graph the i-th in the order of Shape (computed, no lists made), otherwise
// Neighbors(v)[i].
func (g *Graph) NeighborAt(v, i int) int {
	if g.shape == nil {
		return int(g.Neighbors(v)[i])
	}
	return g.shape.shape.neighbor(g.n, v, i)
}

func (sh Shape) neighbor(n, v, i int) int {
	if sh.Side == 0 {
		s := sh.Shifts[i/2]
		if i%2 == 1 {
			s = n - s
		}
		if v += s; v >= n {
			v -= n
		}
		return v
	}
	l := sh.Side
	x, y := v%l, v/l
	switch i {
	case 0:
		x++
	case 1:
		x += l - 1
	case 2:
		y++
	default:
		y += l - 1
	}
	return x%l + l*(y%l)
}

func (sh Shape) degree() int {
	if sh.Side == 0 {
		return 2 * len(sh.Shifts)
	}
	return 4
}

// lists returns g's stored lists, making them first for an implicit graph.
func (g *Graph) lists() ([]uint64, []uint32) {
	switch {
	case g.hashed != nil:
		return g.hashed.lists.get(func() ([]uint64, []uint32) { return g.hashed.pairs.lists(g.n) })
	case g.shape != nil:
		return g.shape.lists.get(func() ([]uint64, []uint32) { return g.shape.shape.lists(g.n) })
	}
	return g.off, g.adj
}

// lists computes the lists of the shape on n vertices.
func (sh Shape) lists(n int) ([]uint64, []uint32) {
	d := sh.degree()
	off := make([]uint64, n+1)
	adj := make([]uint32, n*d)
	for v := range n {
		l := adj[v*d : (v+1)*d]
		for i := range l {
			l[i] = uint32(sh.neighbor(n, v, i))
		}
		slices.Sort(l)
		off[v+1] = uint64((v + 1) * d)
	}
	return off, adj
}
