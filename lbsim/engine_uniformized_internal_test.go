package lbsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/chisq"
	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
)

// One step of the uniformized chain from a fixed state, repeated: the kind of
// event and the level it changes follow the exact law (chi-square, alpha
// 1e-6, chisq.Check). From counts C_1..C_4 on N servers and p = lambda /
// (lambda + 1): a departure lowers C_l with probability (1 - p)(C_l -
// C_{l+1})/N, an arrival raises C_{l+1} with probability p (P(all d sampled
// have >= l tasks) - P(all have >= l+1)), where P(all d have >= l) is
// (C_l/N)^d with replacement and C(C_l, d)/C(N, d) without. Cases: the hot
// loop (d = 2), the general loop (d = 1, 3; Floyd's sampling for d = 17 >
// maxSortedD), on few servers so that collisions without replacement matter.
func TestUniformizedStepLaw(t *testing.T) {
	const lambda = 0.9
	p := lambda / (lambda + 1)
	// Two queues of length 70: the slow step of the per-server loop; of
	// length serversMaxLen: an arrival to either turns it to the counts.
	long := []int64{10, 8, 5, 2, 2}
	for range 66 {
		long = append(long, 2)
	}
	longest := []int64{10, 8, 5, 2, 2}
	for len(longest) <= serversMaxLen {
		longest = append(longest, 2)
	}
	for _, c := range []struct {
		n, d      int
		with      bool
		counts    []int64
		perServer bool
	}{
		{10, 2, true, []int64{10, 8, 5, 2, 1}, false},
		{10, 2, false, []int64{10, 8, 5, 2, 1}, false},
		{10, 2, true, []int64{10, 8, 5, 2, 1}, true},
		{10, 2, false, []int64{10, 8, 5, 2, 1}, true},
		{3, 2, false, []int64{3, 2, 1}, true},
		{10, 2, true, long, true},
		{10, 2, false, longest, true},
		{10, 1, true, []int64{10, 8, 5, 2, 1}, false},
		{10, 3, true, []int64{10, 8, 5, 2, 1}, false},
		{10, 3, false, []int64{10, 8, 5, 2, 1}, false},
		{40, 17, false, []int64{40, 39, 36, 30, 25}, false},
	} {
		t.Run(fmt.Sprintf("n=%d/d=%d/with=%v/servers=%v/levels=%d", c.n, c.d, c.with, c.perServer, len(c.counts)-1), func(t *testing.T) {
			allAtLeast := func(l int) float64 {
				if l >= len(c.counts) {
					return 0
				}
				x, pr := float64(c.counts[l]), 1.0
				for k := range c.d {
					if c.with {
						pr *= x / float64(c.n)
					} else {
						pr *= max(x-float64(k), 0) / float64(c.n-k)
					}
				}
				return pr
			}
			// Outcome +l: C_l rose; -l: C_l fell; 0: nothing.
			probs := map[int]float64{0: (1 - p) * float64(c.n-int(c.counts[1])) / float64(c.n)}
			for l := 1; l <= len(c.counts); l++ {
				next := int64(0)
				if l+1 < len(c.counts) {
					next = c.counts[l+1]
				}
				if l < len(c.counts) {
					probs[-l] = (1 - p) * float64(c.counts[l]-next) / float64(c.n)
				}
				probs[l] = p * (allAtLeast(l-1) - allAtLeast(l))
			}
			src := rand.NewPCG(uint64(c.n), uint64(c.d))
			ch := &uniformChain{n: uint64(c.n), d: c.d, with: c.with || c.d == 1, small: true,
				g: fastrand.NewXoshiro(src), src: src, cut: fastrand.NewArrivalCut(p)}
			if !ch.with && c.d > maxSortedD {
				ch.set = map[uint64]struct{}{}
			}
			var start []uint8
			var srv *servers
			if c.perServer {
				start = sortedLengths(append(c.counts, 0))
				srv = newServers(slices.Clone(start), ch.with, p)
			}
			const draws = 200000
			counts := map[int]int{}
			for range draws {
				ch.lv = ch.lv[:0]
				for _, x := range append(c.counts, 0) {
					ch.lv = append(ch.lv, uniformLevel{c: x})
				}
				ch.lv = append(ch.lv, make([]uniformLevel, uniformPad-1)...)
				ch.lv[0].c = 0
				switch {
				case c.perServer:
					copy(srv.q, start)
					ch.srv = srv // the step may leave the per-server state (longest)
					ch.runServers2(1, 2)
				case c.d == 2:
					ch.run2(1, 2)
				default:
					ch.run(1, 2)
				}
				outcome := 0
				for l := 1; l < len(ch.lv); l++ {
					want := int64(0)
					if l < len(c.counts) {
						want = c.counts[l]
					}
					if got := ch.lv[l].c; got != want {
						outcome = l * int(got-want)
					}
				}
				counts[outcome]++
			}
			chisq.Check(t, "step", counts, probs, draws)
		})
	}
}
