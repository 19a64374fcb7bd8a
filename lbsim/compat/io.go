package compat

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
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
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		f := strings.Fields(s)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("compat: edge list line %d: want \"type server\", got %d fields", line, len(f))
		}
		t, err1 := strconv.ParseUint(f[0], 10, 32)
		j, err2 := strconv.ParseUint(f[1], 10, 32)
		switch {
		case err1 != nil:
			return nil, fmt.Errorf("compat: edge list line %d: bad type id %q", line, f[0])
		case err2 != nil:
			return nil, fmt.Errorf("compat: edge list line %d: bad server id %q", line, f[1])
		case int(t) >= types:
			return nil, fmt.Errorf("compat: edge list line %d: type %d: must be below types = %d", line, t, types)
		case int(j) >= servers:
			return nil, fmt.Errorf("compat: edge list line %d: server %d: must be below servers = %d", line, j, servers)
		}
		if len(edges) >= MaxEdges {
			return nil, fmt.Errorf("compat: edge list line %d: more than %d edges", line, MaxEdges)
		}
		edges = append(edges, Edge{Type: uint32(t), Server: uint32(j)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("compat: edge list line %d: %w", line+1, err)
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
