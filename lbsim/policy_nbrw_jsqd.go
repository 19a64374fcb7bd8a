package lbsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"unsafe"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/param"
)

// Walk is the kind of random walk the walkers of WalkJSQd take.
type Walk int

const (
	// NonBacktracking walks (the default) never go straight back along the
	// edge they just used, unless it is the only edge (a vertex of degree 1).
	NonBacktracking Walk = iota
	// SimpleWalk is the simple random walk: a uniform neighbour at each step.
	SimpleWalk
)

func (w Walk) String() string {
	switch w {
	case NonBacktracking:
		return "nbrw"
	case SimpleWalk:
		return "srw"
	}
	return fmt.Sprintf("Walk(%d)", int(w))
}

// NBRWJSQd is the power of d choices with the d servers sampled by d
// non-backtracking random walks on g (Tang and Subramanian, "Derandomized load
// balancing using random walks on expander graphs", 2019): WalkJSQd(g, d,
// NonBacktracking, 1).
func NBRWJSQd(g *graph.Graph, d int) Policy { return WalkJSQd(g, d, NonBacktracking, 1) }

// WalkJSQd samples servers by random walks: the dispatcher keeps d walkers on
// the vertices (servers) of g. At each arrival every walker takes steps steps
// of the given walk, independently of the others, and the task joins the
// least loaded of the d walkers' positions; ties are broken uniformly among
// the tied walkers (so a server that holds two tied walkers is twice as
// likely, as in sampling with replacement). Tasks have no origin.
//
// A non-backtracking step from v, entered from u, goes to a uniform neighbour
// of v other than u; at a vertex of degree 1 the walk must go back. A simple
// step goes to a uniform neighbour. Walkers start, at the first arrival of a
// replication, on independent uniformly random directed edges (u, v), drawn
// from the replication's stream: at v, having come from u. That is the
// stationary law of both walks (the non-backtracking walk, with its forced
// returns from degree-1 vertices, is doubly stochastic on directed edges, and
// the simple walk's stationary position is degree-biased, as the head of a
// uniform directed edge is), so there is no walker-induced transient. On a
// non-regular graph a walker therefore visits each server in proportion to
// its degree, and with d = 1 so does the load.
//
// On a k-regular graph with k >= 3 a non-backtracking step has k-1 choices,
// log2(k-1) bits of entropy against log2(N) for a uniform server; see
// WalkSampleBits and CountDraws for what is drawn in practice. Steps draw
// from a per-replication pool of random bits: a choice among m <= 16 options
// takes 8 bits, m <= 4096 16 bits, larger m 32 bits (Lemire's
// multiply-and-reject, exact), so a 64-bit word serves up to 8 steps; a
// choice with one option (a degree-2 vertex for the non-backtracking walk)
// takes none. On a cycle the non-backtracking walk is deterministic: each
// walker goes round in the direction it started in.
//
// The graph may be any simple graph (not necessarily regular or connected:
// walkers stay in the component they start in, which then receives tasks in
// proportion to its edges) with no isolated vertex; the implicit complete
// graph (graph.Complete) is handled without neighbour lists. The cost per
// arrival is O(d*steps) for the walks (each step reads one neighbour list
// entry) plus O(d) for the minimum, independent of N and of the degree. The
// walks do not depend on the queues, so each walker's moves are drawn one
// arrival ahead (two for the first step on a regular graph) and the entries
// they read are prefetched: the law is the same, and the cache misses of a
// large graph leave the dispatch's critical path.
//
// WalkJSQd implements StatefulRouter: the exact chain carries every walker's
// directed edge (non-backtracking) or vertex (simple walk), so it has
// (2|E|)^d or N^d policy states; see Route.
func WalkJSQd(g *graph.Graph, d int, walk Walk, steps int) Policy {
	return &walkJSQd{g: g, d: d, walk: walk, steps: steps}
}

type walkJSQd struct {
	g     *graph.Graph
	d     int
	walk  Walk
	steps int

	// Prepared per replication.
	n        int
	complete bool
	off      []uint64
	adj      []uint32
	// k is the degree of a regular graph (the neighbours of v are then
	// adj[v*k:(v+1)*k], with no offset to load), 0 otherwise; fast is set
	// when k > 0 and a step has a choice to draw (not the non-backtracking
	// walk on a perfect matching), and npos then holds each walker's
	// predrawn entry (see plan).
	k    uint32
	fast bool
	npos []uint64
	// cur and prev are the walkers' positions and the vertices they came
	// from; ncur and nprev where they will be after the next arrival's steps
	// (see plan); started reports whether they have been drawn.
	cur, prev   []uint32
	ncur, nprev []uint32
	started     bool
	bits        bitPool
}

func (p *walkJSQd) Name() string {
	return fmt.Sprintf("nbrw-jsqd(d=%d,walk=%s,steps=%d)", p.d, p.walk, p.steps)
}

// Uses declares no origin: the walkers, not the task's origin, pick the
// servers.
func (p *walkJSQd) Uses() Needs { return Needs{} }

func (p *walkJSQd) validate(n int) error {
	switch {
	case p.d < 1 || p.d > n:
		return fmt.Errorf("d = %d: must be between 1 and the number of servers (%d)", p.d, n)
	case p.walk != NonBacktracking && p.walk != SimpleWalk:
		return fmt.Errorf("walk = %d: must be nbrw (non-backtracking) or srw (simple)", int(p.walk))
	case p.steps < 1:
		return fmt.Errorf("steps = %d: must be at least 1 (walk steps per arrival)", p.steps)
	}
	if err := checkGraph(p.g, n); err != nil {
		return err
	}
	if n < 2 {
		return fmt.Errorf("servers = %d: a random walk needs at least 2 servers", n)
	}
	if !p.g.IsComplete() {
		off := p.g.Offsets()
		for v := range n {
			if off[v+1] == off[v] {
				return fmt.Errorf("graph: vertex %d has no neighbour; a random walk needs every degree >= 1", v)
			}
		}
	}
	return nil
}

func (p *walkJSQd) Prepare(sys System) (Policy, error) {
	if err := p.validate(sys.N); err != nil {
		return nil, err
	}
	q := &walkJSQd{g: p.g, d: p.d, walk: p.walk, steps: p.steps, n: sys.N, complete: p.g.IsComplete(),
		cur: make([]uint32, p.d), prev: make([]uint32, p.d), ncur: make([]uint32, p.d), nprev: make([]uint32, p.d)}
	if !q.complete {
		q.off, q.adj = p.g.Offsets(), p.g.Adjacency()
		if deg := graph.Degrees(p.g); deg.Min == deg.Max && deg.Max < math.MaxUint32 {
			q.k = uint32(deg.Max)
			q.fast = q.walk == SimpleWalk || q.k >= 2
			q.npos = make([]uint64, q.d)
		}
	}
	return q, nil
}

// start puts every walker on a uniformly random directed edge and plans its
// first move.
func (p *walkJSQd) start(s *State, r *rand.Rand) {
	for w := range p.d {
		if p.complete {
			c := uint32(r.Uint64N(uint64(p.n)))
			u := uint32(r.Uint64N(uint64(p.n - 1)))
			if u >= c {
				u++
			}
			p.place(w, c, u, s, r)
		} else {
			e := r.Uint64N(uint64(len(p.adj)))
			p.place(w, p.adj[e], uint32(sourceOf(p.off, e)), s, r)
		}
	}
	p.started = true
}

// sourceOf returns the vertex whose neighbour list holds entry e.
func sourceOf(off []uint64, e uint64) int {
	return sort.Search(len(off)-1, func(v int) bool { return off[v+1] > e })
}

// place puts walker w at c, come from u, and plans its next move.
func (p *walkJSQd) place(w int, c, u uint32, s *State, r *rand.Rand) {
	p.cur[w], p.prev[w] = c, u
	if p.fast {
		p.predraw(w, c, r)
	}
	p.plan(w, s, r)
}

// plan draws walker w's moves at the next arrival, steps steps from where it
// is now, and prefetches what that arrival will read. The moves do not depend
// on the queues, so drawing them early does not change the law of the walk;
// it takes the neighbour-list reads, cache misses on a large graph, off the
// path of the dispatch that needs them. On a regular graph (p.fast) the
// first step's neighbour entry was drawn and prefetched one arrival earlier
// still (predraw), since the list of v starts at v*k without an offset to
// load.
func (p *walkJSQd) plan(w int, s *State, r *rand.Rand) {
	c, u := p.cur[w], p.prev[w]
	t := 0
	if p.fast {
		c, u = p.stepAt(p.npos[w], u), c
		t = 1
	}
	for ; t < p.steps; t++ {
		c, u = p.step(c, u, r), c
	}
	p.ncur[w], p.nprev[w] = c, u
	prefetch(&s.length[c])
	switch {
	case p.fast:
		p.predraw(w, c, r)
	case !p.complete:
		prefetch((*int32)(unsafe.Pointer(&p.off[c])))
	}
}

// predraw draws the neighbour-list entry of the first step from c (regular
// graphs) and prefetches it: position i among the k (simple walk) or k-1
// (non-backtracking, skipping the previous vertex at stepAt) choices.
func (p *walkJSQd) predraw(w int, c uint32, r *rand.Rand) {
	m := p.k
	if p.walk == NonBacktracking {
		m--
	}
	e := uint64(c)*uint64(p.k) + uint64(p.bits.bounded(r, m))
	p.npos[w] = e
	prefetch((*int32)(unsafe.Pointer(&p.adj[e])))
	if p.walk == NonBacktracking {
		prefetch((*int32)(unsafe.Pointer(&p.adj[e+1])))
	}
}

// stepAt completes a step whose entry e was drawn by predraw, for a walker
// come from u.
func (p *walkJSQd) stepAt(e uint64, u uint32) uint32 {
	if p.walk == NonBacktracking {
		e += uint64(b2i(p.adj[e] >= u))
	}
	return p.adj[e]
}

// step returns the vertex a walker at c, come from u, moves to.
func (p *walkJSQd) step(c, u uint32, r *rand.Rand) uint32 {
	if p.complete {
		n := uint32(p.n)
		if p.walk == SimpleWalk {
			x := p.bits.bounded(r, n-1)
			if x >= c {
				x++
			}
			return x
		}
		if n == 2 {
			return u
		}
		// A uniform vertex other than c and u: skip both, in order.
		x := p.bits.bounded(r, n-2)
		a, b := min(c, u), max(c, u)
		if x >= a {
			x++
		}
		if x >= b {
			x++
		}
		return x
	}
	var base uint64
	var deg uint32
	if p.k > 0 { // regular: no offset to load
		base, deg = uint64(c)*uint64(p.k), p.k
	} else {
		base = p.off[c]
		deg = uint32(p.off[c+1] - base)
	}
	if p.walk == SimpleWalk {
		return p.adj[base+uint64(p.bits.bounded(r, deg))]
	}
	if deg == 1 {
		return u // forced back
	}
	// A uniform neighbour other than u: the list is sorted, so position i of
	// the list without u is entry i if that is below u, entry i+1 otherwise
	// (a branch-free skip: the comparison is a coin flip for the predictor).
	i := base + uint64(p.bits.bounded(r, deg-1))
	i += uint64(b2i(p.adj[i] >= u))
	return p.adj[i]
}

func (p *walkJSQd) Dispatch(s *State, _ int, r *rand.Rand) int {
	if !p.started {
		if p.n != s.N() || p.cur == nil { // a value used without Prepare
			q, err := p.Prepare(s.System())
			if err != nil {
				panic(err)
			}
			*p = *q.(*walkJSQd)
		}
		p.start(s, r)
	}
	length := s.length
	for w := range p.d {
		p.cur[w], p.prev[w] = p.ncur[w], p.nprev[w]
		p.plan(w, s, r)
	}
	best := p.cur[0]
	if p.d == 1 {
		return int(best)
	}
	bl, ties := length[best], uint32(1)
	for _, v := range p.cur[1:] {
		switch l := length[v]; {
		case l < bl:
			best, bl, ties = v, l, 1
		case l == bl:
			ties++
		}
	}
	if ties == 1 {
		return int(best)
	}
	// Uniform among the tied walkers: the k-th of them, in walker order.
	k := p.bits.bounded(r, ties)
	for _, v := range p.cur {
		if length[v] == bl {
			if k == 0 {
				return int(v)
			}
			k--
		}
	}
	return int(best) // not reached
}

// bitPool hands out random bits from 64-bit words, w in {8, 16, 32} at a
// time, so that a choice among few options does not cost a whole word.
type bitPool struct {
	buf  uint64
	left uint
}

// take returns the next w bits, refilling from r when fewer than w are left
// (the remainder is dropped).
func (b *bitPool) take(r *rand.Rand, w uint) uint64 {
	if b.left < w {
		b.buf, b.left = r.Uint64(), 64
	}
	x := b.buf & (1<<w - 1)
	b.buf >>= w
	b.left -= w
	return x
}

// bounded returns a uniform integer in [0, m), m >= 1, by Lemire's
// multiply-and-reject on w-bit words (w = 8 for m <= 16, 16 for m <= 4096, 32
// above): x*m >> w is uniform once the low w bits of x*m are at least 2^w mod
// m, which fails with probability below m/2^w (1/16 at most). m = 1 draws
// nothing.
func (b *bitPool) bounded(r *rand.Rand, m uint32) uint32 {
	if m <= 1 {
		return 0
	}
	w := uint(32)
	switch {
	case m <= 16:
		w = 8
	case m <= 4096:
		w = 16
	}
	mask := uint64(1)<<w - 1
	prod := b.take(r, w) * uint64(m)
	if prod&mask < uint64(m) {
		t := (mask + 1 - uint64(m)) % uint64(m) // 2^w mod m
		for prod&mask < t {
			prod = b.take(r, w) * uint64(m)
		}
	}
	return uint32(prod >> w)
}

// walkGraph is the neighbour structure Route reads: explicit lists, or the
// implicit complete graph.
func (p *walkJSQd) degree(v int) int {
	if p.g.IsComplete() {
		return p.g.N() - 1
	}
	return p.g.Degree(v)
}

func (p *walkJSQd) neighbour(v, i int) int {
	if p.g.IsComplete() {
		if i >= v {
			return i + 1
		}
		return i
	}
	return int(p.g.Neighbors(v)[i])
}

// position returns the index of u in v's neighbour list (u ~ v).
func (p *walkJSQd) position(v, u int) int {
	if p.g.IsComplete() {
		if u > v {
			return u - 1
		}
		return u
	}
	nb := p.g.Neighbors(v)
	return sort.Search(len(nb), func(i int) bool { return int(nb[i]) >= u })
}

// entries returns the number of directed edges, 2|E|.
func (p *walkJSQd) entries() int {
	n := p.g.N()
	if p.g.IsComplete() {
		return n * (n - 1)
	}
	return len(p.g.Adjacency())
}

// walkerStates is the number of states of one walker in the exact chain: its
// directed edge (non-backtracking) or its vertex (simple walk).
func (p *walkJSQd) walkerStates() int {
	if p.walk == NonBacktracking {
		return p.entries()
	}
	return p.g.N()
}

// PolicyStates returns (2|E|)^d for the non-backtracking walk and N^d for
// the simple walk (math.MaxInt if that overflows: too many for the exact
// solver in any case).
func (p *walkJSQd) PolicyStates(System) int {
	b, total := p.walkerStates(), 1
	for range p.d {
		if total > math.MaxInt/b {
			return math.MaxInt
		}
		total *= b
	}
	return total
}

// walker is one walker's state in Route: at vertex cur, having come from
// prev (-1 for the simple walk, which does not need it).
type walker struct{ prev, cur int }

func (p *walkJSQd) encode(w walker) int {
	if p.walk == SimpleWalk {
		return w.cur
	}
	// The directed edge prev -> cur: its entry in prev's list.
	if p.g.IsComplete() {
		return w.prev*(p.g.N()-1) + p.position(w.prev, w.cur)
	}
	return int(p.g.Offsets()[w.prev]) + p.position(w.prev, w.cur)
}

func (p *walkJSQd) decode(x int) walker {
	if p.walk == SimpleWalk {
		return walker{prev: -1, cur: x}
	}
	if p.g.IsComplete() {
		u := x / (p.g.N() - 1)
		return walker{prev: u, cur: p.neighbour(u, x%(p.g.N()-1))}
	}
	u := sourceOf(p.g.Offsets(), uint64(x))
	return walker{prev: u, cur: int(p.g.Adjacency()[x])}
}

// moves returns the law of one walker's state after p.steps steps from w,
// as (encoded state, probability) pairs.
func (p *walkJSQd) moves(w walker) []Choice {
	type weighted struct {
		w walker
		p float64
	}
	cur := []weighted{{w, 1}}
	for range p.steps {
		var nxt []weighted
		for _, x := range cur {
			deg := p.degree(x.w.cur)
			var opts []int
			for i := range deg {
				v := p.neighbour(x.w.cur, i)
				if p.walk == NonBacktracking && v == x.w.prev && deg > 1 {
					continue
				}
				opts = append(opts, v)
			}
			for _, v := range opts {
				y := walker{prev: x.w.cur, cur: v}
				if p.walk == SimpleWalk {
					y.prev = -1
				}
				nxt = append(nxt, weighted{y, x.p / float64(len(opts))})
			}
		}
		cur = nxt
	}
	// Merge equal end states; Choice.Next holds the encoded state and
	// Choice.Server the position.
	var out []Choice
	for _, x := range cur {
		e := p.encode(x.w)
		merged := false
		for i := range out {
			if out[i].Next == e {
				out[i].P += x.p
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, Choice{Server: x.w.cur, Next: e, P: x.p})
		}
	}
	return out
}

// Route states the exact routing of a task when the walkers are in the joint
// state pstate = sum_w s_w B^w (walker 0 least significant), where B is the
// number of directed edges 2|E| and s_w the index of walker w's directed edge
// (u, v) in the CSR adjacency (entry of v in u's list; on the implicit
// complete graph u*(N-1) plus v's position among u's neighbours) for the
// non-backtracking walk, or B = N and s_w the walker's vertex for the simple
// walk. Every walker's moves are enumerated (all (k-1)^steps paths), the
// walkers are independent, and the task joins each of the t tied shortest
// walkers' positions with probability 1/t.
func (p *walkJSQd) Route(sys System, lengths []int, pstate int, _ int, out []Choice) []Choice {
	b := p.walkerStates()
	laws := make([][]Choice, p.d)
	for w := range p.d {
		laws[w] = p.moves(p.decode(pstate % b))
		pstate /= b
	}
	idx := make([]int, p.d)
	for {
		prob, next, scale := 1.0, 0, 1
		best, ties := -1, 0
		for w, i := range idx {
			c := laws[w][i]
			prob *= c.P
			next += c.Next * scale
			scale *= b
			switch {
			case best < 0 || lengths[c.Server] < best:
				best, ties = lengths[c.Server], 1
			case lengths[c.Server] == best:
				ties++
			}
		}
		for w, i := range idx {
			if c := laws[w][i]; lengths[c.Server] == best {
				out = append(out, Choice{Server: c.Server, Next: next, P: prob / float64(ties)})
			}
		}
		w := 0
		for w < p.d && idx[w] == len(laws[w])-1 {
			idx[w] = 0
			w++
		}
		if w == p.d {
			break
		}
		idx[w]++
	}
	return out
}

// The keys of nbrw-jsqd besides d and the graph keys.
const (
	keyWalk  = "walk"
	keySteps = "steps"
)

// maxWalkSteps bounds the steps key: more steps than this per arrival is
// i.i.d. sampling at a higher price.
const maxWalkSteps = 1 << 20

func init() {
	mustRegister(PolicyDef{
		Name: "nbrw-jsqd",
		NewKeys: []param.Key{
			{Name: keyWalk, Kind: param.String, Arg: "nbrw|srw", For: []string{}, Enum: []string{"nbrw", "srw"},
				DefaultDoc: "nbrw", Default: param.Constant("nbrw"),
				Doc: "walk of the nbrw-jsqd walkers: nbrw (non-backtracking) or srw (simple random walk)"},
			{Name: keySteps, Kind: param.Int, Arg: "S", For: []string{}, DefaultDoc: "1", Default: param.Constant(1),
				Doc: "walk steps each nbrw-jsqd walker takes per arrival", Check: param.IntBetween(1, maxWalkSteps)},
		},
		Uses: append([]string{keyD, keyWalk, keySteps}, graphKeys...),
		Build: func(v *param.Values) (Policy, error) {
			walk := NonBacktracking
			if v.String(keyWalk) == "srw" {
				walk = SimpleWalk
			}
			d, steps := v.Int(keyD), v.Int(keySteps)
			if n := v.Int(keyServers); n < 2 {
				return nil, fmt.Errorf("servers = %d: policy nbrw-jsqd needs at least 2 servers", n)
			}
			w, err := newGraphPolicy(v, fmt.Sprintf("nbrw-jsqd(d=%d,walk=%s,steps=%d,", d, walk, steps),
				func(g *graph.Graph) Policy { return WalkJSQd(g, d, walk, steps) })
			if err != nil {
				return nil, err
			}
			w.origin = false // the walkers, not an origin, pick the candidates
			return statefulLazyPolicy{w}, nil
		},
	})
}
