package flows

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/lbsim/notebooks/lbsim/internal/alias"
	"github.com/lbsim/notebooks/lbsim/internal/distinct"
	"github.com/lbsim/notebooks/lbsim/internal/eventheap"
	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
	"github.com/lbsim/notebooks/lbsim/internal/fenwick"
	"github.com/lbsim/notebooks/lbsim/internal/levels"
	"github.com/lbsim/notebooks/lbsim/internal/prefetch"
	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/service"
	"gonum.org/v1/gonum/stat/distuv"
)

// SizeLaw is the law of the number of packets of a flow.
type SizeLaw int

const (
	// Geometric: K >= 1 geometric with mean PacketsPerFlow (each packet is
	// the last with probability 1/PacketsPerFlow).
	Geometric SizeLaw = iota
	// Fixed: K = PacketsPerFlow exactly (an integer).
	Fixed
	// PMF: any discrete law on K >= 1, given by Options.SizeValues and
	// SizeProbs (ParseSizeLaw), of mean PacketsPerFlow.
	PMF
)

var sizeNames = []string{"geometric", "fixed", "pmf"}

func (s SizeLaw) String() string {
	if int(s) < len(sizeNames) {
		return sizeNames[s]
	}
	return fmt.Sprintf("SizeLaw(%d)", int(s))
}

// MaxRecords bounds the packet delays a replication records (8 bytes each,
// 256 MiB): the delay quantiles are exact order statistics of all of them.
const MaxRecords = 1 << 25

// MaxActiveFlows bounds the expected number of flows in progress (16 bytes
// each).
const MaxActiveFlows = 1 << 24

// MaxServers bounds N (about 100 bytes per server).
const MaxServers = 10_000_000

// Options describe a simulation of flows of packets.
type Options struct {
	// Servers is N; each serves packets FIFO, at rate 1 unless Rates.
	Servers int
	// Rates are the per-server service rates mu_i (nil: all 1), absolute as
	// in the dispatch simulator (lbsim.Scenario.Rates), not normalised:
	// server i serves a packet of requirement S (of mean 1: exponential, or
	// drawn from Service) in S/mu_i. Check refuses Lambda*Servers at or above
	// their sum, and under static hashing Lambda at or above any of them
	// (every server receives packets at rate Lambda). The dispatch rules
	// still compare queue lengths, not lengths over rates.
	Rates []float64
	// Lambda is the packet arrival rate per server: packets arrive at rate
	// Lambda*N, so flows arrive at rate Lambda*N/PacketsPerFlow.
	Lambda float64
	// Profile (optional) makes the arrival rate vary in time: from time
	// Profile[k].T on, packets arrive at rate Profile[k].Lambda per server
	// (ParseProfile); before the first step at Lambda. The flows in
	// progress start at their stationary law for Lambda.
	Profile []Step
	// PacketsPerFlow is the mean number of packets of a flow, m >= 1.
	PacketsPerFlow float64
	// Size is the law of the number of packets (default geometric).
	Size SizeLaw
	// SizeValues and SizeProbs are the law of K when Size is PMF.
	SizeValues []int
	SizeProbs  []float64
	// PacketRate is r: a flow's packets after the first follow at
	// exponential gaps of rate r.
	PacketRate float64
	// Service is the law of a packet's service time, of mean 1 (nil:
	// exponential, simulated as a Markov chain; any other law runs the
	// event-driven engine).
	Service service.Distribution
	Policy  PolicyOptions
	// Horizon is the simulated time of a replication; measurements cover
	// [Warmup, Horizon].
	Horizon, Warmup float64
	// Replications is the number of independent replications (0: 1);
	// replication r draws from mc.Stream(Seed, r).
	Replications int
	Seed         uint64
	// Workers bounds the replications run at once (0: GOMAXPROCS). The
	// result does not depend on it.
	Workers int
	// Progress, if not nil, is called with the fraction done.
	Progress func(fraction float64)
	// Quantiles are the packet-delay quantiles to report (nil:
	// DefaultQuantiles).
	Quantiles []float64
}

// DefaultQuantiles are the delay quantiles reported by default.
var DefaultQuantiles = []float64{0.5, 0.9, 0.99, 0.999, 0.9999}

// flow is a flow in progress (it has sent a packet and will send more).
type flow struct {
	last  int32  // server of its latest packet
	home  int32  // its hashed server (static, sticky) or bin (bins)
	left  int32  // packets still to come (fixed sizes)
	flags uint32 // flowTagged, flowViolated
}

const (
	flowTagged   = 1 // arrived in [warmup, horizon)
	flowViolated = 2 // its packets went to more than one server
)

// engine is one replication's state.
type engine struct {
	o      *Options
	n      int
	src    *rand.PCG
	lf     float64 // flow arrival rate
	r      float64
	pEnd   float64 // geometric: P(a packet is the flow's last)
	fixedK int32
	// pmf sizes: K = sizeVals[sizes.Sample], and the law of a flow in
	// progress at the start, size-biased by K-1 (biased).
	sizeVals      []int32
	sizes, biased *alias.Table
	// Service rates: rates (nil: all 1) and, when they are all equal,
	// their common value mu (1 without rates); when they differ, the busy
	// servers' rates in a Fenwick tree (the dispatch simulator's sampler),
	// from which the Markov engine draws the departing server with
	// probability proportional to its rate.
	rates     []float64
	mu        float64
	busyRates *fenwick.BusyRates
	policy    Policy
	d         int
	all       bool // sticky and bins move to the shortest of all
	thr       int32
	remap     float64 // total rate of the bins' periodic remap clocks
	warmup    float64
	horizon   float64
	t         float64
	step      int // the next step of Options.Profile

	q     []int32     // queue lengths (packets, including the one in service)
	rings [][]float64 // per server, arrival times of its packets (FIFO ring)
	heads []uint32
	busy  []int32 // busy servers
	bpos  []int32
	// Servers sorted by queue length (JSQ over all): perm, its inverse pos,
	// and start[k], the number of servers with fewer than k packets.
	perm, pos, start []int32
	scratch          distinct.Perm

	flows  []flow
	binSrv []int32
	away   int // flows in progress away from their hashed server (sticky)

	measuring bool
	tagged    int // packets in the system that arrived in [warmup, horizon)

	arrivals, departures             int64
	pkts, moved, flowsIn, violations int64
	remaps                           int64
	delays                           []float64
	delaySum                         float64
	occ                              levels.Occupancy // servers with >= i packets
	activeArea, awayArea             float64
	next                             int32 // the next server departing() tries
	nextFlow, nextOf                 int32 // the next flow flowAhead() returns, drawn out of nextOf

	// General service (svc not nil): packets' departure times in the rings,
	// the busy servers in a heap by their next departure.
	svc     service.Distribution
	rng     *rand.Rand
	heap    *eventheap.Heap
	lastDep []float64 // departure time of each server's last packet
}

func newEngine(o *Options, src *rand.PCG) *engine {
	n := o.Servers
	p := o.Policy
	e := &engine{o: o, n: n, src: src, lf: o.Lambda * float64(n) / o.PacketsPerFlow, r: o.PacketRate,
		pEnd: 1 / o.PacketsPerFlow, policy: p.Policy, d: p.D, thr: int32(p.Threshold), warmup: o.Warmup,
		horizon: o.Horizon, q: make([]int32, n), rings: make([][]float64, n), heads: make([]uint32, n),
		busy: make([]int32, 0, n), bpos: make([]int32, n)}
	e.rates, e.mu = o.Rates, 1
	if o.Rates != nil {
		if e.mu = o.Rates[0]; slices.Min(o.Rates) != slices.Max(o.Rates) && o.Service == nil {
			e.busyRates = fenwick.New(o.Rates)
		}
	}
	if o.Size == Fixed {
		e.fixedK = int32(math.Round(o.PacketsPerFlow))
	}
	if o.Service != nil {
		e.svc, e.rng, e.heap, e.lastDep = o.Service, rand.New(src), eventheap.New(n, false), make([]float64, n)
	}
	if o.Size == PMF {
		e.sizeVals = make([]int32, len(o.SizeValues))
		w := make([]float64, len(o.SizeValues))
		for i, k := range o.SizeValues {
			e.sizeVals[i], w[i] = int32(k), o.SizeProbs[i]*float64(k-1)
		}
		e.sizes = alias.New(o.SizeProbs)
		if pmfMean(o.SizeValues, o.SizeProbs) > 1 {
			e.biased = alias.New(w)
		}
		if e.rng == nil {
			e.rng = rand.New(src)
		}
	}
	e.all = (p.Policy == Sticky || p.Policy == Bins) && p.D >= n
	if p.Policy == JSQ || e.all {
		e.perm, e.pos, e.start = make([]int32, n), make([]int32, n), make([]int32, 64)
		for j := range n {
			e.perm[j], e.pos[j] = int32(j), int32(j)
		}
		for k := 1; k < len(e.start); k++ {
			e.start[k] = int32(n)
		}
	}
	if !e.all && (p.Policy == Sticky || p.Policy == Bins || p.Policy == JSQd) && p.D > 2 {
		e.scratch = distinct.Identity(n)
	}
	if p.Policy == Bins {
		e.remap = p.RemapRate * float64(p.Bins)
		e.binSrv = make([]int32, p.Bins)
		for b := range e.binSrv {
			e.binSrv[b] = int32(b % n)
		}
	}
	return e
}

func (e *engine) uniform(n int) int32 {
	return int32(fastrand.Bounded32(e.src, uint32(e.src.Uint64()>>32), uint32(n)))
}

// init draws the first server departing() tries, and starts the flows in
// progress at their stationary law (the queues empty): for geometric sizes
// a Poisson number with mean lf*(1-p)/(r*p); for fixed sizes K,
// Poisson(lf*(K-1)/r) flows, each with a uniform number 1..K-1 of packets
// still to come; for a pmf law Poisson(lf*(m-1)/r) flows, each with K drawn
// size-biased by K-1 (a flow is in progress for K-1 packet gaps) and a
// uniform number 1..K-1 still to come.
func (e *engine) init() {
	e.next = e.uniform(e.n)
	var mean float64
	switch {
	case e.fixedK > 0:
		mean = e.lf * float64(e.fixedK-1) / e.r
	case e.sizes != nil:
		mean = e.lf * (e.o.PacketsPerFlow - 1) / e.r
	default:
		mean = e.lf * (1 - e.pEnd) / (e.r * e.pEnd)
	}
	if !(mean > 0) {
		return
	}
	k := int(distuv.Poisson{Lambda: mean, Src: e.src}.Rand())
	e.flows = make([]flow, 0, k+k/8+16)
	for range k {
		var f flow
		switch e.policy {
		case Bins:
			f.home = e.uniform(len(e.binSrv))
			f.last = e.binSrv[f.home]
		default:
			f.home = e.uniform(e.n)
			f.last = f.home
		}
		switch {
		case e.fixedK > 0:
			f.left = 1 + e.uniform(int(e.fixedK-1))
		case e.sizes != nil: // K size-biased by K-1, then uniform in 1..K-1 to come
			f.left = 1 + e.uniform(int(e.sizeVals[e.biased.Sample(e.rng)]-1))
		}
		e.flows = append(e.flows, f)
	}
}

// place queues a packet at server j.
func (e *engine) place(j int32) {
	k := e.q[j]
	ring := e.rings[j]
	if int(k) == len(ring) {
		ring = e.grow(j)
	}
	x := e.t
	if e.svc != nil {
		x = e.schedule(j, k)
	}
	ring[(e.heads[j]+uint32(k))&uint32(len(ring)-1)] = x
	e.q[j] = k + 1
	if k == 0 {
		e.bpos[j] = int32(len(e.busy))
		e.busy = append(e.busy, j)
		if e.busyRates != nil {
			e.busyRates.SetBusy(int(j))
		}
	}
	if e.perm != nil {
		e.incr(j, k)
	}
	e.occ.Up(k+1, e.t)
	e.arrivals++
	if e.measuring {
		e.pkts++
		if e.svc == nil {
			e.tagged++
		}
	}
}

func (e *engine) grow(j int32) []float64 {
	old := e.rings[j]
	ring := make([]float64, max(4, 2*len(old)))
	h := int(e.heads[j])
	for i := range old {
		ring[i] = old[(h+i)&(len(old)-1)]
	}
	e.rings[j], e.heads[j] = ring, 0
	return ring
}

// depart completes the packet in service at server j.
func (e *engine) depart(j int32) {
	ring := e.rings[j]
	h := e.heads[j]
	a := ring[h]
	e.heads[j] = (h + 1) & uint32(len(ring)-1)
	k := e.q[j]
	e.q[j] = k - 1
	if k == 1 {
		p := e.bpos[j]
		last := e.busy[len(e.busy)-1]
		e.busy[p] = last
		e.bpos[last] = p
		e.busy = e.busy[:len(e.busy)-1]
		if e.busyRates != nil {
			e.busyRates.SetIdle(int(j))
		}
	}
	if e.perm != nil {
		e.decr(j, k)
	}
	e.occ.Down(k, e.t)
	e.departures++
	if e.svc != nil {
		if k > 1 {
			e.heap.ReplaceTop(ring[e.heads[j]])
		} else {
			e.heap.PopTop()
		}
	} else if a >= e.warmup {
		x := e.t - a
		e.delays = append(e.delays, x)
		e.delaySum += x
		e.tagged--
	}
}

// newFlow is the arrival of a flow with its first packet.
func (e *engine) newFlow() {
	var f flow
	switch e.policy {
	case Static, Sticky:
		f.home = e.uniform(e.n)
	case Bins:
		f.home = e.uniform(len(e.binSrv))
	default:
		f.home = -1
	}
	j := e.route(&f, true)
	e.place(j)
	f.last = j
	if e.measuring {
		e.flowsIn++
		f.flags = flowTagged
	}
	more := false
	switch {
	case e.fixedK > 0:
		f.left = e.fixedK - 1
		more = f.left > 0
	case e.sizes != nil:
		f.left = e.sizeVals[e.sizes.Sample(e.rng)] - 1
		more = f.left > 0
	default:
		more = fastrand.Float64(e.src) >= e.pEnd
	}
	if more {
		if e.policy == Sticky && j != f.home {
			e.away++
		}
		e.flows = append(e.flows, f)
	}
}

// flowPacket is the next packet of the k-th flow in progress.
func (e *engine) flowPacket(k int) {
	f := &e.flows[k]
	j := e.route(f, false)
	e.place(j)
	if j != f.last {
		if e.measuring {
			e.moved++
			if f.flags&flowViolated == 0 {
				e.violations++
			}
		}
		f.flags |= flowViolated
		if e.policy == Sticky {
			if f.last == f.home {
				e.away++
			} else if j == f.home {
				e.away--
			}
		}
		f.last = j
	}
	var done bool
	if e.fixedK > 0 || e.sizes != nil {
		f.left--
		done = f.left == 0
	} else {
		done = fastrand.Float64(e.src) < e.pEnd
	}
	if done {
		if e.policy == Sticky && f.last != f.home {
			e.away--
		}
		last := len(e.flows) - 1
		e.flows[k] = e.flows[last]
		e.flows = e.flows[:last]
	}
}

// run advances the chain to time end (a check every 2^16 events for
// cancellation and the record bound).
func (e *engine) run(ctx context.Context, end float64, tick func(float64)) error {
	if e.svc != nil {
		return e.runGeneral(ctx, end, tick)
	}
	stop := e.stop(end)
	for it := 1; ; it++ {
		if it&(1<<16-1) == 0 {
			if err := e.poll(ctx, tick); err != nil {
				return err
			}
		}
		nf := len(e.flows)
		arr := e.lf + e.r*float64(nf)
		rate := arr + e.remap + e.busyRate() // e.remap = 0: the same sum, the same draws
		tn := e.t + fastrand.ExpFloat64(e.src)/rate
		if tn > stop {
			tn = stop // memoryless: stop the clock at end or a step; the next stretch redraws
		}
		dt := tn - e.t
		e.activeArea += float64(nf) * dt
		e.awayArea += float64(e.away) * dt
		e.t = tn
		if tn == stop {
			if stop == end {
				return nil
			}
			e.nextStep()
			stop = e.stop(end)
			continue
		}
		u := fastrand.Float64(e.src) * rate
		switch {
		case u < e.lf:
			e.newFlow()
		case u < arr:
			e.flowPacket(e.flowAhead(nf))
		case u < arr+e.remap:
			e.periodicRemap()
		default:
			e.depart(e.departing())
		}
	}
}

// busyRate is the total service rate of the busy servers: their number
// times the common rate (their number without rates), or the Fenwick
// tree's total with unequal rates.
func (e *engine) busyRate() float64 {
	switch {
	case e.rates == nil:
		return float64(len(e.busy))
	case e.busyRates != nil:
		return e.busyRates.Rate()
	}
	return e.mu * float64(len(e.busy))
}

// poll is the engines' check every 2^16 events: cancellation, the bound on
// the delays recorded, progress.
func (e *engine) poll(ctx context.Context, tick func(float64)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(e.delays) > MaxRecords {
		return fmt.Errorf("horizon = %v: more than %d packet delays to record in a replication; shorten the horizon or use fewer servers", e.horizon, MaxRecords)
	}
	if tick != nil {
		tick(e.t)
	}
	return nil
}

// flowAhead returns a uniformly random flow in progress out of nf: the one
// drawn at the previous flow packet if there were nf flows then too (a
// uniform draw on [0, nf), independent of all in between), else a fresh
// draw. Then it draws the next one and prefetches the ring slot its
// server's next packet will take.
func (e *engine) flowAhead(nf int) int {
	k := int(e.nextFlow)
	if int(e.nextOf) != nf {
		k = int(e.uniform(nf))
	}
	if n := len(e.flows); n > 1 {
		e.nextFlow, e.nextOf = e.uniform(n), int32(n)
		j := e.flows[e.nextFlow].last
		if ring := e.rings[j]; len(ring) > 0 {
			prefetch.Line(unsafe.Pointer(&ring[(e.heads[j]+uint32(e.q[j]))&uint32(len(ring)-1)]))
		}
	} else {
		e.nextOf = -1
	}
	return k
}

// byRate returns a busy server drawn with probability proportional to its
// rate (unequal rates).
func (e *engine) byRate() int32 {
	return int32(e.busyRates.Pick(fastrand.Bounded64(e.src, e.busyRates.Total())))
}

// departing returns the server of a departure: with unequal rates a busy
// server drawn in proportion to its rate (byRate); else a uniformly random
// busy server. When most servers are
// busy it draws servers uniformly among all and keeps the first busy one
// (rejection: uniform among the busy), each draw made one departure ahead
// and its oldest packet's ring slot prefetched then, so that the cache line
// arrives while the events in between run; the draw is independent of
// everything that happens in between, so the law is unchanged. With few busy
// servers it draws from the list of busy servers.
func (e *engine) departing() int32 {
	if e.busyRates != nil {
		return e.byRate()
	}
	if 4*len(e.busy) < e.n {
		return e.busy[e.uniform(len(e.busy))]
	}
	for {
		j := e.next
		e.next = e.uniform(e.n)
		if ring := e.rings[e.next]; len(ring) > 0 {
			prefetch.Line(unsafe.Pointer(&ring[e.heads[e.next]]))
		}
		if e.q[j] > 0 {
			return j
		}
	}
}

// drain serves the packets still in the system, with no more arrivals,
// until every packet that arrived in [warmup, horizon) has left: under FIFO
// later arrivals do not change their delays.
func (e *engine) drain(ctx context.Context) error {
	for it := 1; e.tagged > 0; it++ {
		if it&(1<<16-1) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		e.t += fastrand.ExpFloat64(e.src) / e.busyRate()
		if e.busyRates != nil {
			e.depart(e.byRate())
		} else {
			e.depart(e.busy[e.uniform(len(e.busy))])
		}
	}
	return nil
}

// reset starts the measurements at the current time (the warm-up's end).
func (e *engine) reset() {
	e.occ.Reset(e.t)
	e.activeArea, e.awayArea = 0, 0
	e.measuring = true
}

// snapshot closes the time averages at the horizon.
func (e *engine) snapshot(res *RepResult) {
	span := e.t - e.warmup
	res.Occupancy = e.occ.Averages(e.t, span, e.n)
	for _, x := range res.Occupancy {
		res.MeanQueue += x
	}
	res.ActiveFlows = e.activeArea / span
	switch e.policy {
	case Sticky:
		res.TableSize = e.awayArea / span
	case Bins:
		res.TableSize = float64(len(e.binSrv))
	}
	e.measuring = false
}

// RepResult is one replication's measurements. The fields are in the order
// of the JSON object lbsim flows has always written: the figures that may be
// NaN (a replication with no packet) come last.
type RepResult struct {
	// Events counts packet events: arrivals and departures (the warm-up and
	// the final drain included).
	Events int64 `json:"events"`
	// Packets and Flows count the packets and flows that arrived in
	// [warmup, horizon).
	Packets int64 `json:"packets"`
	Flows   int64 `json:"flows"`
	// Remaps counts bin remaps in [warmup, horizon).
	Remaps int64 `json:"remaps"`
	// Occupancy[i-1] is the time-average fraction of servers holding at
	// least i packets; MeanQueue the mean packets per server.
	Occupancy []float64 `json:"occupancy"`
	MeanQueue float64   `json:"mean_queue"`
	// ActiveFlows is the time-average number of flows in progress;
	// TableSize the entries the dispatcher keeps (see Result).
	ActiveFlows float64 `json:"active_flows"`
	TableSize   float64 `json:"table_size"`
	// MeanDelay is the mean delay (sojourn) of the packets that arrived in
	// [warmup, horizon); DelayQuantiles its exact quantiles.
	MeanDelay      float64   `json:"mean_delay"`
	DelayQuantiles []float64 `json:"delay_quantiles"`
	// ViolatedFlowFraction is the number of flows whose packets first went
	// to a second server in [warmup, horizon), divided by the flows that
	// arrived then (in steady state, the fraction of flows violated);
	// MovedPacketFraction the fraction of packets sent away from their
	// flow's previous server.
	ViolatedFlowFraction float64 `json:"violated_flow_fraction"`
	MovedPacketFraction  float64 `json:"moved_packet_fraction"`
	// MeanServersPerFlow is 1 plus the server changes in [warmup, horizon)
	// per flow that arrived then: in steady state the mean number of
	// servers along a flow's path, a return to a server it used before
	// counted again (so at least the distinct servers, and equal to them
	// when no flow returns). Written as mean_servers_per_flow, last, when
	// measured (not by results of versions before it).
	MeanServersPerFlow float64 `json:"-"`
}

func (e *engine) finish(res *RepResult, quantiles []float64) {
	res.Events = e.arrivals + e.departures
	res.Packets, res.Flows, res.Remaps = e.pkts, e.flowsIn, e.remaps
	res.MeanDelay = e.delaySum / float64(len(e.delays))
	res.DelayQuantiles = Quantiles(e.delays, quantiles)
	res.ViolatedFlowFraction = float64(e.violations) / float64(e.flowsIn)
	res.MovedPacketFraction = float64(e.moved) / float64(e.pkts)
	res.MeanServersPerFlow = 1 + float64(e.moved)/float64(e.flowsIn)
	e.delays = nil
}

// Check validates the options; the errors name the key.
func (o *Options) Check() error {
	if o.Servers < 1 || o.Servers > MaxServers {
		return fmt.Errorf("servers = %d: must be between 1 and %d", o.Servers, MaxServers)
	}
	if err := o.checkLoad(); err != nil {
		return err
	}
	m := o.PacketsPerFlow
	if !(m >= 1) || math.IsInf(m, 0) {
		return fmt.Errorf("packets_per_flow = %v: must be a finite number >= 1", m)
	}
	if o.Size == Fixed && (m != math.Round(m) || m > 1<<30) {
		return fmt.Errorf("packets_per_flow = %v: must be an integer (at most 2^30) with flow_size fixed", m)
	}
	if err := o.checkSize(); err != nil {
		return err
	}
	if o.Service != nil && !(math.Abs(o.Service.Mean()-1) <= 1e-9) {
		return fmt.Errorf("service = %v: mean %v: must be 1 (unit-rate servers; give mean=1)", o.Service, o.Service.Mean())
	}
	if !(o.PacketRate > 0) || math.IsInf(o.PacketRate, 0) {
		return fmt.Errorf("packet_rate = %v: must be a finite rate > 0", o.PacketRate)
	}
	if a := ExpectedActiveFlows(o.peakLambda(), float64(o.Servers), m, o.PacketRate); a > MaxActiveFlows {
		return fmt.Errorf("packet_rate = %v: about %.3g flows would be in progress at once (at most %d; 16 bytes each); raise packet_rate or lower packets_per_flow",
			o.PacketRate, a, MaxActiveFlows)
	}
	p := o.Policy
	if p.Policy < Static || p.Policy > Bins {
		return fmt.Errorf("policy = %v: must be one of static, jsq, jsqd, sticky, bins", p.Policy)
	}
	if (p.Policy == JSQd || p.Policy == Sticky || p.Policy == Bins) && (p.D < 1 || p.D > o.Servers) {
		return fmt.Errorf("d = %d: must be between 1 and servers (%d)", p.D, o.Servers)
	}
	if (p.Policy == Sticky || p.Policy == Bins) && p.Threshold < 1 {
		return fmt.Errorf("threshold = %d: must be at least 1", p.Threshold)
	}
	if p.Policy == Bins && (p.Bins < 1 || p.Bins > MaxActiveFlows) {
		return fmt.Errorf("bins = %d: must be between 1 and %d", p.Bins, MaxActiveFlows)
	}
	if !(p.RemapRate >= 0) || math.IsInf(p.RemapRate, 0) || (p.RemapRate > 0 && p.Policy != Bins) {
		return fmt.Errorf("bin_remap_rate = %v: must be a finite rate >= 0, for policy bins only", p.RemapRate)
	}
	if math.IsInf(p.RemapRate*float64(p.Bins), 0) {
		return fmt.Errorf("bin_remap_rate = %v: the remap rate of all %d bins together is not a finite number", p.RemapRate, p.Bins)
	}
	if !(o.Horizon > 0) || math.IsInf(o.Horizon, 0) {
		return fmt.Errorf("horizon = %v: must be a finite time > 0", o.Horizon)
	}
	if !(o.Warmup >= 0 && o.Warmup < o.Horizon) {
		return fmt.Errorf("warmup = %v: must be >= 0 and below horizon (%v)", o.Warmup, o.Horizon)
	}
	if err := o.checkProfile(); err != nil {
		return err
	}
	if rec := ExpectedRecords(o.peakLambda(), float64(o.Servers), o.Horizon-o.Warmup); rec > MaxRecords {
		return fmt.Errorf("horizon = %v: about %.3g packet delays per replication would be recorded (at most %d, 8 bytes each, for exact quantiles); shorten horizon - warmup or use fewer servers",
			o.Horizon, rec, MaxRecords)
	}
	if o.Replications < 0 {
		return fmt.Errorf("replications = %d: must be >= 1 (0: 1)", o.Replications)
	}
	if o.Workers < 0 {
		return fmt.Errorf("workers = %d: must be >= 0 (0: all cores)", o.Workers)
	}
	for _, x := range o.Quantiles {
		if !(x > 0 && x < 1) {
			return fmt.Errorf("quantiles: %v: each must be in (0, 1)", x)
		}
	}
	return nil
}

// checkLoad checks the rates and refuses a load the servers cannot carry
// (checkLambda).
func (o *Options) checkLoad() error {
	if o.Rates != nil {
		if msg := model.CheckRates(o.Rates, o.Servers); msg != "" {
			if !strings.HasPrefix(msg, model.KeyRates+"[") {
				msg = model.KeyRates + ": " + msg
			}
			return errors.New(msg)
		}
	}
	return o.checkLambda(o.Lambda, keyLambda)
}

// checkLambda refuses an arrival rate per server l (named name in the
// error) that the servers cannot carry: without rates l must be in (0, 1);
// with them l*Servers must be below their sum (the system is unstable at or
// above it), and under static hashing, where every server receives packets
// at rate l, below every rate (the error names the slowest server).
func (o *Options) checkLambda(l float64, name string) error {
	if o.Rates == nil {
		if !(l > 0 && l < 1) {
			return fmt.Errorf("%s = %v: must be in (0, 1) (unit-rate servers; the system is unstable at lambda >= 1)", name, l)
		}
		return nil
	}
	if !(l > 0) || math.IsInf(l, 0) {
		return fmt.Errorf("%s = %v: must be a finite rate > 0", name, l)
	}
	total := 0.0
	for _, mu := range o.Rates {
		total += mu
	}
	if n := float64(o.Servers); !(l*n < total) {
		return fmt.Errorf("%s = %v: unstable: packets arrive at lambda*N = %g, at least the total service rate %g (the sum of rates); lambda must be below %g",
			name, l, l*n, total, total/n)
	}
	if j := slices.Index(o.Rates, slices.Min(o.Rates)); o.Policy.Policy == Static && !(l < o.Rates[j]) {
		return fmt.Errorf("%s = %v: unstable under static hashing: every server receives packets at rate lambda, and server %d serves at rates[%d] = %v <= lambda; lambda must be below the smallest rate, %v",
			name, l, j, j, o.Rates[j], o.Rates[j])
	}
	return nil
}

// ExpectedActiveFlows is the mean number of flows in progress in steady
// state, lambda*N*(m-1)/(m*r), whatever the size law with mean m.
func ExpectedActiveFlows(lambda, n, m, r float64) float64 { return lambda * n * (m - 1) / (m * r) }

// ExpectedRecords is the number of packet delays a replication records
// with a margin for fluctuations: lambda*N*span, plus 5%.
func ExpectedRecords(lambda, n, span float64) float64 { return 1.05 * lambda * n * span }

// Simulate runs the replications (see the package documentation).
func Simulate(ctx context.Context, o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	reps := max(o.Replications, 1)
	quantiles := o.Quantiles
	if quantiles == nil {
		quantiles = DefaultQuantiles
	}
	start := time.Now()
	out := make([]RepResult, reps)
	err := mc.Replicate(reps, o.Workers, o.Horizon, o.Progress, func(r int, tick func(float64)) (err error) {
		out[r], err = replicate(ctx, &o, quantiles, r, tick)
		return err
	})
	if err != nil {
		return nil, err
	}
	return aggregate(&o, quantiles, out, time.Since(start)), nil
}

func replicate(ctx context.Context, o *Options, quantiles []float64, r int, tick func(float64)) (RepResult, error) {
	e := newEngine(o, mc.Source(o.Seed, uint64(r)))
	e.init()
	if err := e.run(ctx, o.Warmup, tick); err != nil {
		return RepResult{}, err
	}
	e.reset()
	e.delays = make([]float64, 0, int(min(ExpectedRecords(o.peakLambda(), float64(o.Servers), o.Horizon-o.Warmup), MaxRecords)))
	if err := e.run(ctx, o.Horizon, tick); err != nil {
		return RepResult{}, err
	}
	var res RepResult
	e.snapshot(&res)
	tick(o.Horizon)
	if err := e.drain(ctx); err != nil {
		return RepResult{}, err
	}
	e.finish(&res, quantiles)
	return res, nil
}
