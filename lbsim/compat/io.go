package compat

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/lbsim/notebooks/lbsim/internal/edgelist"
)

// ReadEdgeList reads a compatibility graph in edge-list form: one compatible
// pair per line, "type server" (two 0-based ids separated by white space,
// type < types, server < servers); '#' starts a comment and blank lines are
// skipped. Duplicate pairs are merged. Errors name the line.
func ReadEdgeList(r io.Reader, servers, types int) (*Graph, error) {
	if err := checkSizes(servers, types); err != nil {
		return nil, err
	}
	var edges []Edge
	err := edgelist.Read(r, edgelist.Format{Pkg: "compat", Want: "\"type server\"", IDs: [2]string{"type id", "server id"}},
		func(line int, t, j uint32) error {
			switch {
			case int(t) >= types:
				return fmt.Errorf("compat: edge list line %d: type %d: must be below types = %d", line, t, types)
			case int(j) >= servers:
				return fmt.Errorf("compat: edge list line %d: server %d: must be below servers = %d", line, j, servers)
			case len(edges) >= MaxEdges:
				return fmt.Errorf("compat: edge list line %d: more than %d edges", line, MaxEdges)
			}
			edges = append(edges, Edge{Type: t, Server: j})
			return nil
		})
	if err != nil {
		return nil, err
	}
	return FromEdges(servers, types, edges)
}

// WriteEdgeList writes g in the form ReadEdgeList reads: a comment line with
// the sizes, then "type server" per line, by type then server. The implicit
// complete graph is written out edge by edge.
func WriteEdgeList(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# compatibility graph: servers %d types %d edges %d; \"type server\" per line\n",
		g.n, g.m, g.Edges())
	buf := make([]byte, 0, 32)
	emit := func(t, j int) {
		buf = strconv.AppendInt(buf[:0], int64(t), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(j), 10)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	for t := range g.m {
		if g.complete {
			for j := range g.n {
				emit(t, j)
			}
			continue
		}
		for _, j := range g.ServersOf(t) {
			emit(t, int(j))
		}
	}
	return bw.Flush()
}
