package csr

import (
	"slices"
	"testing"
)

func TestSortDedupe(t *testing.T) {
	// Lists: [3 1 3 2], [], [5 5 5], [0], with off not starting at 0 in adj's
	// first slot being irrelevant: off[0] = 0 here.
	off := []uint64{0, 4, 4, 7, 8}
	adj := []uint32{3, 1, 3, 2, 5, 5, 5, 0}
	off, adj = SortDedupe(off, adj)
	if want := []uint64{0, 3, 3, 4, 5}; !slices.Equal(off, want) {
		t.Errorf("off = %v, want %v", off, want)
	}
	if want := []uint32{1, 2, 3, 5, 0}; !slices.Equal(adj, want) || cap(adj) != len(want) {
		t.Errorf("adj = %v (cap %d), want %v", adj, cap(adj), want)
	}
	// No lists at all.
	off, adj = SortDedupe([]uint64{0}, nil)
	if len(off) != 1 || off[0] != 0 || len(adj) != 0 {
		t.Errorf("empty: off %v, adj %v", off, adj)
	}
}
