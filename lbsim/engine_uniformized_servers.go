package lbsim

import (
	"context"
	"math/rand/v2"
	"unsafe"

	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
)

// The per-server loop of the uniformized chain: JSQ(2), with or without
// replacement, on N <= uniformServersMax servers, run by the uniformized
// engine (EngineUniformized) and by the per-server engine (EngineServers)
// for the same scenarios.
//
// It makes the steps of uniformChain (rate N (lambda + mu), an arrival with
// probability lambda / (lambda + mu), else a potential departure from a
// uniform server) on the queue length of each server instead of the
// occupancy counts: an arrival samples two servers a and b and joins the
// shorter (a on a tie: the pair is exchangeable, so either is uniform among
// the tied ones), a departure lowers the length of a if it is busy. The
// occupancy counts of the per-server chain have the law of the counts'
// chain (the servers are exchangeable), and the estimators are the same
// (uniformChain's sums per level, brought up to date by settle).
//
// Why per server: the length of a sampled server is one load, where the
// counts need a comparison per occupied level, and a step does not read
// what the previous step wrote (two sampled servers rarely are the one just
// changed), so the processor overlaps consecutive steps. Memory: N + 1
// bytes (a byte per length: at N = 10^5 the lengths fit in a quarter of the
// L2 cache and in the first-level TLB's reach).
//
// Each step takes one 64-bit draw of wyrand (fastrand.Wyrand: one register
// of state, where xoshiro256** needs four and the loop has none to spare):
// the kind of event from its top 12 bits (fastrand.NewArrivalCutBits; a
// tie, probability 2^-12, goes to the exact slow step), the ranks a and b
// from two 26-bit fields by Lemire's method (a field in the rejected zone,
// probability below N / 2^26 each, also goes to the slow step, which
// redraws it exactly: fastrand.BoundedBits). No branch depends on the draws:
// a departure takes the sentinel q[N] as its second server, so that it
// "joins" a, the shorter of a and q[N]; the length changes by 2 arr - 1,
// clamped at 0 (a departure from an idle server changes nothing); and the
// bookkeeping is one add per step (serversAcc). Nothing is mispredicted,
// where a loop that branches on the kind of event (the C loop of
// scripts/peers) is wrong about every other step.

// uniformServersMax is the largest N the per-server loop runs on (the
// rejected zone of the 26-bit ranks stays below 1/64).
const uniformServersMax = 1 << 20

// rankBits is the width of the random field of each rank.
const rankBits = 26

// eventBits is the width of the random field of the kind of event.
const eventBits = 12

// serversTop bounds the queue lengths serversSteps handles (the size of
// serversAcc's halves); longer queues take the slow step.
const serversTop = 63

// serversAcc holds, for the steps since the last settle, per queue length
// l: [2l + 1] the arrivals that joined a queue of length l (raising
// C_{l+1}) and [2l] the departures from a queue of length l (lowering C_l;
// at [0], from idle servers), each as the number of steps plus 2^accShift
// times the sum of their indices relative to uniformChain.base: one add per
// step. A settle comes at least every checkEvery steps, so the count stays
// below 2^accShift and the sum of indices below 2^(2 log2 checkEvery).
type serversAcc [2 * (serversTop + 1)]uint64

// accShift is the position of the sum of indices in a serversAcc entry.
const accShift = 20

// servers is the per-server state of a uniformChain.
type servers struct {
	q     []uint8 // the queue lengths (at most serversMaxLen); q[N] is the sentinel idle
	n     uint64  // N
	n1    uint64  // the range of the second rank: N with replacement, N - 1 without
	shift uint64  // 0 with replacement, 1 without (the second rank skips the first)
	tail  uint64  // the largest rejected zone of the two 26-bit ranks
	cut   fastrand.ArrivalCut
	acc   serversAcc
	base  int64 // the index of the step the acc's indices are relative to
}

// idle is the length of the sentinel server q[N], longer than any.
const idle = 255

// serversMaxLen is the longest queue the per-server state holds: an
// arrival that would make one longer turns the chain to the counts alone
// (uniformChain.run2), which continue it exactly.
const serversMaxLen = 250

// newServers returns the per-server state of N servers with lengths q
// (which it takes, with room for the sentinel), for arrivals with
// probability p.
func newServers(q []uint8, with bool, p float64) *servers {
	n := uint64(len(q))
	s := &servers{q: append(q, idle), n: n, n1: n, cut: fastrand.NewArrivalCutBits(p, eventBits)}
	if !with {
		s.n1, s.shift = n-1, 1
	}
	s.tail = max((1<<rankBits)%n, (1<<rankBits)%s.n1)
	return s
}

// sortedLengths returns the queue lengths of N servers with the occupancy
// counts c (c[0] = N), the longest first, or nil if one is longer than
// serversMaxLen.
func sortedLengths(c []int64) []uint8 {
	if len(c) > serversMaxLen+2 { // c ends with a 0
		return nil
	}
	q := make([]uint8, c[0], c[0]+1)
	for l := 1; l < len(c); l++ {
		for r := int64(0); r < c[l]; r++ {
			q[r] = uint8(l)
		}
	}
	return q
}

// serversSteps makes count steps, the first of index base + k + 1, each
// from a draw of w, and returns how many it made and w's state after them:
// all, or up to the first that needs the slow step (a tie of the event, a
// rank in its rejected zone, a queue of length serversTop), with w's state
// after that step's draw (whose value is then w.Last()). Each draw gives
// the kind of event from its top eventBits bits and the two ranks a and b
// from two rankBits-bit fields; a departure takes b = N, the sentinel.
func serversSteps(s *servers, w fastrand.Wyrand, k int64, count int) (int, fastrand.Wyrand) {
	const mask = 1<<rankBits - 1
	q, acc := s.q, &s.acc
	kk := uint64(k)<<accShift | 1 // the next step's entry, minus 2^accShift
	for i := 0; i < count; i++ {
		var x uint64
		w, x = w.Next()
		ra := (x & mask) * s.n
		rb := (x >> rankBits & mask) * s.n1
		e := uint32(x >> (64 - eventBits))
		if min(ra&mask, rb&mask) < s.tail || e == s.cut.Cut() {
			return i, w
		}
		a, b := ra>>rankBits, rb>>rankBits
		if s.shift != 0 { // without replacement, past a (a branch always taken the same way)
			b += (a - b - 1) >> 63
		}
		arr := uint64(b2i(e < s.cut.Cut()))
		b ^= (b ^ s.n) & (arr - 1) // a departure: the sentinel
		// a < N and b <= N (Lemire's ranks), so q needs no bounds check.
		la, lb := int64(lengthAt(q, a)), int64(lengthAt(q, b))
		// The shorter, a on a tie, with no branch (m is all ones iff lb <
		// la), and its length read again (a load is cheaper than selecting).
		m := uint64((lb - la) >> 63)
		j := a ^ ((a ^ b) & m)
		l := int32(lengthAt(q, j))
		if l >= serversTop {
			return i, w
		}
		// +1 for an arrival, -1 for a departure, none from an idle server.
		*lengthPtr(q, j) = uint8(max(l+int32(2*arr)-1, 0))
		kk += 1 << accShift
		acc[(2*l+int32(arr))&(2*serversTop+1)] += kk
	}
	return count, w
}

// runServers2 makes the steps of index from..to-1 on the per-server state.
func (ch *uniformChain) runServers2(from, to int64) {
	s := ch.srv
	ch.settle(from - 1)
	for k := from; k < to; {
		done, w := serversSteps(s, ch.w, k-1-s.base, int(to-k))
		ch.w = w
		k += int64(done)
		if k < to { // the rare step
			a, b := ch.serverRanks(w.Last())
			ch.serverStep(k, a, b)
			k++
			if ch.srv == nil { // a queue too long for the per-server state
				ch.run2(k, to)
				return
			}
		}
	}
	ch.settle(to - 1)
}

// serverRanks returns the ranks a and b of the draw x, exactly, redrawing a
// rank in its rejected zone and deciding a tie of the event from ch.src; b
// is N for a departure.
func (ch *uniformChain) serverRanks(x uint64) (uint64, uint64) {
	const mask = 1<<rankBits - 1
	s := ch.srv
	n := uint64(len(s.q) - 1)
	a := fastrand.BoundedBits(ch.src, x&mask, n, rankBits)
	if !s.cut.Arrival(uint32(x>>(64-eventBits)), ch.src) {
		return a, n
	}
	b := fastrand.BoundedBits(ch.src, x>>rankBits&mask, s.n1, rankBits)
	if b >= a {
		b += s.shift
	}
	return a, b
}

// serverStep makes the step of index k, with ranks a and b (b = N for a
// departure), on any queue lengths; ch.settle(k - 1) must have run.
func (ch *uniformChain) serverStep(k int64, a, b uint64) {
	ch.settle(k - 1)
	q := ch.srv.q
	if b == uint64(len(q)-1) {
		if l := q[a]; l > 0 {
			q[a]--
			ch.move(int(l), k, -1)
		}
		return
	}
	j := a
	if q[b] < q[a] {
		j = b
	}
	l := int(q[j])
	ch.move(l+1, k, 1)
	ch.lv[l].joined++
	if l+1 > ch.highest() {
		ch.lv = append(ch.lv, uniformLevel{})
	}
	if l+1 > serversMaxLen {
		ch.srv = nil // on the counts alone from now on
		return
	}
	q[j]++
}

// settle brings the levels up to date with the steps in the acc (all of
// index at most k, the last step made) and empties it: for each level, the
// sum of C_l over the states since the level's last change, and C_l.
func (ch *uniformChain) settle(k int64) {
	s := ch.srv
	rel := k - s.base
	for l := 1; l <= serversTop; l++ {
		up, down := s.acc[2*l-1], s.acc[2*l]
		if up == 0 && down == 0 {
			continue
		}
		for l > ch.highest() { // a new level: keep uniformPad empty ones above it
			ch.lv = append(ch.lv, uniformLevel{})
		}
		v := &ch.lv[l]
		// Sum over the states last..k-1 of C_l: its value at last, plus
		// each change times the number of those states after it.
		const count = 1<<accShift - 1
		nUp, nDown := int64(up&count), int64(down&count)
		net := nUp - nDown
		v.sum += v.c*(k-v.last) + rel*net - (int64(up>>accShift) - int64(down>>accShift))
		v.c += net
		v.last = k
		ch.lv[l-1].joined += nUp
		ch.events += nUp + nDown
	}
	s.acc = serversAcc{}
	s.base = k
}

// runServersUniform runs one replication of the per-server engine's
// scenario sc on the per-server loop of the uniformized chain (choosePlan):
// the queue lengths placed as the per-server engine places them.
func runServersUniform(ctx context.Context, sc *Scenario, r *rand.Rand, src *rand.PCG, check tick) (*replication, error) {
	if _, err := preparePolicy(sc); err != nil {
		return nil, err
	}
	q := make([]uint8, sc.Servers, sc.Servers+1)
	placeInitial(sc, r, func(j, l int) { q[j] = uint8(l) })
	return driveUniform(sc, src, check, countsOf(q), q)
}

// countsOf returns the occupancy counts (N, C_1, ..., 0) of the queue
// lengths q.
func countsOf(q []uint8) []int64 {
	c := []int64{int64(len(q)), 0}
	for _, l := range q {
		for len(c) <= int(l)+1 {
			c = append(c, 0)
		}
		c[l]++ // servers of length exactly l, summed from the top below
	}
	for l := len(c) - 2; l >= 1; l-- {
		c[l] += c[l+1]
	}
	c[0] = int64(len(q))
	return c
}

// lengthAt returns q[i] without a bounds check, for an i known to be in range.
func lengthAt(q []uint8, i uint64) uint8 { return *lengthPtr(q, i) }

// lengthPtr returns &q[i] without a bounds check, for an i known to be in range.
func lengthPtr(q []uint8, i uint64) *uint8 {
	return (*uint8)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(q)), i))
}

// The packing of serversAcc needs the steps between settles (at most
// checkEvery) to fit its count, and the sum of their indices its top bits.
var _ = [1]struct{}{}[(checkEvery>>accShift)+(2*checkEvery*checkEvery>>(64-accShift))]
