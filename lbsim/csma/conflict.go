package csma

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/param"
)

// MaxNodes bounds the nodes of a conflict graph built from a spec.
const MaxNodes = 1 << 20

// Conflict builds the conflict graph that spec describes:
//
//   - path:N, the path 0 - 1 - ... - N-1 (N >= 1);
//   - ring:N, the cycle on N >= 3 nodes;
//   - grid:RxC, the R x C grid with 4-neighbour conflicts and no wrap-around;
//   - torus:L, the L x L grid with wrap-around (L >= 3);
//   - complete:N, every pair of the N nodes in conflict (at most one active);
//   - any other string is an edge-list file ("u v" per line, 0-based ids,
//     '#' comments), on nodes nodes when nodes > 0, else on the largest id
//     plus one.
//
// Errors say what is wrong with the spec; the caller names its key.
func Conflict(spec string, nodes int) (*graph.Graph, error) {
	name, arg, ok := strings.Cut(spec, ":")
	size := func(s string, lo int) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < lo || n > MaxNodes {
			return 0, fmt.Errorf("%s: size %q: want an integer in [%d, %d]", name, s, lo, MaxNodes)
		}
		return n, nil
	}
	if ok {
		switch name {
		case "path":
			n, err := size(arg, 1)
			if err != nil {
				return nil, err
			}
			return grid(1, n)
		case "ring":
			n, err := size(arg, 3)
			if err != nil {
				return nil, err
			}
			return graph.Ring(n, 1)
		case "grid":
			rs, cs, ok := strings.Cut(arg, "x")
			if !ok {
				return nil, fmt.Errorf("grid: %q: want RxC, two integers (grid:3x3)", arg)
			}
			r, err := size(rs, 1)
			if err != nil {
				return nil, err
			}
			c, err := size(cs, 1)
			if err != nil {
				return nil, err
			}
			if r*c > MaxNodes {
				return nil, fmt.Errorf("grid: %dx%d: more than %d nodes", r, c, MaxNodes)
			}
			return grid(r, c)
		case "torus":
			l, err := size(arg, 3)
			if err != nil {
				return nil, err
			}
			if l*l > MaxNodes {
				return nil, fmt.Errorf("torus: %d: more than %d nodes", l, MaxNodes)
			}
			return graph.Torus(l)
		case "complete":
			n, err := size(arg, 1)
			if err != nil {
				return nil, err
			}
			if n > 4096 {
				return nil, fmt.Errorf("complete: %d: at most 4096 nodes", n)
			}
			c, _ := graph.Complete(n)
			return c.Materialize()
		}
	}
	f, err := param.Open(spec, param.MaxDataFileBytes)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("no such file, and not path:N, ring:N, grid:RxC, torus:L or complete:N")
		}
		return nil, err
	}
	defer f.Close()
	var g *graph.Graph
	if nodes > 0 {
		g, err = graph.ReadEdgeList(f, nodes)
	} else { // ids bounded before the vertices are allocated
		g, err = graph.ReadEdgeListUpTo(f, MaxNodes)
	}
	if err != nil {
		return nil, err
	}
	if g.N() == 0 || g.N() > MaxNodes {
		return nil, fmt.Errorf("the file gives %d nodes; want 1 to %d", g.N(), MaxNodes)
	}
	return g, nil
}

// grid returns the r x c grid without wrap-around (r = 1: a path).
func grid(r, c int) (*graph.Graph, error) {
	b := graph.NewBuilder(r * c)
	for i := range r {
		for j := range c {
			v := i*c + j
			if j+1 < c {
				b.AddEdge(v, v+1)
			}
			if i+1 < r {
				b.AddEdge(v, v+c)
			}
		}
	}
	return b.Build()
}
