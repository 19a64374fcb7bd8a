package redundancy

import (
	"fmt"

	"github.com/lbsim/notebooks/lbsim/pairs"
)

// MaxLoadRatioBySetsServers bounds the servers of LoadRatioBySets, which
// tries every set of servers.
const MaxLoadRatioBySetsServers = 16

// LoadRatioBySets is LoadRatio by brute force: the largest
// Lambda*P(S subset of A)/mu(A) over all 2^N - 1 nonempty sets A of servers
// (N <= MaxLoadRatioBySetsServers), with the first set attaining it. It is
// an independent check of LoadRatio's minimum cuts on small systems.
func LoadRatioBySets(dist *pairs.Dist, lambda float64, rates []float64) (ratio float64, worst []int, err error) {
	rates, err = checkInput(dist, lambda, rates)
	if err != nil {
		return 0, nil, err
	}
	n := dist.N()
	if n > MaxLoadRatioBySetsServers {
		return 0, nil, fmt.Errorf("redundancy: LoadRatioBySets takes at most %d servers, not %d", MaxLoadRatioBySetsServers, n)
	}
	sets, err := dist.Sets()
	if err != nil {
		return 0, nil, err
	}
	masks := make([]uint32, len(sets))
	for k, s := range sets {
		for _, j := range s.Servers {
			masks[k] |= 1 << j
		}
	}
	total := lambda * float64(n)
	best, bestA := -1.0, uint32(0)
	for A := uint32(1); A < 1<<n; A++ {
		p, mu := 0.0, 0.0
		for k, m := range masks {
			if m&A == m {
				p += sets[k].P
			}
		}
		for j := 0; j < n; j++ {
			if A&(1<<j) != 0 {
				mu += rates[j]
			}
		}
		if r := total * p / mu; r > best {
			best, bestA = r, A
		}
	}
	for j := 0; j < n; j++ {
		if bestA&(1<<j) != 0 {
			worst = append(worst, j)
		}
	}
	return best, worst, nil
}
