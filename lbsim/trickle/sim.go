package trickle

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/model"
)

// MaxNodes bounds the number of nodes of a simulation: a replication holds
// about BytesPerNode bytes per node.
const MaxNodes = 20_000_000

// BytesPerNode bounds the memory a replication holds per node (its state,
// its share of the calendar, at most 8 buckets of 4 bytes rounded up to a
// power of two, and its transmission count), besides the graph.
const BytesPerNode = 32 + 4*2*8 + 4

// Config describes a simulation of Trickle (see the package documentation).
type Config struct {
	// Nodes is n.
	Nodes int
	// K is the redundancy constant k >= 1.
	K int
	// Eta is the listen-only fraction, in [0, 1).
	Eta float64
	// Tau is the interval length (the largest interval Imax with
	// doubling); 0 means 1.
	Tau float64
	// Imin, if in (0, Tau), turns on the doubling of RFC 6206: a node's
	// first interval has length Imin and each next one twice the previous,
	// up to Tau. 0 means no doubling (every interval has length Tau).
	Imin float64
	// Sync starts every node's first interval at time 0; otherwise node i
	// starts at a_i, uniform in [0, first interval length), drawn once per
	// replication.
	Sync bool
	// Graph is the hearing graph on Nodes vertices; nil or an implicit
	// complete graph (graph.Complete) is the single cell.
	Graph *graph.Graph
	// Horizon is the simulated time of a replication; transmissions are
	// counted in [Warmup, Horizon).
	Horizon float64
	Warmup  float64
	// Replications (0: 1); replication r draws from mc.Stream(Seed, r).
	Replications int
	Seed         uint64
	// Workers bounds the replications run at once (0: GOMAXPROCS); the
	// result does not depend on it.
	Workers int
	// Progress, if not nil, is called with the fraction done, from any
	// goroutine.
	Progress func(fraction float64)
	// KeepGaps keeps up to this many inter-broadcast times of each
	// replication (in the measurement window, in order) in Result.Gaps.
	KeepGaps int
	// Quantiles are the probabilities of the reported inter-broadcast
	// quantiles (nil: DefaultQuantiles).
	Quantiles []float64
}

// DefaultQuantiles are the probabilities of the reported inter-broadcast
// time quantiles.
var DefaultQuantiles = []float64{0.05, 0.25, 0.5, 0.75, 0.95}

// PerNodeProbabilities are the probabilities of the reported quantiles of
// the per-node transmission rates (min, 10%, median, 90%, max).
var PerNodeProbabilities = []float64{0, 0.1, 0.5, 0.9, 1}

func (c *Config) tau() float64 {
	if c.Tau == 0 {
		return 1
	}
	return c.Tau
}

// Check validates the configuration; errors name the key and its range.
func (c *Config) Check() error {
	switch {
	case c.Nodes < 1 || c.Nodes > MaxNodes:
		return fmt.Errorf("nodes = %d: must be between 1 and %d", c.Nodes, MaxNodes)
	case c.K < 1:
		return fmt.Errorf("k = %d: must be at least 1", c.K)
	case !(c.Eta >= 0 && c.Eta < 1):
		return fmt.Errorf("eta = %v: must be in [0, 1)", c.Eta)
	case !(c.tau() > 0) || math.IsInf(c.tau(), 0):
		return fmt.Errorf("tau = %v: must be a finite time > 0", c.Tau)
	case math.IsNaN(c.Imin) || c.Imin < 0 || c.Imin > c.tau():
		return fmt.Errorf("imin = %v: must be in (0, tau = %v]", c.Imin, c.tau())
	case !(c.Horizon > 0) || math.IsInf(c.Horizon, 0):
		return fmt.Errorf("horizon = %v: must be a finite time > 0", c.Horizon)
	case !(c.Warmup >= 0 && c.Warmup < c.Horizon):
		return fmt.Errorf("warmup = %v: must be in [0, horizon = %v)", c.Warmup, c.Horizon)
	case checkWindow(c.Horizon, c.Warmup, c.tau()) != nil:
		return checkWindow(c.Horizon, c.Warmup, c.tau())
	case c.Replications < 0:
		return fmt.Errorf("replications = %d: must be >= 1", c.Replications)
	case c.Workers < 0:
		return fmt.Errorf("workers = %d: must be >= 0 (0: all cores)", c.Workers)
	case c.KeepGaps < 0:
		return fmt.Errorf("keep gaps = %d: must be >= 0", c.KeepGaps)
	case c.Graph != nil && c.Graph.N() != c.Nodes:
		return fmt.Errorf("graph: has %d vertices, want nodes = %d", c.Graph.N(), c.Nodes)
	}
	for _, p := range c.Quantiles {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("quantile %v: must be in [0, 1]", p)
		}
	}
	return nil
}

// checkWindow requires the measurement window [warmup, horizon) to hold at
// least one interval tau: messages are counted per interval
// (MessagesPerInterval = Messages*tau/(horizon-warmup)), and a shorter
// window would extrapolate that count from a fraction of one interval. The
// comparison allows a relative rounding error of 1e-12, so that horizon =
// warmup + tau written in decimal passes.
func checkWindow(horizon, warmup, tau float64) error {
	if w := horizon - warmup; w < tau*(1-1e-12) {
		return fmt.Errorf("horizon = %v (warmup = %.6g): the measurement window horizon - warmup = %.6g is shorter than one interval (tau = %v); "+
			"must be horizon - warmup >= tau, messages being counted per interval", horizon, warmup, w, tau)
	}
	return nil
}

// Rep is the outcome of one replication.
type Rep struct {
	// Events counts the resets and transmission decisions processed.
	Events int64 `json:"events"`
	// Messages counts the transmissions in [Warmup, Horizon).
	Messages int64 `json:"messages"`
	// MessagesPerInterval is Messages*Tau/(Horizon-Warmup).
	MessagesPerInterval float64 `json:"messages_per_interval"`
	// InterbroadcastMean is the mean time between consecutive
	// transmissions in the window (NaN with fewer than two).
	InterbroadcastMean float64 `json:"interbroadcast_mean"`

	perNode []int32
	gaps    *gapHist
	kept    []float64
}

// Result is the outcome of the replications. The fields are in the order of
// the JSON object lbsim trickle has always written: the figures that may be
// NaN (half-widths of one replication, a mean gap without gaps) come after
// per_replication.
type Result struct {
	Nodes int     `json:"nodes"`
	K     int     `json:"k"`
	Eta   float64 `json:"eta"`
	Tau   float64 `json:"tau"`
	Sync  bool    `json:"sync"`
	// Events counts the node events (interval starts and transmission
	// decisions) of all replications.
	Events      int64   `json:"events"`
	WallSeconds float64 `json:"wall_seconds"`
	// EventsPerSecond is Events/WallSeconds (all workers together).
	EventsPerSecond float64 `json:"events_per_second"`
	// MessagesPerInterval is the mean number of transmissions per interval
	// length Tau in the whole network, over replications, with its 95%
	// half-width MessagesPerIntervalCI95.
	MessagesPerInterval float64 `json:"messages_per_interval"`
	// PerNodeRate is MessagesPerInterval/Nodes: transmissions per interval
	// per node (half-width PerNodeRateCI95).
	PerNodeRate float64 `json:"per_node_rate"`
	// PerNodeQuantiles are quantiles (at PerNodeProbabilities) of the
	// per-node transmissions per interval, over nodes, pooled over
	// replications: in a single cell they are alike, in a multi-cell
	// network they differ with the neighbourhoods.
	PerNodeQuantiles []float64 `json:"per_node_quantiles"`
	// InterbroadcastProbabilities and InterbroadcastQuantiles: quantiles
	// of the time between consecutive transmissions in the whole network,
	// pooled over replications (from a log-spaced histogram: relative
	// resolution 1e-3).
	InterbroadcastProbabilities []float64 `json:"interbroadcast_probabilities"`
	Replications                int       `json:"replications"`
	PerReplication              []Rep     `json:"per_replication"`
	MessagesPerIntervalCI95     float64   `json:"messages_per_interval_ci95"`
	PerNodeRateCI95             float64   `json:"per_node_rate_ci95"`
	InterbroadcastQuantiles     []float64 `json:"interbroadcast_quantiles"`
	// InterbroadcastMean is the mean inter-broadcast time over the
	// replications, with its 95% half-width.
	InterbroadcastMean     float64 `json:"interbroadcast_mean"`
	InterbroadcastMeanCI95 float64 `json:"interbroadcast_mean_ci95"`
	// ApproxMessagesPerInterval and ApproxPerNodeRate are the multi-cell
	// approximation of MessagesPerInterval and PerNodeRate (Approximate),
	// set by lbsim trickle (0 when not computed).
	ApproxMessagesPerInterval float64 `json:"approx_messages_per_interval"`
	ApproxPerNodeRate         float64 `json:"approx_per_node_rate"`

	// PerNode is each node's transmissions per interval, averaged over the
	// replications (for plots; not in the JSON).
	PerNode []float64 `json:"-"`
	// Gaps holds the first KeepGaps inter-broadcast times of each
	// replication.
	Gaps [][]float64 `json:"-"`
}

// MarshalJSON writes r with NaN (a half-width of one replication, a mean
// gap without gaps) as null, which JSON cannot write otherwise
// (model.MarshalObject).
func (r *Result) MarshalJSON() ([]byte, error) { return model.MarshalObject(r) }

// MarshalJSON writes the mean gap of a replication with fewer than two
// transmissions (NaN) as null (model.MarshalObject).
func (r Rep) MarshalJSON() ([]byte, error) { return model.MarshalObject(r) }

// Simulate runs the replications.
func Simulate(ctx context.Context, c Config) (*Result, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	reps := max(c.Replications, 1)
	start := time.Now()
	out := make([]Rep, reps)
	err := mc.Replicate(reps, c.Workers, 1, c.Progress, func(r int, tick func(float64)) error { // tick takes the fraction done
		e := newEngine(&c, mc.Source(c.Seed, uint64(r)))
		err := e.run(ctx, tick)
		out[r] = e.rep
		return err
	})
	if err != nil {
		return nil, err
	}
	return aggregate(&c, out, time.Since(start)), nil
}

func aggregate(c *Config, reps []Rep, wall time.Duration) *Result {
	tau := c.tau()
	n := c.Nodes
	res := &Result{Nodes: n, K: c.K, Eta: c.Eta, Tau: tau, Sync: c.Sync, Replications: len(reps),
		PerReplication: reps, WallSeconds: wall.Seconds()}
	mpi := make([]float64, len(reps))
	means := make([]float64, len(reps))
	hist := newGapHist(tau)
	window := c.Horizon - c.Warmup
	perNode := make([]float64, n)
	for r := range reps {
		rep := &reps[r]
		res.Events += rep.Events
		mpi[r] = rep.MessagesPerInterval
		means[r] = rep.InterbroadcastMean
		hist.add(rep.gaps)
		for i, m := range rep.perNode {
			perNode[i] += float64(m) * tau / window / float64(len(reps))
		}
		if c.KeepGaps > 0 {
			res.Gaps = append(res.Gaps, rep.kept)
		}
	}
	res.MessagesPerInterval, res.MessagesPerIntervalCI95 = mc.MeanCI95(mpi)
	res.PerNodeRate, res.PerNodeRateCI95 = res.MessagesPerInterval/float64(n), res.MessagesPerIntervalCI95/float64(n)
	res.InterbroadcastMean, res.InterbroadcastMeanCI95 = mc.MeanCI95(means)
	res.InterbroadcastProbabilities = c.Quantiles
	if res.InterbroadcastProbabilities == nil {
		res.InterbroadcastProbabilities = DefaultQuantiles
	}
	for _, p := range res.InterbroadcastProbabilities {
		res.InterbroadcastQuantiles = append(res.InterbroadcastQuantiles, hist.quantile(p))
	}
	res.PerNode = perNode
	sorted := slices.Clone(perNode)
	slices.Sort(sorted)
	for _, p := range PerNodeProbabilities {
		res.PerNodeQuantiles = append(res.PerNodeQuantiles, sorted[int(math.Round(p*float64(n-1)))])
	}
	if s := wall.Seconds(); s > 0 {
		res.EventsPerSecond = float64(res.Events) / s
	}
	return res
}

// node is the state of one node: its pending event (the transmission
// decision of its current interval, or the start of its next interval), and
// its counter.
type node struct {
	at    float64 // time of the pending event
	reset float64 // start of the next interval
	// c is, in a single cell, the network's transmission count at the start
	// of the current interval (so the node has heard count-c); in a
	// multi-cell network, the transmissions heard in the current interval.
	c    uint32
	link int32 // next node in the same calendar bucket; -1 ends
	fire bool  // the pending event is the decision (else an interval start)
}

// bucketsPerInterval is the number of calendar buckets per interval length
// and node: with 2 events per node and interval, a bucket holds a quarter
// of an event on average, so most hold none or one. Above 2^18 nodes the
// calendar no longer fits in the caches, and 2 buckets per node (one event
// each on average) cost less in cache misses than the larger buckets cost in
// sorting.
func bucketsPerInterval(n int) int {
	if n > 1<<18 {
		return 2
	}
	return 8
}

// engine runs one replication. Events are kept in a calendar (a ring of
// buckets of width tau/(bucketsPerInterval*n), mostly empty or with one
// event, linked through the nodes: each node has exactly one pending
// event); a bucket is sorted by (time, node) when it comes up, so events are
// processed in exact time order, ties by node id.
type engine struct {
	cfg     *Config
	src     *rand.PCG
	nodes   []node
	head    []int32
	mask    int64
	invW    float64
	cur     int64   // the bucket being processed
	batch   []int32 // its events, sorted
	pos     int     // the index in batch being processed
	inBatch bool    // a batch is being processed
	single  bool
	off     []uint64
	adj     []uint32
	count   uint32 // single cell: transmissions so far
	k       uint32
	eta     float64
	tau     float64
	// ilen holds each node's current interval length with doubling (nil
	// without: every interval has length tau).
	ilen []float64
	mark []uint64 // a bitmap of nodes, for sortIDs

	lastTx float64 // time of the last transmission in the window (-1: none)
	rep    Rep
}

func newEngine(c *Config, src *rand.PCG) *engine {
	n := c.Nodes
	tau := c.tau()
	buckets := 1 << bits.Len(uint(bucketsPerInterval(n)*n+2))
	e := &engine{cfg: c, src: src, nodes: make([]node, n), head: make([]int32, buckets), mask: int64(buckets - 1),
		invW: float64(bucketsPerInterval(n)*n) / tau, k: uint32(c.K), eta: c.Eta, tau: tau, lastTx: -1}
	e.single = c.Graph == nil || c.Graph.IsComplete()
	if !e.single {
		e.off, e.adj = c.Graph.Offsets(), c.Graph.Adjacency()
	}
	for b := range e.head {
		e.head[b] = -1
	}
	e.rep.perNode = make([]int32, n)
	e.rep.gaps = newGapHist(tau)
	first := tau
	if c.Imin > 0 && c.Imin < tau {
		first = c.Imin
	}
	if first < tau {
		// The first interval start doubles ilen to first.
		e.ilen = make([]float64, n)
		for i := range e.ilen {
			e.ilen[i] = first / 2
		}
	}
	for i := range e.nodes {
		a := 0.0
		if !c.Sync {
			a = first * fastrand.Float64(src)
		}
		e.nodes[i] = node{at: a}
		e.push(int32(i), a)
	}
	return e
}

// push puts node i's pending event, at time t, in its bucket.
func (e *engine) push(i int32, t float64) {
	b := int64(t * e.invW)
	if b == e.cur && e.inBatch {
		// The bucket being processed: insert into its sorted rest.
		j, _ := slices.BinarySearchFunc(e.batch[e.pos+1:], i, e.cmp)
		e.batch = slices.Insert(e.batch, e.pos+1+j, i)
		return
	}
	s := b & e.mask
	e.nodes[i].link = e.head[s]
	e.head[s] = i
}

func (e *engine) cmp(a, b int32) int {
	ta, tb := e.nodes[a].at, e.nodes[b].at
	switch {
	case ta < tb:
		return -1
	case ta > tb:
		return 1
	}
	return int(a) - int(b)
}

// sameTime reports whether the events of batch are all at the same time.
func (e *engine) sameTime(batch []int32) bool {
	t := e.nodes[batch[0]].at
	for _, i := range batch[1:] {
		if e.nodes[i].at != t {
			return false
		}
	}
	return true
}

// sortIDs sorts the node ids of batch: by a scan of a bitmap of all nodes
// when batch holds more than a sixteenth of them, else by comparison.
func (e *engine) sortIDs(batch []int32) {
	n := len(e.nodes)
	if len(batch) < n/16 {
		slices.Sort(batch)
		return
	}
	if e.mark == nil {
		e.mark = make([]uint64, (n+63)/64)
	}
	for _, i := range batch {
		e.mark[i>>6] |= 1 << (i & 63)
	}
	batch = batch[:0]
	for w, bitsW := range e.mark {
		for bitsW != 0 {
			batch = append(batch, int32(w<<6+bits.TrailingZeros64(bitsW)))
			bitsW &= bitsW - 1
		}
		e.mark[w] = 0
	}
}

// run processes the events up to the horizon.
func (e *engine) run(ctx context.Context, progress func(float64)) error {
	horizon := e.cfg.Horizon
	last := int64(horizon * e.invW)
	e.batch = make([]int32, 0, 64)
	for e.cur = 0; e.cur <= last; e.cur++ {
		if e.cur&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			progress(float64(e.cur) / float64(last+1))
		}
		s := e.cur & e.mask
		for {
			h := e.head[s]
			if h < 0 {
				break
			}
			if e.nodes[h].link < 0 {
				// One event (the common case): events it schedules in this
				// bucket are later, and go to its list.
				e.head[s] = -1
				t := e.nodes[h].at
				if t >= horizon {
					return e.finish(progress)
				}
				e.step(h, t)
				continue
			}
			e.head[s] = -1
			batch := e.batch[:0]
			for i := h; i >= 0; i = e.nodes[i].link {
				batch = append(batch, i)
			}
			if len(batch) <= 12 {
				for a := 1; a < len(batch); a++ {
					for b := a; b > 0 && e.cmp(batch[b-1], batch[b]) > 0; b-- {
						batch[b-1], batch[b] = batch[b], batch[b-1]
					}
				}
			} else if e.sameTime(batch) {
				// Simultaneous interval starts (synchronized nodes): by id,
				// through a bitmap when they are many.
				e.sortIDs(batch)
			} else {
				slices.SortFunc(batch, e.cmp)
			}
			e.batch, e.inBatch = batch, true
			for e.pos = 0; e.pos < len(e.batch); e.pos++ {
				i := e.batch[e.pos]
				t := e.nodes[i].at
				if t >= horizon {
					return e.finish(progress)
				}
				e.step(i, t)
			}
			e.inBatch = false
		}
	}
	return e.finish(progress)
}

// step processes node i's pending event at time t.
func (e *engine) step(i int32, t float64) {
	e.rep.Events++
	nd := &e.nodes[i]
	if nd.fire {
		heard := nd.c
		if e.single {
			heard = e.count - nd.c
		}
		if heard < e.k {
			e.transmit(i, t)
		}
		nd.fire = false
		nd.at = nd.reset
		e.push(i, nd.at)
		return
	}
	ilen := e.tau
	if e.ilen != nil {
		ilen = min(2*e.ilen[i], e.tau)
		e.ilen[i] = ilen
	}
	if e.single {
		nd.c = e.count
	} else {
		nd.c = 0
	}
	nd.reset = t + ilen
	nd.at = t + ilen*(e.eta+(1-e.eta)*fastrand.Float64(e.src))
	nd.fire = true
	e.push(i, nd.at)
}

// transmit is node i's transmission at time t: its neighbours hear it.
func (e *engine) transmit(i int32, t float64) {
	if e.single {
		e.count++
	} else {
		for _, u := range e.adj[e.off[i]:e.off[i+1]] {
			e.nodes[u].c++
		}
	}
	if t < e.cfg.Warmup {
		return
	}
	e.rep.Messages++
	e.rep.perNode[i]++
	if e.lastTx >= 0 {
		g := t - e.lastTx
		e.rep.gaps.record(g)
		if len(e.rep.kept) < e.cfg.KeepGaps {
			e.rep.kept = append(e.rep.kept, g)
		}
	}
	e.lastTx = t
}

func (e *engine) finish(progress func(float64)) error {
	progress(1)
	window := e.cfg.Horizon - e.cfg.Warmup
	e.rep.MessagesPerInterval = float64(e.rep.Messages) * e.tau / window
	e.rep.InterbroadcastMean = e.rep.gaps.mean()
	return nil
}
