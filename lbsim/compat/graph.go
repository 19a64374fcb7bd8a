package compat

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lbsim/notebooks/lbsim/internal/csr"
)

// MaxEdges bounds the number of edges a generator or reader materialises
// (8 bytes per edge: one uint32 entry on each side), as graph.MaxMaterialize
// does for package graph.
const MaxEdges = 1 << 31

// MaxIDs is the largest number of servers or of types: ids are uint32.
const MaxIDs = math.MaxUint32

// Graph is an immutable bipartite compatibility graph between N servers
// (0..N-1) and M task types (0..M-1), stored in compressed sparse row form on
// both sides: the servers compatible with type t are
// TypeAdjacency()[TypeOffsets()[t]:TypeOffsets()[t+1]] and the types that
// server j can serve are ServerAdjacency()[ServerOffsets()[j]:...[j+1]], each
// list increasing and without duplicates. Ids are uint32 and offsets uint64,
// so a graph costs 8 bytes per edge plus 8 bytes per server and per type.
//
// The complete bipartite graph made by Complete is implicit: it stores no
// edges, whatever N and M; its adjacency accessors return nil and code that
// handles every graph checks IsComplete first.
//
// A Graph also carries the relative arrival rates of the types (TypeRates;
// nil means equal rates), set by WithTypeRates. It is safe for concurrent use
// by any number of readers.
type Graph struct {
	n, m     int
	complete bool
	typeOff  []uint64 // len m+1
	typeAdj  []uint32 // servers of each type
	srvOff   []uint64 // len n+1
	srvAdj   []uint32 // types of each server
	rates    []float64
}

func checkSizes(servers, types int) error {
	if servers < 1 || servers > MaxIDs {
		return fmt.Errorf("compat: servers = %d: must be in [1, %d]", servers, MaxIDs)
	}
	if types < 1 || types > MaxIDs {
		return fmt.Errorf("compat: types = %d: must be in [1, %d]", types, MaxIDs)
	}
	return nil
}

// Complete returns the implicit complete bipartite graph: every server serves
// every type. Compatibility-constrained JSQ(d) on it is ordinary JSQ(d).
func Complete(servers, types int) (*Graph, error) {
	if err := checkSizes(servers, types); err != nil {
		return nil, err
	}
	return &Graph{n: servers, m: types, complete: true}, nil
}

// Servers returns the number of servers N.
func (g *Graph) Servers() int { return g.n }

// Types returns the number of task types M.
func (g *Graph) Types() int { return g.m }

// IsComplete reports whether g is the implicit complete bipartite graph.
func (g *Graph) IsComplete() bool { return g.complete }

// Edges returns the number of compatible (type, server) pairs.
func (g *Graph) Edges() int64 {
	if g.complete {
		return int64(g.n) * int64(g.m)
	}
	return int64(len(g.typeAdj))
}

// TypeDegree returns the number of servers compatible with type t.
func (g *Graph) TypeDegree(t int) int {
	if g.complete {
		return g.n
	}
	return int(g.typeOff[t+1] - g.typeOff[t])
}

// ServerDegree returns the number of types server j can serve.
func (g *Graph) ServerDegree(j int) int {
	if g.complete {
		return g.m
	}
	return int(g.srvOff[j+1] - g.srvOff[j])
}

// ServersOf returns the servers compatible with type t, increasing (nil on
// the implicit complete graph). The slice must not be modified.
func (g *Graph) ServersOf(t int) []uint32 {
	if g.complete {
		return nil
	}
	return g.typeAdj[g.typeOff[t]:g.typeOff[t+1]]
}

// TypesOf returns the types server j can serve, increasing (nil on the
// implicit complete graph). The slice must not be modified.
func (g *Graph) TypesOf(j int) []uint32 {
	if g.complete {
		return nil
	}
	return g.srvAdj[g.srvOff[j]:g.srvOff[j+1]]
}

// TypeOffsets and TypeAdjacency expose the type side of the CSR storage for
// hot loops (nil on the implicit complete graph). They must not be modified.
func (g *Graph) TypeOffsets() []uint64 { return g.typeOff }

// TypeAdjacency: see TypeOffsets.
func (g *Graph) TypeAdjacency() []uint32 { return g.typeAdj }

// ServerOffsets and ServerAdjacency expose the server side of the CSR
// storage (nil on the implicit complete graph). They must not be modified.
func (g *Graph) ServerOffsets() []uint64 { return g.srvOff }

// ServerAdjacency: see ServerOffsets.
func (g *Graph) ServerAdjacency() []uint32 { return g.srvAdj }

// Degrees summarises the degrees of both sides.
type Degrees struct {
	MinType, MaxType     int
	MeanType             float64
	MinServer, MaxServer int
	MeanServer           float64
	// IsolatedTypes counts the types without any compatible server, and
	// IsolatedServers the servers that serve no type.
	IsolatedTypes, IsolatedServers int
}

// Degrees returns the degree summary of g.
func (g *Graph) Degrees() Degrees {
	if g.complete {
		return Degrees{MinType: g.n, MaxType: g.n, MeanType: float64(g.n),
			MinServer: g.m, MaxServer: g.m, MeanServer: float64(g.m)}
	}
	d := Degrees{MinType: math.MaxInt, MinServer: math.MaxInt}
	for t := range g.m {
		k := g.TypeDegree(t)
		d.MinType, d.MaxType = min(d.MinType, k), max(d.MaxType, k)
		if k == 0 {
			d.IsolatedTypes++
		}
	}
	for j := range g.n {
		k := g.ServerDegree(j)
		d.MinServer, d.MaxServer = min(d.MinServer, k), max(d.MaxServer, k)
		if k == 0 {
			d.IsolatedServers++
		}
	}
	e := float64(g.Edges())
	d.MeanType, d.MeanServer = e/float64(g.m), e/float64(g.n)
	return d
}

// TypeRates returns the relative arrival rates of the types, or nil when all
// types arrive at the same rate. The slice must not be modified.
func (g *Graph) TypeRates() []float64 { return g.rates }

// TypeRate returns the relative arrival rate of type t (1 with equal rates).
func (g *Graph) TypeRate(t int) float64 {
	if g.rates == nil {
		return 1
	}
	return g.rates[t]
}

// WithTypeRates returns a copy of g (sharing its edges) whose types arrive in
// proportion to rates: one finite value >= 0 per type, not all 0. Only the
// proportions matter; the total arrival rate is set by the scenario
// (lambda*N). A nil rates restores equal rates.
func (g *Graph) WithTypeRates(rates []float64) (*Graph, error) {
	h := *g
	if rates == nil {
		h.rates = nil
		return &h, nil
	}
	if len(rates) != g.m {
		return nil, fmt.Errorf("compat: type rates: %d values, want one per type (%d)", len(rates), g.m)
	}
	total := 0.0
	for t, r := range rates {
		if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 {
			return nil, fmt.Errorf("compat: type rate %d = %v: must be finite and >= 0", t, r)
		}
		total += r
	}
	if !(total > 0) {
		return nil, errors.New("compat: type rates: all zero; at least one type must arrive")
	}
	h.rates = slices.Clone(rates)
	return &h, nil
}

// Edge is one compatible pair: tasks of type Type can be served by Server.
type Edge struct {
	Type, Server uint32
}

// FromEdges builds the graph on servers servers and types types with the
// given compatible pairs; duplicates are merged. Ids must be below the
// counts.
func FromEdges(servers, types int, edges []Edge) (*Graph, error) {
	if err := checkSizes(servers, types); err != nil {
		return nil, err
	}
	if len(edges) > MaxEdges {
		return nil, fmt.Errorf("compat: %d edges, more than %d", len(edges), MaxEdges)
	}
	counts := make([]uint64, types+1)
	for i, e := range edges {
		if int(e.Type) >= types || int(e.Server) >= servers {
			return nil, fmt.Errorf("compat: edge %d (type %d, server %d): ids must be below types = %d and servers = %d",
				i, e.Type, e.Server, types, servers)
		}
		counts[e.Type+1]++
	}
	for t := range types {
		counts[t+1] += counts[t]
	}
	adj := make([]uint32, len(edges))
	next := slices.Clone(counts[:types])
	for _, e := range edges {
		adj[next[e.Type]] = e.Server
		next[e.Type]++
	}
	return fromTypeLists(servers, types, counts, adj), nil
}

// FromTypeLists builds the graph in which type t is compatible with the
// servers lists[t] (so there are len(lists) types); duplicates are merged.
func FromTypeLists(servers int, lists [][]int) (*Graph, error) {
	var edges []Edge
	for t, list := range lists {
		for _, j := range list {
			if j < 0 || j >= servers {
				return nil, fmt.Errorf("compat: type %d: server %d: must be in [0, servers = %d)", t, j, servers)
			}
			edges = append(edges, Edge{Type: uint32(t), Server: uint32(j)})
		}
	}
	return FromEdges(servers, len(lists), edges)
}

// fromTypeLists builds a graph from the type-side lists off/adj (each list in
// any order, possibly with duplicates), sorting and deduplicating each list
// in place and building the server side by transposition.
func fromTypeLists(servers, types int, off []uint64, adj []uint32) *Graph {
	off, adj = csr.SortDedupe(off, adj)
	srvOff, srvAdj := transpose(off, adj, servers)
	return &Graph{n: servers, m: types, typeOff: off, typeAdj: adj, srvOff: srvOff, srvAdj: srvAdj}
}

// fromServerLists is fromTypeLists with the server-side lists given.
func fromServerLists(servers, types int, off []uint64, adj []uint32) *Graph {
	off, adj = csr.SortDedupe(off, adj)
	typeOff, typeAdj := transpose(off, adj, types)
	return &Graph{n: servers, m: types, typeOff: typeOff, typeAdj: typeAdj, srvOff: off, srvAdj: adj}
}

// transpose returns the CSR of the other side: for every entry x in list v of
// (off, adj), v appears in list x of the result, which has k lists. Lists of
// the result come out increasing because v is visited in order.
func transpose(off []uint64, adj []uint32, k int) ([]uint64, []uint32) {
	tOff := make([]uint64, k+1)
	for _, x := range adj {
		tOff[x+1]++
	}
	for i := range k {
		tOff[i+1] += tOff[i]
	}
	tAdj := make([]uint32, len(adj))
	next := slices.Clone(tOff[:k])
	for v := 0; v+1 < len(off); v++ {
		for _, x := range adj[off[v]:off[v+1]] {
			tAdj[next[x]] = uint32(v)
			next[x]++
		}
	}
	return tOff, tAdj
}

// Compatible reports whether type t can be served by server j (binary search
// in the shorter list).
func (g *Graph) Compatible(t, j int) bool {
	if g.complete {
		return true
	}
	if g.TypeDegree(t) <= g.ServerDegree(j) {
		_, ok := slices.BinarySearch(g.ServersOf(t), uint32(j))
		return ok
	}
	_, ok := slices.BinarySearch(g.TypesOf(j), uint32(t))
	return ok
}
