package graph

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/lbsim/notebooks/lbsim/internal/edgelist"
	gonumgraph "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/encoding/dot"
	"gonum.org/v1/gonum/graph/simple"
)

// ReadEdgeList reads a graph in edge-list form: one edge per line, two
// 0-based vertex ids separated by white space; '#' starts a comment (to the end
// of the line) and blank lines are skipped. With n < 0 the number of vertices
// is the largest id plus one (so trailing isolated vertices are lost: pass n
// to keep them). Duplicate edges are merged; a self-loop ("v v") is an error
// naming its line and vertex, since the graphs read from files (hearing,
// neighbour and conflict graphs) are simple and a silently dropped line would
// be a different graph than the one written. Errors name the line.
func ReadEdgeList(r io.Reader, n int) (*Graph, error) { return readEdgeList(r, n, 0) }

// ReadEdgeListUpTo is ReadEdgeList for a graph whose number of vertices is
// the largest id plus one, with every id below maxN: an id beyond it is an
// error naming its line, before anything is allocated for the vertices.
func ReadEdgeListUpTo(r io.Reader, maxN int) (*Graph, error) {
	if maxN < 1 || maxN > MaxVertices {
		return nil, fmt.Errorf("graph: ReadEdgeListUpTo: maxN = %d must be in [1, %d]", maxN, MaxVertices)
	}
	return readEdgeList(r, -1, maxN)
}

func readEdgeList(r io.Reader, n, limit int) (*Graph, error) {
	b := NewBuilder(n)
	if b.err != nil {
		return nil, b.err
	}
	b.limit = limit
	err := edgelist.Read(r, edgelist.Format{Pkg: "graph", Want: "two vertex ids", IDs: [2]string{"vertex id", "vertex id"}},
		func(line int, u, v uint32) error {
			if err := b.check(int(u), int(v), func() string { return fmt.Sprintf("edge list line %d: edge", line) }); err != nil {
				return err
			}
			if u == v {
				return fmt.Errorf("graph: edge list line %d: edge (%d, %d): a self-loop at vertex %d; an edge needs two distinct vertices", line, u, v, u)
			}
			b.us = append(b.us, u)
			b.vs = append(b.vs, v)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return b.Build()
}

// WriteEdgeList writes g as an edge list: a comment line with the numbers of
// vertices and edges, then each edge {u, v} once as "u v" with u <= v, in
// increasing order (a self-loop kept by a Builder as "v v", which
// ReadEdgeList refuses).
func WriteEdgeList(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# undirected graph: %d vertices, %d edges\n", g.N(), g.Edges())
	buf := make([]byte, 0, 32)
	err := g.eachEdge(func(u, v int) error {
		buf = strconv.AppendInt(buf[:0], int64(u), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(v), 10)
		buf = append(buf, '\n')
		_, err := bw.Write(buf)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// eachEdge calls f(u, v), u <= v, once per edge in increasing order (also for
// an implicit complete graph).
func (g *Graph) eachEdge(f func(u, v int) error) error {
	for u := 0; u < g.n; u++ {
		if g.complete {
			for v := u + 1; v < g.n; v++ {
				if err := f(u, v); err != nil {
					return err
				}
			}
			continue
		}
		l := g.Neighbors(u)
		i, _ := slices.BinarySearch(l, uint32(u))
		for _, v := range l[i:] {
			if err := f(u, int(v)); err != nil {
				return err
			}
		}
	}
	return nil
}

// ToGonum returns g as a gonum simple.UndirectedGraph with nodes 0..N-1
// (simple.Node(v)). Self-loops, which simple graphs cannot hold, are dropped.
// An implicit complete graph is expanded: mind its size.
func ToGonum(g *Graph) *simple.UndirectedGraph {
	h := simple.NewUndirectedGraph()
	for v := 0; v < g.n; v++ {
		h.AddNode(simple.Node(v))
	}
	_ = g.eachEdge(func(u, v int) error {
		if u != v {
			h.SetEdge(simple.Edge{F: simple.Node(u), T: simple.Node(v)})
		}
		return nil
	})
	return h
}

// FromGonum converts a gonum undirected graph. If its node ids are exactly
// 0..N-1, vertex v is node v; otherwise nodes are renumbered 0..N-1 in
// increasing id order. ids[v] is the gonum id of vertex v (nil when no
// renumbering was needed). Self-loops are dropped and parallel edges of
// multigraphs merged.
func FromGonum(h gonumgraph.Undirected) (g *Graph, ids []int64, err error) {
	nodes := gonumgraph.NodesOf(h.Nodes())
	n := len(nodes)
	if n > MaxVertices {
		return nil, nil, fmt.Errorf("graph: FromGonum: %d nodes exceed %d", n, MaxVertices)
	}
	all := make([]int64, n)
	for i, x := range nodes {
		all[i] = x.ID()
	}
	slices.Sort(all)
	identity := n == 0 || (all[0] == 0 && all[n-1] == int64(n-1))
	index := func(id int64) int { return int(id) }
	if !identity {
		ids = all
		index = func(id int64) int {
			i, _ := slices.BinarySearch(all, id)
			return i
		}
	}
	var us, vs []uint32
	for _, id := range all {
		u := index(id)
		to := h.From(id)
		for to.Next() {
			v := index(to.Node().ID())
			if u < v {
				us = append(us, uint32(u))
				vs = append(vs, uint32(v))
			}
		}
	}
	return fromPairs(n, us, vs, false), ids, nil
}

// WriteDOT writes g in Graphviz DOT format, as gonum's encoding/dot renders
// ToGonum(g), with the given graph name.
func WriteDOT(w io.Writer, g *Graph, name string) error {
	b, err := dot.Marshal(ToGonum(g), name, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
