package lbsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/internal/distinct"
	"github.com/lbsim/notebooks/lbsim/param"
)

// Sampling says how JSQ(d) draws its d servers.
type Sampling int

const (
	// WithoutReplacement draws d distinct servers (the default; Mukherjee et al.).
	WithoutReplacement Sampling = iota
	// WithReplacement draws d independent uniform servers (Mitzenmacher's model,
	// whose mean-field limit is dq_i/dt = lambda (q_{i-1}^d - q_i^d) - (q_i - q_{i+1})).
	WithReplacement
)

func (s Sampling) String() string {
	if s == WithReplacement {
		return "with"
	}
	return "without"
}

// JSQd is the power-of-d policy: each task samples d servers uniformly at random
// without replacement and joins the one with the fewest tasks.
func JSQd(d int) Policy { return &jsqd{d: d} }

// JSQdSampling is JSQd with the given sampling: with replacement, the d draws are
// independent and may repeat a server.
func JSQdSampling(d int, s Sampling) Policy { return &jsqd{d: d, sampling: s} }

// Ties among the sampled servers go to the first one drawn. The draws come in a
// uniformly random order, so without replacement this is a uniform choice among the
// tied servers; with replacement a tied server is chosen in proportion to how many
// times it was drawn.
type jsqd struct {
	d        int
	sampling Sampling
	// scratch is a permutation of the servers used for partial Fisher-Yates
	// sampling when d is too large for rejection sampling.
	scratch distinct.Perm
	// tail[N-c] caches tailMin(c) for large d without replacement (-1: not
	// yet computed): in the Halfin-Whitt regime C_1 stays within a few
	// sqrt(N) of N, so the walk of JoinLevel reads a few hundred entries
	// instead of computing four log-gamma values per arrival. A pure function
	// of c, so cached or not the decisions are the same.
	tail []float64
}

// maxTailCache is the number of entries of jsqd.tail (made at the first use,
// 512 KiB at most): C_i within 2^16 of N.
const maxTailCache = 1 << 16

// maxRejectionD is the largest d sampled without replacement by redrawing
// duplicates; larger d use a partial Fisher-Yates shuffle of a scratch permutation.
const maxRejectionD = 16

func (p *jsqd) Name() string {
	return fmt.Sprintf("jsqd(d=%d,%s)", p.d, p.sampling)
}

// Uses declares the engines' sampleShortest rule: the shortest of d
// uniform servers (with replacement for d = 1, where it is the same law),
// checked against N as Prepare checks it.
func (p *jsqd) Uses() Needs {
	return Needs{inline: inlineRule{kind: sampleShortest, d: p.d, with: p.sampling == WithReplacement || p.d == 1, check: p.validate}}
}

func (p *jsqd) validate(n int) error {
	if p.d < 1 || p.d > n {
		return fmt.Errorf("d = %d: must be between 1 and the number of servers (%d)", p.d, n)
	}
	if p.sampling != WithReplacement && p.sampling != WithoutReplacement {
		return fmt.Errorf("sampling = %d: must be with or without replacement", int(p.sampling))
	}
	return nil
}

func (p *jsqd) Prepare(sys System) (Policy, error) {
	if err := p.validate(sys.N); err != nil {
		return nil, err
	}
	q := &jsqd{d: p.d, sampling: p.sampling}
	if q.sampling == WithoutReplacement && q.d > maxRejectionD && q.d > 2 {
		q.scratch = distinct.Identity(sys.N)
	}
	return q, nil
}

func (p *jsqd) Dispatch(s *State, _ int, r *rand.Rand) int {
	n := int32(len(s.length))
	lengths := s.length
	if p.sampling == WithReplacement {
		best := r.Int32N(n)
		for k := 1; k < p.d; k++ {
			j := r.Int32N(n)
			if lengths[j] < lengths[best] {
				best = j
			}
		}
		return int(best)
	}
	switch {
	case p.d == 1:
		return int(r.Int32N(n))
	case p.d == 2:
		a, b := twoDistinct(r, uint32(n))
		if lengths[b] < lengths[a] {
			return int(b)
		}
		return int(a)
	case p.scratch == nil:
		return int(p.sampleSmall(lengths, n, r))
	default:
		return int(p.sampleShuffle(lengths, r))
	}
}

// twoDistinct returns an ordered pair of distinct uniform servers in [0, n) from
// one 64-bit draw where possible: each half goes through Lemire's
// multiply-and-reject method, so both are exactly uniform.
func twoDistinct(r *rand.Rand, n uint32) (int32, int32) {
	x := r.Uint64()
	a := bounded32(r, uint32(x), n)
	b := bounded32(r, uint32(x>>32), n-1)
	if b >= a {
		b++
	}
	return int32(a), int32(b)
}

// bounded32 maps the 32 random bits x to a uniform integer in [0, n) (Lemire,
// "Fast random integer generation in an interval", 2019), drawing again from r
// in the rare case the multiply lands in the biased zone.
func bounded32(r *rand.Rand, x, n uint32) uint32 {
	m := uint64(x) * uint64(n)
	if uint32(m) < n {
		t := -n % n
		for uint32(m) < t {
			m = uint64(r.Uint32()) * uint64(n)
		}
	}
	return uint32(m >> 32)
}

// sampleSmall draws d <= maxRejectionD distinct servers by redrawing duplicates.
func (p *jsqd) sampleSmall(lengths []int32, n int32, r *rand.Rand) int32 {
	var picked [maxRejectionD]int32
	best := int32(-1)
	for k := 0; k < p.d; k++ {
	draw:
		j := r.Int32N(n)
		for _, q := range picked[:k] {
			if q == j {
				goto draw
			}
		}
		picked[k] = j
		if best < 0 || lengths[j] < lengths[best] {
			best = j
		}
	}
	return best
}

// sampleShuffle draws d distinct servers with a partial Fisher-Yates shuffle of
// the scratch permutation (distinct.Perm.Draw, which restores it), one
// r.Int32N per server.
func (p *jsqd) sampleShuffle(lengths []int32, r *rand.Rand) int32 {
	best := int32(-1)
	p.scratch.Draw(p.d, func(m uint32) uint32 { return uint32(r.Int32N(int32(m))) }, func(j int32) {
		if best < 0 || lengths[j] < lengths[best] {
			best = j
		}
	})
	return best
}

func (p *jsqd) Route(sys System, lengths []int, _ int, _ int, out []Choice) []Choice {
	n := sys.N
	prob := make([]float64, n)
	idx := make([]int, p.d)
	if p.sampling == WithReplacement {
		// All N^d ordered draws are equally likely; the first minimum wins.
		w := math.Pow(float64(n), -float64(p.d))
		for {
			best := idx[0]
			for _, j := range idx[1:] {
				if lengths[j] < lengths[best] {
					best = j
				}
			}
			prob[best] += w
			k := p.d - 1
			for k >= 0 && idx[k] == n-1 {
				idx[k] = 0
				k--
			}
			if k < 0 {
				break
			}
			idx[k]++
		}
	} else {
		// All d-subsets are equally likely; ties are uniform within the subset.
		for k := range idx {
			idx[k] = k
		}
		w := 1 / binomial(n, p.d)
		var choices []Choice
		for {
			choices = appendUniformArgmin(choices[:0], lengths, idx)
			for _, c := range choices {
				prob[c.Server] += w * c.P
			}
			k := p.d - 1
			for k >= 0 && idx[k] == n-p.d+k {
				k--
			}
			if k < 0 {
				break
			}
			idx[k]++
			for i := k + 1; i < p.d; i++ {
				idx[i] = idx[i-1] + 1
			}
		}
	}
	for j, pj := range prob {
		if pj > 0 {
			out = append(out, Choice{Server: j, P: pj})
		}
	}
	return out
}

func binomial(n, k int) float64 {
	b := 1.0
	for i := 1; i <= k; i++ {
		b = b * float64(n-k+i) / float64(i)
	}
	return b
}

func (p *jsqd) JoinLevel(occ *Occupancy, r *rand.Rand) int {
	u := r.Float64()
	l := 0
	if p.sampling == WithoutReplacement && p.d <= maxRejectionD {
		// tailMin(C_i) > u written as C_i (C_i - 1) ... (C_i - d + 1) >
		// u N (N - 1) ... (N - d + 1): d multiplications per level and no
		// division. (A product is 0 when C_i < d, as tailMin is; for d <= 16
		// and any int64 N it stays far below the float64 range.)
		n, d := occ.N, int64(p.d)
		x := u
		for k := range d {
			x *= float64(n - k)
		}
		for l+1 < len(occ.C) {
			c, g := occ.C[l+1], 1.0
			for k := range d {
				g *= float64(c - k)
			}
			if g <= x {
				break
			}
			l++
		}
		return l
	}
	for l+1 < len(occ.C) && p.tailMin(occ, occ.C[l+1]) > u {
		l++
	}
	return l
}

// tailMin returns the probability that all d sampled servers lie among c given
// servers (out of N): the probability that the shortest sampled queue has at
// least i tasks when c = C_i.
func (p *jsqd) tailMin(occ *Occupancy, c int64) float64 {
	n := occ.N
	if p.sampling == WithReplacement {
		x := float64(c) / float64(n)
		g := x
		for k := 1; k < p.d; k++ {
			g *= x
		}
		return g
	}
	d := int64(p.d)
	if c < d {
		return 0
	}
	if p.d <= maxRejectionD {
		g := 1.0
		for k := int64(0); k < d; k++ {
			g *= float64(c-k) / float64(n-k)
		}
		return g
	}
	if p.tail == nil { // the occupancy engine's first call (the per-server engines never make one)
		p.tail = make([]float64, min(n+1, maxTailCache))
		for i := range p.tail {
			p.tail[i] = -1
		}
	}
	if k := n - c; k < int64(len(p.tail)) {
		if g := p.tail[k]; g >= 0 {
			return g
		}
		g := tailLgamma(n, c, d)
		p.tail[k] = g
		return g
	}
	return tailLgamma(n, c, d)
}

// tailLgamma is C(c, d)/C(n, d) through log-gamma.
func tailLgamma(n, c, d int64) float64 {
	lg := func(x int64) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(lg(c) - lg(c-d) - lg(n) + lg(n-d))
}

func (p *jsqd) ScenarioKeys() map[string]any {
	return map[string]any{keyPolicy: "jsqd", keyD: p.d, keySampling: p.sampling.String()}
}

// parseSampling reads the sampling key (checked against its enum).
func parseSampling(s string) Sampling {
	if s == "with" {
		return WithReplacement
	}
	return WithoutReplacement
}

// samplesWithout refuses sampling with replacement for a policy that
// samples without only (jiqd, jswd).
func samplesWithout(policy string, v *param.Values) error {
	if s := v.String(keySampling); s != "without" {
		return fmt.Errorf("sampling = %q: policy %s samples without replacement", s, policy)
	}
	return nil
}

func init() {
	mustRegister(PolicyDef{Name: "jsqd", Uses: []string{keyD, keySampling}, Build: func(v *param.Values) (Policy, error) {
		return JSQdSampling(v.Int(keyD), parseSampling(v.String(keySampling))), nil
	}})
}
