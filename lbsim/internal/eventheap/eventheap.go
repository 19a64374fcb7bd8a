// Package eventheap is the event list of the general engine: an indexed
// binary min-heap of servers keyed by the time of their next service
// completion.
package eventheap

// Heap is an indexed binary min-heap of servers keyed by the time of
// their next service completion: the event list of the general engine. Each
// busy server is in it once; pos[j] is the slot of server j (-1 when it is
// not in the heap), which makes changing a server's key (Set) O(log N). The
// slots hold the key next to the server, so a comparison touches one slot.
// Nothing allocates after New.
//
// Under FIFO only the top server's key ever changes (Push, ReplaceTop,
// PopTop), so the engine builds the heap without the index (indexed false):
// keeping pos would cost a scattered write per level moved.
type Heap struct {
	e       []heapEntry
	pos     []int32
	indexed bool
}

type heapEntry struct {
	key float64
	j   int32
}

// New returns an empty heap for servers 0, ..., n-1, with the index when
// indexed is set (needed by Set).
func New(n int, indexed bool) *Heap {
	h := &Heap{e: make([]heapEntry, 0, n), indexed: indexed}
	if indexed {
		h.pos = make([]int32, n)
		for j := range h.pos {
			h.pos[j] = -1
		}
	}
	return h
}

// Len returns the number of servers in the heap.
func (h *Heap) Len() int { return len(h.e) }

// Top returns the server with the smallest key and its key; the heap must not
// be empty.
func (h *Heap) Top() (int, float64) { return int(h.e[0].j), h.e[0].key }

// Push adds server j, which is not in the heap, with the given key.
func (h *Heap) Push(j int, key float64) {
	k := len(h.e)
	h.e = append(h.e, heapEntry{key, int32(j)})
	h.up(k, heapEntry{key, int32(j)})
}

// Set changes the key of server j, which is in the heap (indexed heaps only).
func (h *Heap) Set(j int, key float64) {
	k := int(h.pos[j])
	x := heapEntry{key, int32(j)}
	if k > 0 && key < h.e[(k-1)/2].key {
		h.up(k, x)
	} else {
		h.down(k, x)
	}
}

// ReplaceTop gives the top server a new key (>= its old one, as when a server
// starts serving its next task).
func (h *Heap) ReplaceTop(key float64) {
	h.down(0, heapEntry{key, h.e[0].j})
}

// PopTop removes the top server.
func (h *Heap) PopTop() {
	last := len(h.e) - 1
	if h.indexed {
		h.pos[h.e[0].j] = -1
	}
	x := h.e[last]
	h.e = h.e[:last]
	if last > 0 {
		h.down(0, x)
	}
}

// up places x at slot k or above, moving larger parents down.
func (h *Heap) up(k int, x heapEntry) {
	e := h.e
	for k > 0 {
		p := (k - 1) / 2
		if e[p].key <= x.key {
			break
		}
		e[k] = e[p]
		if h.indexed {
			h.pos[e[k].j] = int32(k)
		}
		k = p
	}
	e[k] = x
	if h.indexed {
		h.pos[x.j] = int32(k)
	}
}

// down places x at slot k or below, moving smaller children up.
func (h *Heap) down(k int, x heapEntry) {
	e := h.e
	n := len(e)
	for {
		c := 2*k + 1
		if c >= n {
			break
		}
		if c+1 < n && e[c+1].key < e[c].key {
			c++
		}
		if x.key <= e[c].key {
			break
		}
		e[k] = e[c]
		if h.indexed {
			h.pos[e[k].j] = int32(k)
		}
		k = c
	}
	e[k] = x
	if h.indexed {
		h.pos[x.j] = int32(k)
	}
}
