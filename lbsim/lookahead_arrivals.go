package lbsim

import (
	"math/bits"
	"math/rand/v2"
	"unsafe"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
)

// candidates is what one arrival compares in loopArrivals: the servers a, b
// and c (c = a when only two are sampled), and tie, which when set sends a
// task to b rather than a when their lengths are equal. The task joins a if
// nothing is shorter, else b if it is shorter than a or ties with it and tie
// is set, then c if c is shorter still.
type candidates struct{ a, b, c, tie uint32 }

// arrivalKind says how aheadArrivals samples the candidates.
type arrivalKind uint8

const (
	// Two distinct uniform servers, ties to the first drawn (JSQ(2) without
	// replacement; the same draws as twoDistinct).
	twoWithout arrivalKind = iota
	// Two and three independent uniform servers, ties to the first drawn
	// (JSQ(2) and JSQ(3) with replacement, as jsqd.Dispatch).
	twoWith
	threeWith
	// A uniform origin and one uniform neighbour of it, ties broken by a fair
	// coin (neighbour-jsqd with d = 2, as neighbourJSQd.Dispatch).
	localTwo
)

// arrivalRing is the number of arrivals aheadArrivals holds: up to three
// batches of lookahead being resolved and one being used.
const arrivalRing = 4 * lookahead

// aheadArrivals hands out the candidates of arrivals in the order they were
// drawn, drawn depth batches of lookahead arrivals before their use so that
// what the loop reads has been prefetched. The candidates of a graph policy
// are found in up to three stages, each a batch apart and each prefetching
// what the next reads: the origin (and its list's offset), then the
// neighbour's position in the adjacency array, then the neighbour (and its
// queue length). On an implicit graph (ring, torus, circulant) or a regular
// one stored with constant stride the first or second stage finds the
// neighbour directly.
//
// As for aheadDraws, this does not change the law of the chain: every draw is
// independent of all other random numbers and of the state, and nothing reads
// it before it is handed out, so the candidates are distributed as ones drawn
// at the moment of use. The engine's own draws (event times and kinds) are
// interleaved with these differently from a policy's Dispatch, so the bytes of
// a run differ from the ones Dispatch would give, not their law.
type aheadArrivals struct {
	src    *rand.PCG
	length []int32
	n      uint32
	kind   arrivalKind
	depth  uint32 // batches between the draw and the use: 1, 2 or 3
	far    bool   // prefetch: the data read do not fit in the caches (farData)
	used   uint32 // arrivals handed out so far
	ring   [arrivalRing]candidates
	// Graph of localTwo: on an implicit graph, step[i] is neighbour i minus
	// the vertex, before wrapping (circulant: +s and -s per shift s; torus of
	// side L: +1, -1, +L, -L, with the row steps dx and Lemire's fastmod
	// constant sideM); else the stored lists. deg is the common degree of an
	// implicit graph or of lists with stride deg.
	step  []int64
	dx    [4]int64
	side  uint32
	sideM uint64
	deg   uint32
	off   []uint64
	adj   []uint32
	pos   [arrivalRing]uint64 // adjacency positions between stages 2 and 3
}

// newAheadArrivals starts the ring for kind (twoWithout needs n >= 2);
// localTwo needs the graph g.
func newAheadArrivals(src *rand.PCG, length []int32, kind arrivalKind, g *graph.Graph) *aheadArrivals {
	h := &aheadArrivals{src: src, length: length, n: uint32(len(length)), kind: kind, depth: 1}
	if kind == localTwo {
		h.setGraph(g)
	}
	h.far = farData(4*len(length) + 8*len(h.off) + 4*len(h.adj))
	for m := range h.depth {
		h.draw(m * lookahead)
	}
	for m := uint32(0); m+1 < h.depth; m++ {
		for k := uint32(1); k < h.depth-m; k++ {
			h.stage(k, m*lookahead)
		}
	}
	return h
}

func (h *aheadArrivals) setGraph(g *graph.Graph) {
	if shape, ok := g.Implicit(); ok {
		if l := int64(shape.Side); l > 0 {
			h.side = uint32(l)
			h.sideM = ^uint64(0)/uint64(l) + 1
			h.step = []int64{1, -1, l, -l}
			h.dx = [4]int64{1, -1, 0, 0}
		}
		for _, s := range shape.Shifts {
			h.step = append(h.step, int64(s), -int64(s))
		}
		h.deg = uint32(len(h.step))
		return
	}
	h.off, h.adj = g.Offsets(), g.Adjacency()
	h.depth = 3
	if d := h.off[1] - h.off[0]; d > 0 {
		for v, o := range h.off {
			if o != uint64(v)*d {
				return
			}
		}
		h.deg, h.depth = uint32(d), 2
	}
}

// next returns the candidates of the next arrival (written out in
// loopArrivals, so that it inlines there).
func (h *aheadArrivals) next() candidates {
	if h.used%lookahead == 0 {
		h.advance()
	}
	c := h.ring[h.used%arrivalRing]
	h.used++
	return c
}

// advance is called before the first use of each batch: it draws the batch
// depth batches ahead and moves the ones in between a stage on.
func (h *aheadArrivals) advance() {
	u := h.used
	for k := uint32(1); k < h.depth; k++ {
		h.stage(k, u+(h.depth-k)*lookahead)
	}
	h.draw(u + h.depth*lookahead)
}

// bounded returns a uniform integer in [0, m) from the 32 random bits x
// (Lemire's method, redrawing from src in the rare biased case).
func (h *aheadArrivals) bounded(x, m uint32) uint32 {
	p := uint64(x) * uint64(m)
	if uint32(p) < m {
		p = fastrand.BoundedRetry(h.src, p, m)
	}
	return uint32(p >> 32)
}

func prefetchAny[T any](p *T) { prefetch((*int32)(unsafe.Pointer(p))) }

// draw draws the batch of lookahead arrivals at ring position from.
func (h *aheadArrivals) draw(from uint32) {
	batch := h.ring[from%arrivalRing : from%arrivalRing+lookahead]
	n := h.n
	switch h.kind {
	case twoWithout: // twoDistinct, as refillPairs did
		for k := range batch {
			a, b := distinctPair(h.src, n)
			if h.far {
				prefetch(&h.length[a])
				prefetch(&h.length[b])
			}
			batch[k] = candidates{a: a, b: b, c: a}
		}
	case twoWith:
		for k := range batch {
			x := h.src.Uint64()
			a, b := h.bounded(uint32(x), n), h.bounded(uint32(x>>32), n)
			if h.far {
				prefetch(&h.length[a])
				prefetch(&h.length[b])
			}
			batch[k] = candidates{a: a, b: b, c: a}
		}
	case threeWith:
		for k := 0; k < len(batch); k += 2 {
			x, y, z := h.src.Uint64(), h.src.Uint64(), h.src.Uint64()
			s := [6]uint32{uint32(x), uint32(x >> 32), uint32(y), uint32(y >> 32), uint32(z), uint32(z >> 32)}
			for i := range s {
				s[i] = h.bounded(s[i], n)
				if h.far {
					prefetch(&h.length[s[i]])
				}
			}
			batch[k] = candidates{a: s[0], b: s[1], c: s[2]}
			batch[k+1] = candidates{a: s[3], b: s[4], c: s[5]}
		}
	case localTwo:
		coins := h.src.Uint64()
		for k := range batch {
			x := h.src.Uint64()
			o := h.bounded(uint32(x), n)
			c := candidates{a: o, b: o, c: o, tie: uint32(coins>>k) & 1}
			if h.far {
				prefetch(&h.length[o])
			}
			switch {
			case h.off == nil: // implicit: the neighbour now
				if h.deg > 0 {
					c.b = h.neighbour(o, h.bounded(uint32(x>>32), h.deg))
					if h.far {
						prefetch(&h.length[c.b])
					}
				}
			case h.depth == 2: // stride: the position now
				p := uint64(o)*uint64(h.deg) + uint64(h.bounded(uint32(x>>32), h.deg))
				h.pos[(from+uint32(k))%arrivalRing] = p
				if h.far {
					prefetchAny(&h.adj[p])
				}
			default: // the offset now, the position at stage 1
				c.b = uint32(x >> 32) // random bits for stage 1
				if h.far {
					prefetchAny(&h.off[o])
				}
			}
			batch[k] = c
		}
	}
}

// neighbour returns neighbour i of o on an implicit graph, in the order of
// graph.Shape: o plus a step (step[i]), corrected in the rare case it leaves
// the row of a torus or the range [0, n). (Every branch taken depends on i
// only through a rare wrap, so none is mispredicted.)
func (h *aheadArrivals) neighbour(o, i uint32) uint32 {
	n := int64(h.n)
	v := int64(o) + h.step[i]
	if h.side != 0 {
		l := h.side
		hi, _ := bits.Mul64(h.sideM*uint64(o), uint64(l)) // o mod l (Lemire's fastmod)
		if x := int64(hi) + h.dx[i]; uint64(x) >= uint64(l) {
			v -= h.dx[i] * int64(l) // x+1 past the row's end or x-1 before its start
		}
	}
	if uint64(v) >= uint64(n) {
		if v < 0 {
			v += n
		} else {
			v -= n
		}
	}
	return uint32(v)
}

// stage moves the localTwo batch at ring position from through stage k of
// the lists: 1 (when depth is 3) finds the neighbour's position, 2 (or 1 when
// depth is 2) reads the neighbour.
func (h *aheadArrivals) stage(k, from uint32) {
	from %= arrivalRing
	batch := h.ring[from : from+lookahead]
	if k == 1 && h.depth == 3 {
		for i := range batch {
			c := &batch[i]
			o := c.a
			start, end := h.off[o], h.off[o+1]
			p := ^uint64(0) // no neighbour: the origin
			if end > start {
				p = start + uint64(h.bounded(c.b, uint32(end-start)))
				if h.far {
					prefetchAny(&h.adj[p])
				}
			}
			h.pos[from+uint32(i)] = p
		}
		return
	}
	for i := range batch {
		c := &batch[i]
		c.b = c.a
		if p := h.pos[from+uint32(i)]; p != ^uint64(0) {
			c.b = h.adj[p]
			if h.far {
				prefetch(&h.length[c.b])
			}
		}
	}
}
