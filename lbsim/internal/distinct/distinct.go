// Package distinct draws d distinct indices out of n, uniformly (a uniform
// random d-subset, in uniformly random order), by a partial Fisher-Yates
// shuffle of a scratch identity permutation that it restores afterwards in
// O(d): the sampling of the power-of-d policies when d is too large for
// redrawing duplicates.
package distinct

// Perm is a scratch permutation of [0, n), the identity between draws. One
// Perm serves one sampler at a time (a prepared policy for a replication).
// Perm[:m] is itself the identity on [0, m), so a Perm of the largest size
// serves draws out of any smaller n.
type Perm []int32

// Identity returns the identity permutation of [0, n).
func Identity(n int) Perm {
	a := make(Perm, n)
	for j := range a {
		a[j] = int32(j)
	}
	return a
}

// Draw draws d distinct uniform indices of [0, len(a)), 1 <= d <= len(a): for
// pos = 0, ..., d-1 it calls uniform(m) with m = len(a) - pos for a uniform
// integer in [0, m), swaps a[pos] with a[pos + that], and calls visit with the
// index now at a[pos]. So the draws are made in that order, one call to
// uniform each, interleaved with the visits, and visit may draw too. Then it
// restores the identity: a value >= d that was moved always ends among the
// first d positions, so two passes over those restore the permutation.
func (a Perm) Draw(d int, uniform func(m uint32) uint32, visit func(j int32)) {
	n, k := uint32(len(a)), int32(d)
	for pos := int32(0); pos < k; pos++ {
		o := pos + int32(uniform(n-uint32(pos)))
		a[pos], a[o] = a[o], a[pos]
		visit(a[pos])
	}
	for pos := int32(0); pos < k; pos++ {
		if j := a[pos]; j >= k {
			a[j] = j
		}
	}
	for pos := int32(0); pos < k; pos++ {
		a[pos] = pos
	}
}
