// Package csr holds what package graph (vertex adjacency) and package compat
// (type-server compatibility) share about lists stored in compressed sparse
// row form: list v is adj[off[v]:off[v+1]], len(off) = number of lists + 1.
package csr

import "slices"

// SortDedupe sorts every list of (off, adj) and removes duplicates within a
// list, compacting adj in place and rewriting off to match. It returns off
// and adj[:w:w], w the number of entries left; the capacity of adj beyond w
// is not released (callers that keep the graph long may clone it).
func SortDedupe(off []uint64, adj []uint32) ([]uint64, []uint32) {
	w := uint64(0)
	start := off[0]
	for v := 0; v+1 < len(off); v++ {
		end := off[v+1]
		row := adj[start:end]
		slices.Sort(row)
		off[v] = w
		for i, x := range row {
			if i > 0 && x == row[i-1] {
				continue
			}
			adj[w] = x
			w++
		}
		start = end
	}
	off[len(off)-1] = w
	return off, adj[:w:w]
}
