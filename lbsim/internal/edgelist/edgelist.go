// Package edgelist reads the edge-list text format shared by package graph
// (vertex pairs) and package compat (type-server pairs): one pair of 0-based
// ids per line separated by white space, '#' starting a comment to the end of
// the line, blank lines skipped.
package edgelist

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxPairs bounds the pairs of one edge list, checked before each pair is
// passed on (and so before the reader stores it): 2^24 pairs of ids take
// 128 MiB as two uint32 slices, about 400 MB while they grow and the graph
// is built. A file of param.MaxDataFileBytes made of "0 1" lines holds 4
// times as many: refused at the limit instead of allocated. A real file of
// that size, with ids of 7 digits, holds about 2^24 pairs.
const MaxPairs = 1 << 24

// Format names what a file holds, for error messages: Pkg prefixes them
// ("graph"), Want says what a line must hold ("two vertex ids") and IDs name
// the two ids ("vertex id", "vertex id").
type Format struct {
	Pkg  string
	Want string
	IDs  [2]string
}

// Read calls pair with each line's number (from 1) and its two ids (each
// below 2^32), in order, and stops at the first error, its own (naming the
// line: a bad line, more than MaxPairs pairs) or pair's (returned as is).
func Read(r io.Reader, f Format, pair func(line int, a, b uint32) error) error {
	return read(r, f, false, func(line int, a, b uint32, _ float64) error { return pair(line, a, b) })
}

// ReadWeighted is Read for lines that may carry a third field, a weight (a
// finite number; 1 when absent).
func ReadWeighted(r io.Reader, f Format, pair func(line int, a, b uint32, w float64) error) error {
	return read(r, f, true, pair)
}

func read(r io.Reader, f Format, weighted bool, pair func(line int, a, b uint32, w float64) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line, pairs := 0, 0
	// bad reports a line's error, unless the line is the end of input cut
	// short by a read error (a size limit): then that error is the cause.
	bad := func(err error) error {
		if !sc.Scan() && sc.Err() != nil {
			return fmt.Errorf("%s: edge list line %d: %w", f.Pkg, line, sc.Err())
		}
		return err
	}
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		fields := strings.Fields(s)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 && !(weighted && len(fields) == 3) {
			return bad(fmt.Errorf("%s: edge list line %d: want %s, got %d fields", f.Pkg, line, f.Want, len(fields)))
		}
		var ids [2]uint32
		for i, x := range fields[:2] {
			v, err := strconv.ParseUint(x, 10, 32)
			if err != nil {
				return bad(fmt.Errorf("%s: edge list line %d: bad %s %q", f.Pkg, line, f.IDs[i], x))
			}
			ids[i] = uint32(v)
		}
		w := 1.0
		if len(fields) == 3 {
			x, err := strconv.ParseFloat(fields[2], 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return bad(fmt.Errorf("%s: edge list line %d: bad weight %q (want a finite number)", f.Pkg, line, fields[2]))
			}
			w = x
		}
		if pairs++; pairs > MaxPairs {
			return fmt.Errorf("%s: edge list line %d: more than %d pairs; lbsim reads at most %d from one file", f.Pkg, line, MaxPairs, MaxPairs)
		}
		if err := pair(line, ids[0], ids[1], w); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: edge list line %d: %w", f.Pkg, line+1, err)
	}
	return nil
}
