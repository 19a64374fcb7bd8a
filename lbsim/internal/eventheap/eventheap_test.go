package eventheap

import (
	"math/rand/v2"
	"testing"
)

// A random sequence of operations keeps the heap consistent with a plain map
// of keys: the top is always a server with the smallest key, and the index
// tracks every server's slot.
func TestHeapMatchesMap(t *testing.T) {
	const n = 50
	for _, indexed := range []bool{false, true} {
		h := New(n, indexed)
		keys := map[int]float64{}
		r := rand.New(rand.NewPCG(5, 6))
		for step := range 100000 {
			switch op := r.IntN(4); {
			case op == 0 && len(keys) < n:
				j := r.IntN(n)
				if _, in := keys[j]; in {
					continue
				}
				keys[j] = r.Float64()
				h.Push(j, keys[j])
			case op == 1 && indexed && len(keys) > 0:
				j := r.IntN(n)
				if _, in := keys[j]; !in {
					continue
				}
				keys[j] = r.Float64()
				h.Set(j, keys[j])
			case op == 2 && len(keys) > 0:
				j, k := h.Top()
				keys[j] = k + r.Float64()
				h.ReplaceTop(keys[j])
			case op == 3 && len(keys) > 0:
				j, _ := h.Top()
				delete(keys, j)
				h.PopTop()
			}
			if h.Len() != len(keys) {
				t.Fatalf("step %d: Len = %d, want %d", step, h.Len(), len(keys))
			}
			if len(keys) == 0 {
				continue
			}
			j, k := h.Top()
			if keys[j] != k {
				t.Fatalf("step %d: Top = (%d, %v), but the key of %d is %v", step, j, k, j, keys[j])
			}
			for _, v := range keys {
				if v < k {
					t.Fatalf("step %d: Top key %v, but %v is in the heap", step, k, v)
				}
			}
			if indexed {
				for i, e := range h.e {
					if h.pos[e.j] != int32(i) {
						t.Fatalf("step %d: pos[%d] = %d, slot %d", step, e.j, h.pos[e.j], i)
					}
				}
			}
		}
	}
}
