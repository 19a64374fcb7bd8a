package lbsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/param"
)

// NeighbourJSQ is join-the-shortest-queue constrained by a graph: the servers
// are the vertices of g, tasks appear at a uniformly random server (each
// server receives its own Poisson stream of rate lambda; weighted origins with
// Scenario.OriginWeights), and a task joins a server with the fewest tasks
// among its origin and the origin's neighbours, ties broken uniformly at
// random.
//
// Dispatch scans origin + g.Neighbors(origin) once, O(degree), reading the
// neighbour list sequentially: it keeps the running minimum and writes each
// server that equals it into a per-replication buffer (the write is
// unconditional and only the count of ties moves, so the loop has no
// unpredictable branch), then picks one of the tied servers with a single
// bounded draw. On the implicit complete graph (graph.Complete, which has no
// neighbour lists) it is JSQ: the engine keeps the servers sorted by length
// and the choice is O(1) (State.RandomShortest).
//
// On an implicit Erdős-Rényi graph (graph.ErdosRenyiImplicit, topology
// er-implicit), which has no lists either, Dispatch goes the other way round:
// the engine keeps the servers sorted by length, and Dispatch looks for the
// origin's neighbours among the shortest servers of the whole system, level by
// level, testing each pair with the graph's hash (dispatchPairs). Below
// saturation with many idle servers that costs about 1/p tests per arrival
// whatever the degree, and no memory for the graph.
//
// g must have as many vertices as the system has servers (checked by Prepare)
// and no self-loops. NeighbourJSQ implements ExactRouter; it is not an
// OccupancyRouter (servers are not exchangeable on a general graph).
func NeighbourJSQ(g *graph.Graph) Policy { return &neighbourJSQ{g: g} }

// NeighbourJSQFirstIdle is NeighbourJSQ with a cheaper rule when an idle
// server is at hand: the candidates are the origin followed by its neighbours
// in the graph's (sorted) order, and the scan starts at a uniformly random
// position in that list, going round cyclically, and stops at the first idle
// server. Its tie-break therefore differs from NeighbourJSQ: among idle
// candidates it is not uniform (a server that follows a long run of busy
// candidates in the list is more likely to be picked); each of the degree+1
// starting offsets is equally likely, and Route states exactly that
// distribution. When no candidate is idle it falls back to the full scan with
// uniform ties. On the implicit complete graph it is JSQ (uniform among all
// shortest servers, O(1)).
func NeighbourJSQFirstIdle(g *graph.Graph) Policy { return &neighbourJSQ{g: g, firstIdle: true} }

type neighbourJSQ struct {
	g         *graph.Graph
	firstIdle bool
	complete  bool
	off       []uint64
	adj       []uint32
	// pairs decides the edges of an implicit Erdős-Rényi graph (hashed).
	pairs  graph.PairHash
	hashed bool
	// dense: the mean degree is at least probeMinDegree, so that most
	// arrivals probe (full scan only).
	dense bool
	// scanOnly turns probing off (benchmarks of the scan itself).
	scanOnly bool
	// ties holds the servers tied at the running minimum during a scan; it has
	// room for the largest degree plus the origin. Per replication (Prepare).
	ties []uint32
}

func (p *neighbourJSQ) Name() string {
	if p.firstIdle {
		return "neighbour-jsq(first-idle)"
	}
	return "neighbour-jsq"
}

// Uses declares the origin (the choice depends on where the task appears);
// the length order on the implicit complete graph, where Dispatch is
// State.RandomShortest, and on an implicit Erdős-Rényi graph, where
// dispatchPairs reads the servers level by level (on graphs with neighbour
// lists keeping the servers sorted would cost for nothing); and the idle
// bits on graphs whose neighbour lists Dispatch reads (the scan reads them,
// see shortestAmong).
func (p *neighbourJSQ) Uses() Needs {
	order, hashed := false, false
	if p.g != nil {
		_, hashed = p.g.PairHash()
		order = p.g.IsComplete() || hashed && !p.firstIdle
	}
	return Needs{Origin: true, ShortestOrder: order, idleBits: p.g != nil && !p.g.IsComplete() && !order,
		slowDispatch: hashed}
}

// checkGraph validates g against a system of n servers for the graph policies.
func checkGraph(g *graph.Graph, n int) error {
	if g == nil {
		return errors.New("graph: nil; want a graph on the servers")
	}
	if g.N() != n {
		return fmt.Errorf("graph: has %d vertices but the system has %d servers; they must be equal", g.N(), n)
	}
	if g.SelfLoops() > 0 {
		return fmt.Errorf("graph: has %d self-loops; the origin is always a candidate, so a graph policy needs a simple graph", g.SelfLoops())
	}
	return nil
}

func (p *neighbourJSQ) Prepare(sys System) (Policy, error) {
	if err := checkGraph(p.g, sys.N); err != nil {
		return nil, err
	}
	q := &neighbourJSQ{g: p.g, firstIdle: p.firstIdle, scanOnly: p.scanOnly, complete: p.g.IsComplete()}
	q.pairs, q.hashed = p.g.PairHash()
	q.hashed = q.hashed && !q.firstIdle
	switch {
	case q.hashed:
		q.ties = make([]uint32, sys.N)
	case !q.complete:
		q.off, q.adj = p.g.Offsets(), p.g.Adjacency()
		q.ties = make([]uint32, maxDegree(p.g)+1)
		q.dense = !q.firstIdle && !q.scanOnly && len(q.adj) >= probeMinDegree*p.g.N()
	}
	return q, nil
}

// maxDegree returns the largest degree of a graph with neighbour lists.
func maxDegree(g *graph.Graph) int {
	if _, ok := g.Implicit(); ok && g.N() > 0 {
		return g.Degree(0) // every vertex has the same degree
	}
	off := g.Offsets()
	m := uint64(0)
	for v := 1; v < len(off); v++ {
		m = max(m, off[v]-off[v-1])
	}
	return int(m)
}

func (p *neighbourJSQ) Dispatch(s *State, origin int, r *rand.Rand) int {
	if p.complete {
		return s.RandomShortest(r)
	}
	if p.hashed {
		return dispatchPairs(s, p.pairs, origin, p.ties, r)
	}
	length := s.length
	nb := p.adj[p.off[origin]:p.off[origin+1]]
	if p.firstIdle {
		if j := firstIdleFrom(length, origin, nb, r); j >= 0 {
			return j
		}
	}
	if p.dense && len(nb) >= probeMinDegree {
		if batches := probeBatches(len(nb), s.Idle(), len(length)); batches > 0 {
			if j := probeIdle(s.idleBits, origin, nb, batches, r); j >= 0 {
				return j
			}
		}
	}
	return shortestAmong(length, s.idleBits, origin, nb, p.ties, r)
}

// probeMinDegree is the smallest degree at which Dispatch probes random
// candidates before it scans them all (see probeIdle); below it the scan
// costs no more than a batch of probes.
const probeMinDegree = 256

// probeBatches returns how many batches of 8 probes an arrival with degree
// candidates should try when idle of the n servers are idle: as many as give
// about 4 idle candidates in expectation if the neighbourhood is as idle as
// the system, at most one per probeMinDegree candidates (so that probes that
// all fail cost at most about half of the scan that follows them), and none
// when even that many would expect fewer than 2 (near saturation the probes
// would mostly fail, and the scan decides anyway).
func probeBatches(degree, idle, n int) int {
	most := degree / probeMinDegree
	expected := float64(idle) / float64(n) * float64(8*most) // idle candidates in the most probes
	if expected < 2 {
		return 0
	}
	return min(most, int(math.Ceil(4*float64(most)/expected)))
}

// probeIdle looks for an idle server among origin and nb by probing uniformly
// random candidates (with replacement), in batches of 8 whose reads are
// independent (so that their cache misses overlap), batches at most: it
// returns the first idle one probed, or -1 if none was.
//
// This does not change the law of neighbour-jsq (whatever the number of
// batches, which depends on the state only): each probe is uniform among
// the candidates, so the first idle one probed is uniform among the idle
// candidates, and when the probes find none the caller's full scan picks
// uniformly among the shortest, which are then the idle ones if any exist.
// So an idle candidate j is chosen with probability 1/(number of idle
// candidates) either way. On a dense graph below saturation most arrivals
// end after one or two batches instead of a scan of the whole neighbourhood;
// the probes cost at most about half of a scan when they all fail.
func probeIdle(idle []uint64, origin int, nb []uint32, batches int, r *rand.Rand) int {
	n := uint32(len(nb) + 1) // candidate 0 is the origin, i >= 1 is nb[i-1]
	for ; batches > 0; batches-- {
		var cand [8]uint32
		for k := 0; k < len(cand); k += 2 {
			x := r.Uint64()
			a, b := bounded32(r, uint32(x), n), bounded32(r, uint32(x>>32), n)
			cand[k], cand[k+1] = uint32(origin), uint32(origin)
			if a > 0 {
				cand[k] = nb[a-1]
			}
			if b > 0 {
				cand[k+1] = nb[b-1]
			}
		}
		for _, v := range cand {
			if idle[v>>6]>>(v&63)&1 != 0 {
				return int(v)
			}
		}
	}
	return -1
}

// prefetchOrigin asks for the first cache lines of origin's neighbour list,
// where the scan of the next arrival will start; the hardware prefetcher
// follows the rest of the list once the scan runs.
//
// On a dense graph, where Dispatch probes random candidates (see probeIdle)
// rather than scanning, only the origin's offset is prefetched.
func (p *neighbourJSQ) prefetchOrigin(origin int) {
	if p.complete || p.hashed {
		return
	}
	if p.dense {
		prefetch((*int32)(unsafe.Pointer(&p.off[origin])))
		return
	}
	lo, hi := p.off[origin], p.off[origin+1]
	for k := lo; k < hi && k < lo+4*16; k += 16 { // 4 lines of 16 ids
		prefetch((*int32)(unsafe.Pointer(&p.adj[k])))
	}
}

// shortestAmong returns a uniformly random server among the shortest of origin
// and nb, using ties (len(ties) > len(nb)) as scratch.
//
// The first pass collects the idle candidates into ties, reading their bits
// in idle (bit j set when server j is idle; 12.5 kB at N = 10^5, so it stays
// in the first-level cache while the lengths would not): when a candidate is
// idle, the common case on a dense graph below saturation, the shortest length
// is 0 and the idle candidates are exactly the tied ones. Only when none is
// idle do two more passes read the lengths: one for the minimum, one to
// collect the candidates at it. Either way the result is uniform among the
// shortest candidates.
func shortestAmong(length []int32, idle []uint64, origin int, nb []uint32, ties []uint32, r *rand.Rand) int {
	ties = ties[:len(nb)+1]
	ties[0] = uint32(origin)
	c := uintptr(idle[origin>>6] >> (origin & 63) & 1)
	// The loop indexes without bounds checks, which costs a third of its
	// time on a dense graph (it is bound by memory bandwidth otherwise):
	// every v in nb is a vertex of the graph, so v < N and v>>6 < len(idle)
	// (Prepare checked that the graph has N vertices, and package graph that
	// every neighbour id is a vertex); and c <= the number of candidates seen
	// so far < len(ties).
	idleAt := unsafe.Pointer(unsafe.SliceData(idle))
	tieAt := unsafe.Pointer(unsafe.SliceData(ties))
	for _, v := range nb {
		// Always write, count only idle ones: the next candidate overwrites
		// a busy one.
		*(*uint32)(unsafe.Add(tieAt, c*4)) = v
		c += uintptr(*(*uint64)(unsafe.Add(idleAt, uintptr(v>>6)*8)) >> (v & 63) & 1)
	}
	if c == 0 {
		m := length[origin]
		for _, v := range nb {
			m = min(m, length[v])
		}
		ties[0] = uint32(origin)
		if length[origin] == m {
			c = 1
		}
		for _, v := range nb {
			ties[c] = v
			if length[v] == m {
				c++
			}
		}
	}
	if c == 1 {
		return int(ties[0])
	}
	return int(ties[bounded32(r, r.Uint32(), uint32(c))])
}

// dispatchPairs returns a uniformly random server among the shortest of
// origin and its neighbours on an implicit Erdős-Rényi graph, from the full
// length order of s (servers of length L are perm[start[L]:start[L+1]]),
// using ties (len(ties) >= N) as scratch.
//
// It goes through the levels L = 0, 1, ... of the system: the first level
// whose servers include a candidate (the origin or one of its neighbours,
// h.Edge) is the shortest length among the candidates, and the result is
// uniform among the candidates there. At a level expected to hold at least
// rejectMinCandidates candidates it first draws servers of the level
// uniformly at random, at most 4 times its size, and returns the first
// candidate drawn: uniform among the level's candidates, in about
// 1/p draws. If none is drawn (or the level is small), it tests the whole
// level and picks uniformly among the candidates found, or moves up a level
// when there are none. Both routes give the uniform law over the shortest
// candidates; which one runs depends on the state only. The origin is a
// candidate, so the search ends at its level at the latest.
func dispatchPairs(s *State, h graph.PairHash, origin int, ties []uint32, r *rand.Rand) int {
	perm, start, length := s.perm, s.start, s.length
	pDensity := h.P()
	for l := length[perm[0]]; l <= length[origin]; l++ {
		level := perm[start[l]:start[l+1]]
		size := uint32(len(level))
		if size == 0 {
			continue
		}
		if float64(size)*pDensity >= rejectMinCandidates {
			for range 4 * uint64(size) {
				u := int(level[bounded32(r, r.Uint32(), size)])
				if u == origin || h.Edge(origin, u) {
					return u
				}
			}
		}
		c := uint32(0)
		for _, u := range level {
			if int(u) == origin || h.Edge(origin, int(u)) {
				ties[c] = uint32(u)
				c++
			}
		}
		switch {
		case c == 1:
			return int(ties[0])
		case c > 1:
			return int(ties[bounded32(r, r.Uint32(), c)])
		}
	}
	panic("lbsim: neighbour-jsq: the origin's level holds no candidate (the length order is broken)")
}

// rejectMinCandidates is the expected number of candidates in a level above
// which dispatchPairs draws servers of the level at random before testing all
// of them: a level of that many candidates has none with probability about
// e^-8 on a random graph, so the draws rarely end in a full test anyway.
const rejectMinCandidates = 8

// firstIdleFrom scans origin, nb[0], nb[1], ... cyclically from a uniformly
// random position and returns the first idle server, or -1 if none is idle.
func firstIdleFrom(length []int32, origin int, nb []uint32, r *rand.Rand) int {
	k := int(bounded32(r, r.Uint32(), uint32(len(nb)+1)))
	// Position 0 is the origin, position i >= 1 is nb[i-1].
	if k == 0 {
		if length[origin] == 0 {
			return origin
		}
		for _, v := range nb {
			if length[v] == 0 {
				return int(v)
			}
		}
		return -1
	}
	for _, v := range nb[k-1:] {
		if length[v] == 0 {
			return int(v)
		}
	}
	if length[origin] == 0 {
		return origin
	}
	for _, v := range nb[:k-1] {
		if length[v] == 0 {
			return int(v)
		}
	}
	return -1
}

// Route states the exact routing distribution for a task appearing at origin.
func (p *neighbourJSQ) Route(sys System, lengths []int, _ int, origin int, out []Choice) []Choice {
	if p.g.IsComplete() {
		return appendUniformArgmin(out, lengths, nil)
	}
	cand := neighbourCandidates(p.g, origin)
	if p.firstIdle {
		w := 1 / float64(len(cand))
		idle := false
		prob := map[int]float64{}
		var order []int
		for k := range cand {
			for i := range cand {
				j := cand[(k+i)%len(cand)]
				if lengths[j] == 0 {
					if _, ok := prob[j]; !ok {
						order = append(order, j)
					}
					prob[j] += w
					idle = true
					break
				}
			}
		}
		if idle {
			for _, j := range order {
				out = append(out, Choice{Server: j, P: prob[j]})
			}
			return out
		}
	}
	return appendUniformArgmin(out, lengths, cand)
}

// neighbourCandidates returns origin followed by its neighbours in g.
func neighbourCandidates(g *graph.Graph, origin int) []int {
	nb := g.Neighbors(origin)
	cand := make([]int, 0, len(nb)+1)
	cand = append(cand, origin)
	for _, v := range nb {
		cand = append(cand, int(v))
	}
	return cand
}

func init() {
	mustRegister(PolicyDef{Name: "neighbour-jsq", Uses: graphKeys, Build: func(v *param.Values) (Policy, error) {
		return newListFreeGraphPolicy(v, "neighbour-jsq(", NeighbourJSQ)
	}})
	// The first-idle scan from a random offset (NeighbourJSQFirstIdle): a
	// different tie-break among idle neighbours, hence its own name.
	mustRegister(PolicyDef{Name: "neighbour-jsq-first-idle", Uses: graphKeys, Build: func(v *param.Values) (Policy, error) {
		return newGraphPolicy(v, "neighbour-jsq-first-idle(", NeighbourJSQFirstIdle)
	}})
}
