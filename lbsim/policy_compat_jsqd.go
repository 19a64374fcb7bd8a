package lbsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/lbsim/notebooks/lbsim/compat"
	"github.com/lbsim/notebooks/lbsim/internal/alias"
	"github.com/lbsim/notebooks/lbsim/internal/distinct"
	"github.com/lbsim/notebooks/lbsim/param"
)

// CompatJSQd is JSQ(d) under strict compatibility constraints (Rutten and
// Mukherjee): g is a bipartite graph between the servers and M task types
// (package compat). Each arriving task has type t with probability
// proportional to g's type rates (equal by default), samples d servers
// uniformly at random without replacement among the servers compatible with
// t, and joins the one with the fewest tasks, ties broken uniformly at random.
// The total arrival rate is lambda*N as for every policy; the policy draws the
// type itself from the replication's stream, so tasks have no origin.
//
// On the complete bipartite graph (compat.Complete) it is JSQd(d), and
// dispatches exactly as JSQd does. With heterogeneous server rates the task
// still joins the shortest sampled queue (not the least length/rate), as in
// the heterogeneous extension of Zhao, Mukherjee and Wu.
//
// g must have as many servers as the system, and every type that arrives
// (positive rate) at least d compatible servers (checked by Prepare). The
// cost per arrival is O(d), independent of the degrees. CompatJSQd implements
// ExactRouter.
func CompatJSQd(g *compat.Graph, d int) Policy { return &compatJSQd{g: g, d: d} }

// CompatJSQdSampling is CompatJSQd with the given sampling: with replacement
// the d draws among the compatible servers are independent (a type then needs
// only one compatible server).
func CompatJSQdSampling(g *compat.Graph, d int, s Sampling) Policy {
	return &compatJSQd{g: g, d: d, sampling: s}
}

// Ties go to the first server drawn, which is uniform among the tied
// compatible servers because the draws come in random order (as in jsqd).
type compatJSQd struct {
	g        *compat.Graph
	d        int
	sampling Sampling
	types    compatTypes
	off      []uint64
	adj      []uint32
	inner    Policy // JSQd on the implicit complete graph
	// scratch is the identity permutation of [0, max type degree) for a
	// partial Fisher-Yates draw of positions when d > maxRejectionD; it is
	// restored after each draw.
	scratch distinct.Perm
	// pipe draws the candidate pairs of d = 2 ahead of time (see compatPipe).
	pipe *compatPipe
}

// compatAhead is the number of arrivals between the stages of compatPipe.
const compatAhead = 8

// compatPipe is a software pipeline for d = 2 on a stored graph. At large N
// an arrival would wait for three dependent cache misses: the type's offset,
// the two adjacency entries, the two queue lengths. The candidates do not
// depend on the state, so they are drawn ahead: the type of the arrival
// 3*compatAhead arrivals later is drawn now and its offset prefetched; the
// positions of the one 2*compatAhead later are drawn and their adjacency
// entries prefetched; the servers of the one compatAhead later are read and
// their lengths prefetched. Each candidate pair is still a fresh draw,
// independent of everything else and of the state when it is used, so the
// law of the chain is unchanged (as for the engine's aheadDraws).
type compatPipe struct {
	started bool
	k       uint32
	types   [compatAhead]uint32
	slots   [compatAhead][2]uint64
	servers [compatAhead][2]uint32
}

func (p *compatJSQd) Name() string {
	return fmt.Sprintf("compat-jsqd(d=%d,%s)", p.d, p.sampling)
}

// compatTypes draws task types in proportion to their rates.
type compatTypes struct {
	m     uint32
	alias *alias.Table // nil for equal rates
}

// checkCompat validates g against the system and returns the type sampler.
// Every type with a positive rate must have at least minDegree servers.
func checkCompat(g *compat.Graph, sys System, minDegree int, hint string) (compatTypes, error) {
	if g == nil {
		return compatTypes{}, errors.New("compat graph: nil; want a compatibility graph (package compat)")
	}
	if g.Servers() != sys.N {
		return compatTypes{}, fmt.Errorf("compat graph: has %d servers but the system has %d; they must be equal",
			g.Servers(), sys.N)
	}
	if !g.IsComplete() {
		for t := range g.Types() {
			if g.TypeRate(t) > 0 && g.TypeDegree(t) < minDegree {
				return compatTypes{}, fmt.Errorf("compat graph: type %d has %d compatible servers, fewer than %d%s",
					t, g.TypeDegree(t), minDegree, hint)
			}
		}
	} else if sys.N < minDegree {
		return compatTypes{}, fmt.Errorf("compat graph: complete on %d servers, fewer than %d%s", sys.N, minDegree, hint)
	}
	ct := compatTypes{m: uint32(g.Types())}
	if w := g.TypeRates(); w != nil {
		ct.alias = alias.New(w)
	}
	return ct, nil
}

func (c *compatTypes) draw(r *rand.Rand) uint32 {
	if c.alias != nil {
		return uint32(c.alias.Sample(r))
	}
	return bounded32(r, r.Uint32(), c.m)
}

// weights returns the normalised arrival probabilities of the types.
func compatWeights(g *compat.Graph) []float64 {
	w := make([]float64, g.Types())
	total := 0.0
	for t := range w {
		w[t] = g.TypeRate(t)
		total += w[t]
	}
	for t := range w {
		w[t] /= total
	}
	return w
}

func (p *compatJSQd) Prepare(sys System) (Policy, error) {
	if p.d < 1 {
		return nil, fmt.Errorf("d = %d: must be at least 1", p.d)
	}
	minDeg, hint := p.d, fmt.Sprintf(" (d = %d sampled without replacement; sample with replacement or give every type at least d servers)", p.d)
	switch p.sampling {
	case WithReplacement:
		minDeg, hint = 1, " (a type that arrives needs a compatible server)"
	case WithoutReplacement:
	default:
		return nil, fmt.Errorf("sampling = %d: must be with or without replacement", int(p.sampling))
	}
	types, err := checkCompat(p.g, sys, minDeg, hint)
	if err != nil {
		return nil, err
	}
	q := &compatJSQd{g: p.g, d: p.d, sampling: p.sampling, types: types}
	if p.g.IsComplete() {
		inner, err := JSQdSampling(p.d, p.sampling).(Preparer).Prepare(sys)
		if err != nil {
			return nil, err
		}
		q.inner = inner
		return q, nil
	}
	q.off, q.adj = p.g.TypeOffsets(), p.g.TypeAdjacency()
	if p.d == 2 {
		q.pipe = &compatPipe{}
	}
	if p.sampling == WithoutReplacement && p.d > maxRejectionD {
		q.scratch = distinct.Identity(p.g.Degrees().MaxType)
	}
	return q, nil
}

func (p *compatJSQd) Dispatch(s *State, _ int, r *rand.Rand) int {
	if p.inner != nil {
		return p.inner.Dispatch(s, -1, r)
	}
	if p.pipe != nil {
		return p.dispatchPiped(s, r)
	}
	t := p.types.draw(r)
	base := p.off[t]
	deg := uint32(p.off[t+1] - base)
	nb := p.adj[base : base+uint64(deg)]
	length := s.length
	if p.sampling == WithReplacement {
		x := r.Uint64()
		best := nb[bounded32(r, uint32(x), deg)]
		if p.d == 1 {
			return int(best)
		}
		if j := nb[bounded32(r, uint32(x>>32), deg)]; length[j] < length[best] {
			best = j
		}
		for k := 2; k < p.d; k++ {
			if j := nb[bounded32(r, r.Uint32(), deg)]; length[j] < length[best] {
				best = j
			}
		}
		return int(best)
	}
	switch {
	case p.d == 1:
		return int(nb[bounded32(r, r.Uint32(), deg)])
	case p.scratch == nil: // 3 <= d <= maxRejectionD (d = 2 goes through the pipeline)
		var picked [maxRejectionD]uint32
		best := uint32(math.MaxUint32)
		for k := 0; k < p.d; k++ {
		draw:
			i := bounded32(r, r.Uint32(), deg)
			for _, q := range picked[:k] {
				if q == i {
					goto draw
				}
			}
			picked[k] = i
			if j := nb[i]; best == math.MaxUint32 || length[j] < length[best] {
				best = j
			}
		}
		return int(best)
	}
	// Partial Fisher-Yates over the positions [0, deg), which restores the
	// identity (see jsqd.sampleShuffle).
	best := uint32(math.MaxUint32)
	p.scratch[:deg].Draw(p.d, func(m uint32) uint32 { return bounded32(r, r.Uint32(), m) }, func(i int32) {
		if j := nb[i]; best == math.MaxUint32 || length[j] < length[best] {
			best = j
		}
	})
	return int(best)
}

// slotPair draws the adjacency indices of two candidates of type t: two
// distinct positions without replacement, two independent ones with.
func (p *compatJSQd) slotPair(t uint32, r *rand.Rand) [2]uint64 {
	base := p.off[t]
	deg := uint32(p.off[t+1] - base)
	if p.sampling == WithReplacement {
		x := r.Uint64()
		return [2]uint64{base + uint64(bounded32(r, uint32(x), deg)), base + uint64(bounded32(r, uint32(x>>32), deg))}
	}
	a, b := twoDistinct(r, deg)
	return [2]uint64{base + uint64(a), base + uint64(b)}
}

// dispatchPiped is Dispatch for d = 2 through the pipeline (compatPipe).
func (p *compatJSQd) dispatchPiped(s *State, r *rand.Rand) int {
	q := p.pipe
	adj, length := p.adj, s.length
	if !q.started {
		q.started = true
		for i := range compatAhead {
			sl := p.slotPair(p.types.draw(r), r)
			q.servers[i] = [2]uint32{adj[sl[0]], adj[sl[1]]}
			q.slots[i] = p.slotPair(p.types.draw(r), r)
			q.types[i] = p.types.draw(r)
		}
	}
	i := q.k % compatAhead
	q.k++
	cur := q.servers[i]
	// The servers of the arrival compatAhead later; prefetch their lengths.
	sl := q.slots[i]
	a, b := adj[sl[0]], adj[sl[1]]
	q.servers[i] = [2]uint32{a, b}
	prefetch(&length[a])
	prefetch(&length[b])
	// The positions of the arrival 2*compatAhead later; prefetch the entries.
	sl = p.slotPair(q.types[i], r)
	q.slots[i] = sl
	prefetch((*int32)(unsafe.Pointer(&adj[sl[0]])))
	prefetch((*int32)(unsafe.Pointer(&adj[sl[1]])))
	// The type of the arrival 3*compatAhead later; prefetch its offset.
	t := p.types.draw(r)
	q.types[i] = t
	prefetch((*int32)(unsafe.Pointer(&p.off[t])))
	if length[cur[1]] < length[cur[0]] {
		return int(cur[1])
	}
	return int(cur[0])
}

// Route states the routing distribution: type t arrives with probability
// p_t, and among its k compatible servers a server v of length l is chosen
// with probability (F(a+e) - F(a)) / (F(k) e), where a servers of t are
// longer than l, e have length l, and F(x) = x^d with replacement, C(x, d)
// without: the shortest sampled length is l with probability (F(a+e) -
// F(a))/F(k), and then the first drawn server of that length is uniform among
// the e.
func (p *compatJSQd) Route(sys System, lengths []int, _ int, _ int, out []Choice) []Choice {
	f := func(x int) float64 {
		if p.sampling == WithReplacement {
			return math.Pow(float64(x), float64(p.d))
		}
		if x < p.d {
			return 0
		}
		return binomial(x, p.d)
	}
	prob := make([]float64, sys.N)
	var nb []int
	for t, pt := range compatWeights(p.g) {
		if pt == 0 {
			continue
		}
		nb = compatServers(p.g, t, nb[:0])
		total := f(len(nb))
		for _, v := range nb {
			l := lengths[v]
			a, e := 0, 0
			for _, u := range nb {
				switch {
				case lengths[u] > l:
					a++
				case lengths[u] == l:
					e++
				}
			}
			prob[v] += pt * (f(a+e) - f(a)) / (total * float64(e))
		}
	}
	for j, pj := range prob {
		if pj > 0 {
			out = append(out, Choice{Server: j, P: pj})
		}
	}
	return out
}

// compatServers appends the servers compatible with type t to nb.
func compatServers(g *compat.Graph, t int, nb []int) []int {
	if g.IsComplete() {
		for j := range g.Servers() {
			nb = append(nb, j)
		}
		return nb
	}
	for _, j := range g.ServersOf(t) {
		nb = append(nb, int(j))
	}
	return nb
}

func init() {
	mustRegister(PolicyDef{Name: "compat-jsqd", Uses: append([]string{keyD, keySampling}, compatKeys...),
		Build: func(v *param.Values) (Policy, error) {
			d, s := v.Int(keyD), parseSampling(v.String(keySampling))
			return newCompatPolicy(v, fmt.Sprintf("compat-jsqd(d=%d,%s,", d, s),
				func(g *compat.Graph) Policy { return CompatJSQdSampling(g, d, s) })
		}})
}
