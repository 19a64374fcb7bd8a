package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lbsim/notebooks/lbsim/internal/csr"
)

// MaxVertices is the largest number of vertices a Graph can have: ids are
// uint32.
const MaxVertices = math.MaxUint32

// Graph is an immutable undirected graph on the vertices 0..N()-1 stored in
// compressed sparse row (CSR) form: the neighbours of v are
// adj[off[v]:off[v+1]], sorted increasingly, without duplicates. Each
// undirected edge {u, v} is stored twice (v in u's list, u in v's), so the
// graph costs 4 bytes per directed entry plus 8 bytes per vertex.
//
// A self-loop (only possible through a Builder asked to keep them) appears once
// in its vertex's list and counts once in Degree and Edges.
//
// The complete graph made by Complete is implicit: it stores no edges, so it
// costs nothing for any n. Neighbors panics on it (see Neighbors); code that
// wants to handle every graph checks IsComplete first and treats the clique
// separately (a dispatch policy then uses the O(1) JSQ structure).
//
// A Graph is safe for concurrent use by any number of readers.
type Graph struct {
	n        int
	complete bool
	loops    int      // number of self-loops
	off      []uint64 // len n+1, nil for an implicit complete graph
	adj      []uint32
	shape    *implicit // non-nil for Ring, Circulant, Torus (off, adj nil)
	hashed   *hashed   // non-nil for ErdosRenyiImplicit (off, adj nil)
}

// Complete returns the implicit complete graph K_n, which stores no edges.
func Complete(n int) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: Complete: n = %d out of range [0, %d]", n, MaxVertices)
	}
	return &Graph{n: n, complete: true}, nil
}

// Empty returns the graph on n vertices without edges.
func Empty(n int) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: Empty: n = %d out of range [0, %d]", n, MaxVertices)
	}
	return &Graph{n: n, off: make([]uint64, n+1)}, nil
}

// N returns the number of vertices.
func (g *Graph) N() int { return g.n }

// IsComplete reports whether g is an implicit complete graph made by
// Complete. Such a graph has no neighbour lists: see Neighbors.
func (g *Graph) IsComplete() bool { return g.complete }

// Edges returns the number of undirected edges (a self-loop counts once).
func (g *Graph) Edges() int {
	if g.complete {
		return g.n * (g.n - 1) / 2
	}
	if g.shape != nil {
		return g.n * g.shape.shape.degree() / 2
	}
	_, adj := g.lists()
	return (len(adj) + g.loops) / 2
}

// Degree returns the number of neighbours of v.
func (g *Graph) Degree(v int) int {
	if g.complete {
		if uint(v) >= uint(g.n) {
			panic(fmt.Sprintf("graph: vertex %d out of range [0, %d)", v, g.n))
		}
		return g.n - 1
	}
	if g.shape != nil {
		if uint(v) >= uint(g.n) {
			panic(fmt.Sprintf("graph: vertex %d out of range [0, %d)", v, g.n))
		}
		return g.shape.shape.degree()
	}
	off, _ := g.lists()
	return int(off[v+1] - off[v])
}

// Neighbors returns the neighbours of v in increasing order. The slice
// aliases the graph's storage: it must not be modified. It does not allocate.
//
// Neighbors panics on an implicit complete graph (IsComplete), which has no
// stored lists: materialising n-1 neighbours per call would silently turn an
// O(1) step into an O(n) one. Use Materialize to get an explicit copy of a
// small complete graph.
func (g *Graph) Neighbors(v int) []uint32 {
	if g.complete {
		panic("graph: Neighbors called on an implicit complete graph; check IsComplete or use Materialize")
	}
	off, adj := g.lists()
	return adj[off[v]:off[v+1]:off[v+1]]
}

// HasEdge reports whether {u, v} is an edge, by binary search in the shorter
// of the two lists.
func (g *Graph) HasEdge(u, v int) bool {
	if uint(u) >= uint(g.n) || uint(v) >= uint(g.n) {
		return false
	}
	if g.complete {
		return u != v
	}
	if g.shape != nil {
		for i := range g.shape.shape.degree() {
			if g.shape.shape.neighbor(g.n, u, i) == v {
				return true
			}
		}
		return false
	}
	if g.hashed != nil {
		return g.hashed.pairs.Edge(u, v)
	}
	a, b := g.Neighbors(u), uint32(v)
	if w := g.Neighbors(v); len(w) < len(a) {
		a, b = w, uint32(u)
	}
	_, ok := slices.BinarySearch(a, b)
	return ok
}

// SelfLoops returns the number of self-loops (0 unless a Builder kept them).
func (g *Graph) SelfLoops() int { return g.loops }

// Offsets and Adjacency expose the raw CSR arrays (read-only): the neighbours
// of v are Adjacency()[Offsets()[v]:Offsets()[v+1]]. Both are nil for an
// implicit complete graph; an implicit Ring, Circulant or Torus makes them on
// the first call (see Shape).
func (g *Graph) Offsets() []uint64 { off, _ := g.lists(); return off }

// Adjacency returns the concatenated neighbour lists; see Offsets.
func (g *Graph) Adjacency() []uint32 { _, adj := g.lists(); return adj }

// Bytes returns the memory held by the CSR arrays (for an implicit graph,
// those made so far).
func (g *Graph) Bytes() int64 {
	off, adj := g.off, g.adj
	switch {
	case g.shape != nil:
		off, adj = g.shape.lists.madeSoFar()
	case g.hashed != nil:
		off, adj = g.hashed.lists.madeSoFar()
	}
	return int64(len(off))*8 + int64(len(adj))*4
}

// MaxMaterialize bounds the number of directed entries Materialize will
// create for a complete graph.
const MaxMaterialize = 1 << 31

// Materialize returns g with explicit neighbour lists: g itself unless g is an
// implicit complete graph, which is expanded (an error if it would have more
// than MaxMaterialize directed entries).
func (g *Graph) Materialize() (*Graph, error) {
	if !g.complete {
		return g, nil
	}
	n := g.n
	if n > 0 && float64(n)*float64(n-1) > MaxMaterialize {
		return nil, fmt.Errorf("graph: Materialize: complete graph on %d vertices has %d directed entries, more than %d", n, n*(n-1), MaxMaterialize)
	}
	h := &Graph{n: n, off: make([]uint64, n+1)}
	if n > 0 {
		h.adj = make([]uint32, n*(n-1))
	}
	k := 0
	for v := 0; v < n; v++ {
		for u := 0; u < n; u++ {
			if u != v {
				h.adj[k] = uint32(u)
				k++
			}
		}
		h.off[v+1] = uint64(k)
	}
	return h, nil
}

// Builder collects an edge list and builds a Graph from it, removing
// duplicate edges and (unless KeepSelfLoops is set) self-loops. It stores 8
// bytes per edge until Build.
type Builder struct {
	n             int // < 0: inferred as max id + 1
	limit         int // with n < 0: ids must be below it (0: MaxVertices)
	KeepSelfLoops bool
	us, vs        []uint32
	maxID         int
	err           error
}

// NewBuilder returns a Builder for a graph on n vertices; with n < 0 the
// number of vertices is inferred at Build as the largest id seen plus one.
func NewBuilder(n int) *Builder {
	b := &Builder{n: n, maxID: -1}
	if n > MaxVertices {
		b.err = fmt.Errorf("graph: NewBuilder: n = %d exceeds %d", n, MaxVertices)
	}
	return b
}

// Len returns the number of edges added so far (before deduplication).
func (b *Builder) Len() int { return len(b.us) }

// AddEdge adds the undirected edge {u, v}. An id out of range is an error that
// names the edge's index (0-based, in the order of AddEdge calls); the first
// such error is also returned by Build.
func (b *Builder) AddEdge(u, v int) error {
	i := len(b.us)
	if err := b.check(u, v, func() string { return fmt.Sprintf("edge %d", i) }); err != nil {
		if b.err == nil {
			b.err = err
		}
		return err
	}
	b.us = append(b.us, uint32(u))
	b.vs = append(b.vs, uint32(v))
	return nil
}

func (b *Builder) check(u, v int, where func() string) error {
	hi := b.n
	if hi < 0 {
		hi = MaxVertices
		if b.limit > 0 {
			hi = b.limit
		}
	}
	for _, x := range [2]int{u, v} {
		if x < 0 || x >= hi {
			return fmt.Errorf("graph: %s (%d, %d): vertex %d out of range [0, %d)", where(), u, v, x, hi)
		}
	}
	b.maxID = max(b.maxID, u, v)
	return nil
}

// Build returns the graph. The Builder may be reused afterwards (its edges are
// kept; more may be added).
func (b *Builder) Build() (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	n := b.n
	if n < 0 {
		n = b.maxID + 1
	}
	return fromPairs(n, b.us, b.vs, b.KeepSelfLoops), nil
}

// fromPairs builds a CSR graph from the edges {us[i], vs[i]} (ids < n).
func fromPairs(n int, us, vs []uint32, keepLoops bool) *Graph {
	deg := make([]uint64, n+1)
	for i := range us {
		u, v := us[i], vs[i]
		if u == v {
			if keepLoops {
				deg[u]++
			}
			continue
		}
		deg[u]++
		deg[v]++
	}
	off := prefixSum(deg) // deg now holds offsets; reuse as positions
	pos := make([]uint64, n)
	copy(pos, off[:n])
	adj := make([]uint32, off[n])
	for i := range us {
		u, v := us[i], vs[i]
		if u == v {
			if keepLoops {
				adj[pos[u]] = u
				pos[u]++
			}
			continue
		}
		adj[pos[u]] = v
		pos[u]++
		adj[pos[v]] = u
		pos[v]++
	}
	return compact(n, off, adj)
}

// prefixSum turns counts c[0..n-1] (len(c) == n+1) into offsets in place and
// returns c.
func prefixSum(c []uint64) []uint64 {
	var s uint64
	for i := range c {
		d := c[i]
		c[i] = s
		s += d
	}
	return c
}

// compact sorts every list, removes duplicates in place and clips the
// adjacency (csr.SortDedupe), counts the self-loops and returns the final
// graph. The backing array is kept, as it always was: the former test for
// cloning when more than an eighth was dropped compared the capacity after
// clipping, so it never fired.
func compact(n int, off []uint64, adj []uint32) *Graph {
	off, adj = csr.SortDedupe(off, adj)
	loops := 0
	for v := range n {
		if _, found := slices.BinarySearch(adj[off[v]:off[v+1]], uint32(v)); found {
			loops++
		}
	}
	return &Graph{n: n, off: off, adj: adj, loops: loops}
}

// Validate checks the CSR invariants: offsets monotone, ids in range, lists
// strictly increasing, and symmetry (v in N(u) iff u in N(v)). It is O(M log
// d) and meant for tests and for graphs from outside sources.
func (g *Graph) Validate() error {
	if g.complete {
		return nil
	}
	off, adj := g.lists()
	if len(off) != g.n+1 || off[0] != 0 || off[g.n] != uint64(len(adj)) {
		return errors.New("graph: malformed offsets")
	}
	loops := 0
	for v := 0; v < g.n; v++ {
		if off[v+1] < off[v] {
			return fmt.Errorf("graph: offsets decrease at vertex %d", v)
		}
		l := g.Neighbors(v)
		for i, x := range l {
			if int(x) >= g.n {
				return fmt.Errorf("graph: vertex %d has neighbour %d out of range", v, x)
			}
			if i > 0 && x <= l[i-1] {
				return fmt.Errorf("graph: neighbours of vertex %d not strictly increasing at position %d", v, i)
			}
			if int(x) == v {
				loops++
			} else if !g.HasEdge(int(x), v) {
				return fmt.Errorf("graph: asymmetric: %d in N(%d) but not %d in N(%d)", x, v, v, x)
			}
		}
	}
	if loops != g.loops {
		return fmt.Errorf("graph: %d self-loops recorded, %d found", g.loops, loops)
	}
	return nil
}

// Equal reports whether g and h have the same vertices and edges.
func (g *Graph) Equal(h *Graph) bool {
	if g.n != h.n {
		return false
	}
	if g.complete || h.complete {
		if g.complete && h.complete {
			return true
		}
		if g.Edges() != h.Edges() {
			return false
		}
		x := g
		if g.complete {
			x = h
		}
		return x.loops == 0 && x.Edges() == g.n*(g.n-1)/2
	}
	goff, gadj := g.lists()
	hoff, hadj := h.lists()
	return slices.Equal(goff, hoff) && slices.Equal(gadj, hadj)
}
