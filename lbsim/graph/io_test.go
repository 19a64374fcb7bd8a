package graph

import (
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/param"
)

// An edge list cut short by a size limit is refused for its size, not for
// the partial line the limit leaves; ReadEdgeListUpTo refuses an id beyond
// its bound before allocating for the vertices.
func TestEdgeListLimits(t *testing.T) {
	in := strings.Repeat("0 1\n", 100)
	_, err := ReadEdgeList(param.LimitReader(strings.NewReader(in), 50), 2)
	if err == nil || !strings.Contains(err.Error(), "larger than 50 bytes") {
		t.Errorf("cut by the limit: %v", err)
	}
	_, err = ReadEdgeList(strings.NewReader("0 1\n1 x\n2 3\n"), 4)
	if err == nil || !strings.Contains(err.Error(), `line 2: bad vertex id "x"`) {
		t.Errorf("a bad line in the middle: %v", err)
	}
	_, err = ReadEdgeListUpTo(strings.NewReader("0 1\n1 4294967000\n"), 1<<20)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "out of range [0, 1048576)") {
		t.Errorf("id beyond the bound: %v", err)
	}
	g, err := ReadEdgeListUpTo(strings.NewReader("0 1\n1 5\n"), 6)
	if err != nil || g.N() != 6 || g.Edges() != 2 {
		t.Errorf("within the bound: %v, %v", g, err)
	}
}
