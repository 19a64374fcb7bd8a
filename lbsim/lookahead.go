package lbsim

import (
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
)

// lookahead is how many uniform servers (or pairs) the engine draws at least
// before it needs them. At large N the queue lengths do not fit in the
// caches, and reading length[j] for a server j drawn just now stalls the loop;
// a server drawn lookahead uses earlier was prefetched then, so its length is
// in the cache when it is needed.
const lookahead = 8

// aheadDraws hands out uniform servers, and ordered pairs of distinct uniform
// servers, in the order they were drawn. Each kind is a ring of two halves of
// lookahead draws: entering one half refills the other, which was used up, so
// the calls that draw and prefetch are amortised over lookahead uses.
//
// This does not change the law of the chain: a draw is independent of every
// other random number and nothing reads it before it is handed out
// (prefetching its length does not affect the simulation), so it is
// distributed as one drawn at the moment of use, independently of the state
// then.
type aheadDraws struct {
	src    *rand.PCG
	length []int32
	n      uint32
	pairs  [2 * lookahead]uint64 // a | b<<32
	single [2 * lookahead]uint32
	pi, si uint32 // uses so far
	far    bool   // prefetch (farData)
}

// farData reports whether data of the given size (bytes) that a loop reads at
// random is worth prefetching: beyond a quarter of the second-level cache
// (1 MiB per core on the machines measured), with other data competing for
// it, reads would wait on the third level or memory; below, the prefetch
// instructions only cost time.
func farData(bytes int) bool { return bytes > 1<<18 }

// newAheadDraws starts the rings (the pair ring only if pairs is set; it needs
// N >= 2).
func newAheadDraws(src *rand.PCG, length []int32, pairs bool) *aheadDraws {
	d := &aheadDraws{src: src, length: length, n: uint32(len(length)), far: farData(4 * len(length))}
	// The first half is drawn now; the first use draws the second.
	d.pi, d.si = lookahead, lookahead
	if pairs {
		d.refillPairs()
	}
	d.refillSingle()
	d.pi, d.si = 0, 0
	return d
}

// pair returns the next ordered pair of distinct uniform servers (N >= 2).
func (d *aheadDraws) pair() (a, b int) {
	if d.pi%lookahead == 0 {
		d.refillPairs()
	}
	v := d.pairs[d.pi%(2*lookahead)]
	d.pi++
	return int(uint32(v)), int(v >> 32)
}

// one returns the next uniform server.
func (d *aheadDraws) one() int {
	if d.si%lookahead == 0 {
		d.refillSingle()
	}
	v := d.single[d.si%(2*lookahead)]
	d.si++
	return int(v)
}

// refillPairs draws the half of the pair ring that pi is not in, with
// twoDistinct's method: two exact Lemire draws from one 64-bit number, the
// second shifted past the first.
func (d *aheadDraws) refillPairs() {
	from := (d.pi + lookahead) % (2 * lookahead)
	for k := range d.pairs[from : from+lookahead] {
		a, b := distinctPair(d.src, d.n)
		if d.far {
			prefetch(&d.length[a])
			prefetch(&d.length[b])
		}
		d.pairs[from+uint32(k)] = uint64(a) | uint64(b)<<32
	}
}

// distinctPair draws an ordered pair of distinct uniform servers in [0, n)
// with twoDistinct's method.
func distinctPair(src *rand.PCG, n uint32) (a, b uint32) {
	x := src.Uint64()
	ma := uint64(uint32(x)) * uint64(n)
	mb := (x >> 32) * uint64(n-1)
	if uint32(ma) < n || uint32(mb) < n-1 {
		ma = fastrand.BoundedRetry(src, ma, n)
		mb = fastrand.BoundedRetry(src, mb, n-1)
	}
	a, b = uint32(ma>>32), uint32(mb>>32)
	if b >= a {
		b++
	}
	return a, b
}

// refillSingle draws the half of the server ring that si is not in, by exact
// Lemire draws, two from each 64-bit number.
func (d *aheadDraws) refillSingle() {
	n := d.n
	from := (d.si + lookahead) % (2 * lookahead)
	half := d.single[from : from+lookahead]
	for k := 0; k < len(half); k += 2 {
		x := d.src.Uint64()
		ma := uint64(uint32(x)) * uint64(n)
		mb := (x >> 32) * uint64(n)
		if uint32(ma) < n || uint32(mb) < n {
			ma = fastrand.BoundedRetry(d.src, ma, n)
			mb = fastrand.BoundedRetry(d.src, mb, n)
		}
		a, b := uint32(ma>>32), uint32(mb>>32)
		if d.far {
			prefetch(&d.length[a])
			prefetch(&d.length[b])
		}
		half[k], half[k+1] = a, b
	}
}
