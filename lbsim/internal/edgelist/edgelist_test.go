package edgelist

import (
	"errors"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	f := Format{Pkg: "graph", Want: "two vertex ids", IDs: [2]string{"vertex id", "vertex id"}}
	var got [][3]uint32
	in := "# a comment\n\n0 1\n  2\t3  # trailing comment\n4294967295 0\n"
	err := Read(strings.NewReader(in), f, func(line int, a, b uint32) error {
		got = append(got, [3]uint32{uint32(line), a, b})
		return nil
	})
	want := [][3]uint32{{3, 0, 1}, {4, 2, 3}, {5, 4294967295, 0}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("Read = %v, %v; want %v", got, err, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d = %v, want %v", i, got[i], want[i])
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"0 1\n1\n", "graph: edge list line 2: want two vertex ids, got 1 fields"},
		{"0 1 2\n", "graph: edge list line 1: want two vertex ids, got 3 fields"},
		{"0 -1\n", "graph: edge list line 1: bad vertex id \"-1\""},
		{"4294967296 0\n", "graph: edge list line 1: bad vertex id \"4294967296\""},
		{"x 0\n", "graph: edge list line 1: bad vertex id \"x\""},
		{strings.Repeat("1", 2<<20) + " 0\n", "graph: edge list line 1: bufio.Scanner: token too long"},
	} {
		err := Read(strings.NewReader(c.in), f, func(int, uint32, uint32) error { return nil })
		if err == nil || err.Error() != c.msg {
			t.Errorf("%.20q: err = %v, want %q", c.in, err, c.msg)
		}
	}
	stop := errors.New("stop")
	calls := 0
	err = Read(strings.NewReader("0 1\n1 2\n"), f, func(int, uint32, uint32) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("pair's error: %v after %d calls, want it returned as is after 1", err, calls)
	}
}

// repeat is an endless reader of one line.
type repeat struct {
	line string
	off  int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}

// An endless list of one short pair stops after MaxPairs pairs, before the
// next is passed on (a file of "0 1" lines at the size limit held 4 times as
// many, all stored).
func TestMaxPairs(t *testing.T) {
	f := Format{Pkg: "graph", Want: "two vertex ids", IDs: [2]string{"vertex id", "vertex id"}}
	n := 0
	err := Read(&repeat{line: "0 1\n"}, f, func(int, uint32, uint32) error { n++; return nil })
	if want := "graph: edge list line 16777217: more than 16777216 pairs"; err == nil || !strings.Contains(err.Error(), want) || n != MaxPairs {
		t.Errorf("Read: %d pairs, %v; want %d pairs and an error with %q", n, err, MaxPairs, want)
	}
}
