package lbsim

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
)

// The uniformized occupancy-level engine (EngineUniformized) for JSQ(d), with
// or without replacement, and random routing, on N exchangeable servers of a
// common exponential rate mu.
//
// The occupancy counts C_i (servers with at least i tasks) form a Markov
// chain. Uniformized at the constant rate N (lambda + mu), each step is an
// arrival with probability lambda / (lambda + mu), else a potential
// departure from a uniform server. Ranking the servers by decreasing length,
// the server of rank u in [0, N) has at least i tasks iff u < C_i: a
// departure draws u, does nothing if u >= C_1, and otherwise lowers C_l for
// the largest l with u < C_l. JSQ(d) joins the shortest of d uniform servers,
// which is the one of largest rank: with m the largest of d ranks (independent
// with replacement, distinct without), the task joins a queue of length l,
// the number of i >= 1 with m < C_i. No per-server state: memory O(levels),
// a few comparisons per step. (JSQ(2) on at most 2^20 servers takes the
// per-server loop instead, a byte per server: engine_uniformized_servers.go.)
//
// Time. The steps of the uniformized chain happen at the points of a
// Poisson process of rate N (lambda + mu), so over a stretch of time s the
// number of steps M is Poisson(N (lambda + mu) s); the engine draws it for
// each stretch between the instants it must see (the end of the warm-up, the
// grid points, the horizon), which keeps the trajectory and every count (the
// arrivals, the queue lengths they join) exactly in law with the
// continuous-time chain. Given M, the M + 1 states visited in the stretch
// hold for spacings of expectation s / (M + 1) each, and the time integral of
// C_i is estimated by that weight times the sum of C_i over the visited
// states: its conditional expectation given the visited states, hence
// unbiased (in transients as well as in the stationary regime) and of lower
// variance than the integral over sampled holding times. The sums are kept
// per level and brought up to date only when C_i changes.
//
// Per-task figures come as on the other Markov engines: a task that joins a
// queue of length l at a FIFO server of rate mu stays Erlang(l + 1, mu), so
// the counts of the lengths joined give the mean sojourn, the waiting
// probability and the sojourn quantiles (the exact Erlang mixture).

// maxSortedD is the largest d drawn without replacement by ranks shifted
// past the sorted earlier ones (O(d^2) per arrival); larger d use Floyd's
// sampling with a set.
const maxSortedD = 16

// uniformChain is the state of one replication of the uniformized engine.
type uniformChain struct {
	n     uint64
	d     int
	with  bool
	small bool // n < 2^32: ranks from 32-bit halves of the draws
	g     fastrand.Xoshiro
	src   *rand.PCG // the rare draws: ties of the event cut, redraws of bounded ranks
	cut   fastrand.ArrivalCut
	// lv[i] for i >= 1 is level i: C_i, the sum of C_i over the states
	// visited in the current chunk of steps up to the state of index last
	// (below N 2^18: exact in an int64; sums adds it up over the stretch); and
	// lv[i].joined counts the arrivals that joined a queue of length i. The
	// uniformPad top entries are empty levels (C = 0), so that fast2 can
	// read 8 levels at a time. lv[0].c is scratch (a departure from an idle
	// server lowers it).
	lv      []uniformLevel
	sums    []float64 // per level: the sum of C_i over the states visited in the stretch
	events  int64     // arrivals and departures
	scratch []uint64  // ranks drawn without replacement, sorted
	set     map[uint64]struct{}
	srv     *servers        // the per-server state, or nil (engine_uniformized_servers.go)
	w       fastrand.Wyrand // the per-server loop's generator
}

// uniformPad is the number of empty levels at the top of uniformChain.lv.
const uniformPad = 8

// highest returns the highest level occupied so far (0: none).
func (ch *uniformChain) highest() int { return len(ch.lv) - 1 - uniformPad }

type uniformLevel struct {
	c, last, sum, joined int64
}

// runUniformized runs one replication of the uniformized chain on the
// occupancy counts alone.
func runUniformized(ctx context.Context, sc *Scenario, r *rand.Rand, src *rand.PCG, check tick) (*replication, error) {
	if err := checkUniform(sc); err != nil {
		return nil, err
	}
	return driveUniform(sc, src, check, initialCounts(sc), nil)
}

// runUniformizedServers runs one replication of the uniformized chain on
// the per-server loop (engine_uniformized_servers.go), from the initial
// occupancy counts with the servers sorted by length, or on the counts
// alone when a queue is too long for it.
func runUniformizedServers(ctx context.Context, sc *Scenario, r *rand.Rand, src *rand.PCG, check tick) (*replication, error) {
	if err := checkUniform(sc); err != nil {
		return nil, err
	}
	counts := initialCounts(sc)
	return driveUniform(sc, src, check, counts, sortedLengths(counts))
}

// checkUniform refuses a number of servers the policy's sampling cannot run
// on (d > N), as its Prepare would.
func checkUniform(sc *Scenario) error {
	if rule, _ := uniformRule(sc.Policy); rule.check != nil {
		if err := rule.check(sc.Servers); err != nil {
			return fmt.Errorf("policy %s: %w", sc.Policy.Name(), err)
		}
	}
	return nil
}

// driveUniform runs one replication of the uniformized chain from the
// occupancy counts counts (N, C_1, ..., ending with a 0), on the counts
// alone, or with the queue lengths q (which it takes) in the per-server
// loop (engine_uniformized_servers.go) if q is not nil.
func driveUniform(sc *Scenario, src *rand.PCG, check tick, counts []int64, q []uint8) (*replication, error) {
	rule, _ := uniformRule(sc.Policy)
	d, with := rule.d, rule.with
	mu, _ := commonRate(sc.Rates)
	n := int64(sc.Servers)
	p := sc.Lambda / (sc.Lambda + mu)
	ch := &uniformChain{
		n: uint64(n), d: d, with: with, small: n < 1<<32, g: fastrand.NewXoshiro(src), src: src,
		cut: fastrand.NewArrivalCut(p),
	}
	for _, c := range counts {
		ch.lv = append(ch.lv, uniformLevel{c: c})
	}
	ch.lv = append(ch.lv, make([]uniformLevel, uniformPad-1)...) // counts ends with one
	ch.lv[0].c = 0                                               // scratch, not N
	if q != nil {
		ch.srv = newServers(q, with, p)
		ch.w = fastrand.NewWyrand(src)
	}
	if !with && d > maxSortedD {
		ch.set = make(map[uint64]struct{}, d)
	}
	obs := newObserver(sc, 1)
	levels := func() []float64 {
		row := make([]float64, ch.highest())
		for i := range row {
			row[i] = float64(ch.lv[i+1].c) / obs.n
		}
		return row
	}
	if sc.Grid > 0 {
		obs.traj = append(obs.traj, levels())
	}
	rate := float64(n) * (sc.Lambda + mu)
	poisson := distuv.Poisson{Src: src}
	averaging := sc.Warmup <= 0
	for t := 0.0; t < sc.Horizon; {
		// The next instant to see: the warm-up's end, a grid point, the horizon.
		end := sc.Horizon
		if !averaging && sc.Warmup < end {
			end = sc.Warmup
		}
		if len(obs.traj) < obs.gridOut {
			end = math.Min(end, float64(len(obs.traj))*sc.Grid)
		}
		poisson.Lambda = rate * (end - t)
		steps := int64(0)
		if poisson.Lambda > 0 {
			x := poisson.Rand()
			if x >= 1<<62 {
				return nil, fmt.Errorf("horizon = %v: %.3g steps in one stretch of time; too many for the uniformized engine", sc.Horizon, x)
			}
			steps = int64(x)
		}
		for k := int64(0); k < steps; {
			if err := check(t + (end-t)*float64(k)/float64(steps)); err != nil {
				return nil, err
			}
			todo := min(steps-k, checkEvery)
			switch {
			case ch.srv != nil:
				ch.runServers2(k+1, k+1+todo)
			case ch.small && ch.d == 2:
				ch.run2(k+1, k+1+todo)
			default:
				ch.run(k+1, k+1+todo)
			}
			k += todo
			ch.flush(k)
		}
		ch.flush(steps + 1)
		// The stretch visited steps + 1 states, each holding (end - t) / (steps + 1) on average.
		w := (end - t) / float64(steps+1)
		for i := 1; i <= ch.highest(); i++ {
			if averaging {
				if i >= len(obs.lv) {
					obs.grow(i)
				}
				obs.lv[i].area += ch.sums[i] * w
			}
			ch.sums[i], ch.lv[i].last = 0, 0
		}
		t = end
		if !averaging && t >= sc.Warmup {
			averaging = true
			for i := range ch.lv {
				ch.lv[i].joined = 0
			}
		}
		if len(obs.traj) < obs.gridOut && float64(len(obs.traj))*sc.Grid <= t {
			obs.traj = append(obs.traj, levels())
		}
	}
	if err := check(sc.Horizon); err != nil {
		return nil, err
	}
	obs.maxLen = ch.highest()
	obs.seen[0] = make([]int64, ch.highest())
	for l := range obs.seen[0] {
		obs.seen[0][l] = ch.lv[l].joined
	}
	obs.tally([]float64{mu})
	return &replication{events: ch.events, obs: obs, mus: []float64{mu}}, nil
}

// flush adds to sums the sum of each C_i over the states of index below k
// (those visited in the stretch so far).
func (ch *uniformChain) flush(k int64) {
	for len(ch.sums) < len(ch.lv) {
		ch.sums = append(ch.sums, 0)
	}
	for i := 1; i <= ch.highest(); i++ {
		v := &ch.lv[i]
		ch.sums[i] += float64(v.sum + v.c*(k-v.last))
		v.sum, v.last = 0, k
	}
}

// b2i is 1 for true and 0 for false (compiled without a branch, to a
// SETcc), for the hot loops of the engines and policies.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// run2 makes the steps of index from..to-1 for N < 2^32 and d = 2: the hot
// loop, fast2, with step2 for the steps it leaves.
func (ch *uniformChain) run2(from, to int64) {
	// The second rank: uniform in [0, n) with replacement, in [0, n-1) and
	// shifted past the first without.
	shift := b2i(!ch.with)
	fast := to - from // steps made by fast2
	for k := from; k < to; k++ {
		var x, y uint64
		k, ch.g, x, y = fast2(ch.lv, ch.g, k, to, uint32(ch.n), shift, ch.cut.Cut())
		if k < to {
			ch.step2(k, x, y, shift)
			fast--
		}
	}
	// Every step of fast2 is an event but the departures from idle servers,
	// which lowered the count of level 0.
	ch.events += fast + ch.lv[0].c
	ch.lv[0].c, ch.lv[0].sum, ch.lv[0].last = 0, 0, 0
}

// fast2 makes the steps of index k..to-1 and returns the index of the first
// step it did not make, with the generator's state after it and that step's
// two draws. Two 64-bit draws a step from the generator held in registers,
// and no call and no branch that depends on the draws (the kind of event,
// the level): it leaves to step2 the rare steps that need more (a tie of the
// event cut, probability 2^-24; a redraw of Lemire's method, about n / 2^31;
// a new highest level). A departure from an idle server lowers the count of
// the scratch level 0.
func fast2(lv []uniformLevel, g fastrand.Xoshiro, k, to int64, n uint32, shift int,
	cut uint32) (int64, fastrand.Xoshiro, uint64, uint64) {
	top := len(lv) - uniformPad // the first empty level
	// The change of the previous step, C_jp = cp + dp, is written to lv
	// only after this step has read lv, which it corrects for it: the steps
	// do not wait for each other through memory. (jp = 0 with cp <= 0 is
	// the scratch level, which the comparisons never see.)
	jp, cp, dp := 0, lv[0].c, int64(0)
	for ; k < to; k++ {
		var x, y uint64
		g, x = g.Next() // the event from the top 24 bits, a rank from the low 32
		g, y = g.Next() // the second rank of an arrival from the top 32
		bound2 := n - uint32(shift)
		r := uint64(uint32(x)) * uint64(n)
		s := (y >> 32) * uint64(bound2)
		e := uint32(x >> 40)
		if uint32(r) < n || uint32(s) < bound2 || e == cut {
			lv[jp].c = cp + dp
			return k, g, x, y
		}
		m, v := int64(r>>32), int64(s>>32)
		v += int64(shift & b2i(v >= m))
		arr := b2i(e < cut)
		// An arrival's rank is the largest of the two, a departure's the first.
		m = max(m, v&int64(-arr))
		// l counts the levels i >= 1 with m < C_i.
		var l int
		if top <= 9 {
			// Levels 1..8: is m below C_4, then which of the four above.
			b := 4 * b2i(m < lv[4].c)
			w := lv[b+1 : b+5 : b+5]
			l = b + (b2i(m < w[0].c) + b2i(m < w[1].c)) + (b2i(m < w[2].c) + b2i(m < w[3].c))
		} else {
			for i := 1; i < top; i += 8 { // 8 levels at a time, into the empty ones above top
				w := lv[i : i+8 : i+8]
				l += ((b2i(m < w[0].c) + b2i(m < w[1].c)) + (b2i(m < w[2].c) + b2i(m < w[3].c))) +
					((b2i(m < w[4].c) + b2i(m < w[5].c)) + (b2i(m < w[6].c) + b2i(m < w[7].c)))
			}
		}
		// m < C_jp changed with C_jp iff m = min(cp, cp + dp).
		l += int(dp) * b2i(m == min(cp, cp+dp))
		j := l + arr
		if j >= top {
			lv[jp].c = cp + dp
			return k, g, x, y
		}
		lv[jp].c = cp + dp
		// The server of rank m has l tasks: an arrival raises C_{l+1}, a
		// departure lowers C_l (level 0 when the server is idle).
		u := &lv[j]
		jp, cp, dp = j, u.c, int64(2*arr-1)
		u.sum += cp * (k - u.last)
		u.last = k
		lv[l].joined += int64(arr)
	}
	lv[jp].c = cp + dp
	return k, g, 0, 0
}

// step2 makes the step of index k, whose draws are x and y, as fast2 would,
// with the rare draws from the stream.
func (ch *uniformChain) step2(k int64, x, y uint64, shift int) {
	m := int64(fastrand.Bounded32(ch.src, uint32(x), uint32(ch.n)))
	if !ch.cut.Arrival(uint32(x>>40), ch.src) {
		ch.depart(m, k)
		return
	}
	v := int64(fastrand.Bounded32(ch.src, uint32(y>>32), uint32(ch.n)-uint32(shift)))
	if shift == 1 && v >= m {
		v++
	}
	ch.arrive(max(m, v), k)
}

// run makes the steps of index from..to-1 in every case (any N, d and
// sampling).
func (ch *uniformChain) run(from, to int64) {
	for k := from; k < to; k++ {
		var x uint64
		ch.g, x = ch.g.Next()
		if ch.cut.Arrival(uint32(x>>40), ch.src) {
			ch.arrive(int64(ch.largestRank(x)), k)
		} else {
			ch.depart(int64(ch.rank(uint32(x), ch.n)), k)
		}
	}
}

// arrive makes the step of index k an arrival at the server of rank m.
func (ch *uniformChain) arrive(m int64, k int64) {
	l := 1
	for m < ch.lv[l].c {
		l++
	}
	ch.move(l, k, 1)
	ch.lv[l-1].joined++
	if l > ch.highest() { // a new level: keep uniformPad empty ones above it
		ch.lv = append(ch.lv, uniformLevel{})
	}
}

// depart makes the step of index k a departure from the server of rank m,
// if it is busy.
func (ch *uniformChain) depart(m int64, k int64) {
	if m >= ch.lv[1].c {
		return
	}
	l := 2
	for m < ch.lv[l].c {
		l++
	}
	ch.move(l-1, k, -1)
}

// move changes C_l by delta at the step of index k.
func (ch *uniformChain) move(l int, k int64, delta int64) {
	u := &ch.lv[l]
	u.sum += u.c * (k - u.last)
	u.last = k
	u.c += delta
	ch.events++
}

// rank returns a uniform integer in [0, bound), from the 32 random bits h
// when N < 2^32 (Lemire's method, exact), else from a fresh 64-bit draw.
func (ch *uniformChain) rank(h uint32, bound uint64) uint64 {
	if ch.small {
		return uint64(fastrand.Bounded32(ch.src, h, uint32(bound)))
	}
	var x uint64
	ch.g, x = ch.g.Next()
	hi, lo := bits.Mul64(x, bound)
	if lo < bound {
		hi = fastrand.Bounded64(ch.src, bound) // the rare redraw, from the stream
	}
	return hi
}

// largestRank returns the largest of d uniform ranks in [0, N), independent
// with replacement, distinct without; the first comes from the low 32 bits
// of x (when N < 2^32).
func (ch *uniformChain) largestRank(x uint64) uint64 {
	n := ch.n
	var spare uint64
	half := false
	next := func() uint32 { // 32 fresh bits, two per 64-bit draw
		if half {
			half = false
			return uint32(spare)
		}
		if ch.small {
			ch.g, spare = ch.g.Next()
			half = true
			return uint32(spare >> 32)
		}
		return 0 // rank draws its own 64 bits
	}
	if ch.with {
		m := ch.rank(uint32(x), n)
		for j := 1; j < ch.d; j++ {
			m = max(m, ch.rank(next(), n))
		}
		return m
	}
	if ch.d <= maxSortedD {
		// The j-th draw is uniform among the N - j ranks not drawn yet: a
		// uniform v in [0, N - j), shifted past each earlier rank <= it.
		s := append(ch.scratch[:0], ch.rank(uint32(x), n))
		for j := 1; j < ch.d; j++ {
			v := ch.rank(next(), n-uint64(j))
			at := 0
			for at < len(s) && s[at] <= v {
				v++
				at++
			}
			s = append(s, 0)
			copy(s[at+1:], s[at:])
			s[at] = v
		}
		ch.scratch = s
		return s[len(s)-1]
	}
	// Floyd: for j = N-d .. N-1, draw v in [0, j] and add v, or j if v is
	// already in; the set is a uniform d-subset.
	clear(ch.set)
	m := uint64(0)
	for j := n - uint64(ch.d); j < n; j++ {
		h := uint32(x)
		if j > n-uint64(ch.d) {
			h = next()
		}
		v := ch.rank(h, j+1)
		if _, in := ch.set[v]; in {
			v = j
		}
		ch.set[v] = struct{}{}
		m = max(m, v)
	}
	return m
}
