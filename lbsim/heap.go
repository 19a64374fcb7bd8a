package lbsim

// eventHeap is an indexed binary min-heap of servers keyed by the time of
// their next service completion: the event list of the general engine. Each
// busy server is in it once; pos[j] is the slot of server j (-1 when it is
// not in the heap), which makes changing a server's key (set) O(log N). The
// slots hold the key next to the server, so a comparison touches one slot.
// Nothing allocates after newEventHeap.
//
// Under FIFO only the top server's key ever changes (push, replaceTop,
// popTop), so the engine builds the heap without the index (indexed false):
// keeping pos would cost a scattered write per level moved.
type eventHeap struct {
	e       []heapEntry
	pos     []int32
	indexed bool
}

type heapEntry struct {
	key float64
	j   int32
}

func newEventHeap(n int, indexed bool) *eventHeap {
	h := &eventHeap{e: make([]heapEntry, 0, n), indexed: indexed}
	if indexed {
		h.pos = make([]int32, n)
		for j := range h.pos {
			h.pos[j] = -1
		}
	}
	return h
}

// len returns the number of servers in the heap.
func (h *eventHeap) len() int { return len(h.e) }

// top returns the server with the smallest key and its key; the heap must not
// be empty.
func (h *eventHeap) top() (int, float64) { return int(h.e[0].j), h.e[0].key }

// push adds server j, which is not in the heap, with the given key.
func (h *eventHeap) push(j int, key float64) {
	k := len(h.e)
	h.e = append(h.e, heapEntry{key, int32(j)})
	h.up(k, heapEntry{key, int32(j)})
}

// set changes the key of server j, which is in the heap (indexed heaps only).
func (h *eventHeap) set(j int, key float64) {
	k := int(h.pos[j])
	x := heapEntry{key, int32(j)}
	if k > 0 && key < h.e[(k-1)/2].key {
		h.up(k, x)
	} else {
		h.down(k, x)
	}
}

// replaceTop gives the top server a new key (>= its old one, as when a server
// starts serving its next task).
func (h *eventHeap) replaceTop(key float64) {
	h.down(0, heapEntry{key, h.e[0].j})
}

// popTop removes the top server.
func (h *eventHeap) popTop() {
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
func (h *eventHeap) up(k int, x heapEntry) {
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
func (h *eventHeap) down(k int, x heapEntry) {
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
