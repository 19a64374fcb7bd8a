package redundancy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/pairs"
)

// Options describe a simulation of redundancy with cancel-on-complete.
type Options struct {
	// Servers is N; it must equal Dist.N().
	Servers int
	// Lambda is the arrival rate per server: tasks arrive at rate Lambda*N.
	Lambda float64
	// Dist is the distribution of the server set of a task.
	Dist *pairs.Dist
	// Rates are the service rates (nil: all 1).
	Rates []float64
	// Horizon is the simulated time of a replication; measurements cover
	// [Warmup, Horizon]. The system starts empty.
	Horizon float64
	Warmup  float64
	// Replications is the number of independent replications (0: 1);
	// replication r draws from mc.Stream(Seed, r).
	Replications int
	Seed         uint64
	// Workers bounds the replications run at once (0: GOMAXPROCS). The
	// result does not depend on it.
	Workers int
	// Progress, if not nil, is called with the fraction of simulated time
	// done, from any goroutine.
	Progress func(fraction float64)
	// Quantiles are the response-time quantiles to report (nil: 0.5, 0.9,
	// 0.99, 0.999).
	Quantiles []float64
}

// Sojourn times are kept in a log-linear histogram: the bucket of x > 0 is
// its binary exponent and top histBits mantissa bits, so a quantile is
// known within a relative 2^-histBits. Exponents from histMinExp up are kept
// (smaller times fall in bucket 0).
const (
	histBits   = 7
	histMinExp = -30
	histMaxExp = 40
	histSize   = (histMaxExp - histMinExp) << histBits
)

func histBucket(x float64) int {
	b := math.Float64bits(x)
	e := int(b>>52&0x7ff) - 1023
	if e < histMinExp {
		return 0
	}
	if e >= histMaxExp {
		return histSize - 1
	}
	return (e-histMinExp)<<histBits | int(b>>(52-histBits)&(1<<histBits-1))
}

// histValue is the middle of a bucket.
func histValue(k int) float64 {
	e := k>>histBits + histMinExp
	m := float64(k&(1<<histBits-1)) + 0.5
	return math.Ldexp(1+m/(1<<histBits), e)
}

// node is one replica: its server and its neighbours in that server's FCFS
// list (-1: none).
type node struct {
	srv, prev, next int32
}

// engine is one replication's state. Task slot s owns the replica nodes
// s*d .. s*d+d-1.
type engine struct {
	n, d     int
	total    float64 // Lambda*N
	rates    []float64
	unit     bool // all rates equal: no rejection step
	muMax    float64
	dist     *pairs.Dist
	r        *rand.Rand
	warmup   float64
	horizon  float64
	buf      []int32
	nodes    []node
	arrive   []float64 // arrival time of each slot
	free     []int32   // free slots
	head     []int32   // per server, first replica (in service) or -1
	tail     []int32
	count    []int32 // replicas per server
	busy     []int32 // busy servers
	pos      []int32 // index of a busy server in busy
	tasks    int
	tagged   int       // tasks present that arrived in [warmup, horizon)
	hist     []float64 // time with n tasks
	ge       []int32   // ge[i]: servers with >= i replicas
	geArea   []float64
	geLast   []float64
	busyFrom []float64 // when each busy server became busy
	busyTime []float64
	t        float64

	arrivals, completions, cancellations int64
	sojournSum                           float64
	sojournN                             int64
	sojourn                              []int64 // histogram (histBucket)
}

// RepResult is one replication's measurements.
type RepResult struct {
	// Events counts replica events: a replica placed by an arrival (d per
	// task), a completion, a cancellation (d-1 per task).
	Events        int64   `json:"events"`
	Arrivals      int64   `json:"arrivals"`
	Completions   int64   `json:"completions"`
	Cancellations int64   `json:"cancellations"`
	MeanTasks     float64 `json:"mean_tasks"`
	// MeanResponse is the mean sojourn of the tasks arriving in
	// [Warmup, Horizon) (the replication runs on until they have all left).
	MeanResponse      float64   `json:"mean_response"`
	Responses         int64     `json:"responses"`
	ResponseQuantiles []float64 `json:"response_quantiles"`
	TasksDistribution []float64 `json:"tasks_distribution"`
	Occupancy         []float64 `json:"occupancy"`
	busy              []float64
}

func newEngine(o *Options, rates []float64, r *rand.Rand) *engine {
	n, d := o.Servers, o.Dist.D()
	e := &engine{n: n, d: d, total: o.Lambda * float64(n), rates: rates, dist: o.Dist, r: r,
		warmup: o.Warmup, horizon: o.Horizon, buf: make([]int32, d),
		head: make([]int32, n), tail: make([]int32, n), count: make([]int32, n), pos: make([]int32, n),
		busy: make([]int32, 0, n), busyFrom: make([]float64, n), busyTime: make([]float64, n),
		hist: make([]float64, 64), ge: make([]int32, 64), geArea: make([]float64, 64), geLast: make([]float64, 64),
		sojourn: make([]int64, histSize), unit: true}
	for j := range n {
		e.head[j], e.tail[j] = -1, -1
		e.muMax = math.Max(e.muMax, rates[j])
	}
	for _, mu := range rates {
		e.unit = e.unit && mu == e.muMax
	}
	return e
}

// bump records that server j's count goes up to c at time t.
func (e *engine) bump(c int32) {
	if int(c) >= len(e.ge) {
		e.ge = append(e.ge, make([]int32, len(e.ge))...)
		e.geArea = append(e.geArea, make([]float64, len(e.geArea))...)
		last := make([]float64, len(e.geLast))
		for i := range last {
			last[i] = e.t
		}
		e.geLast = append(e.geLast, last...)
	}
	e.geArea[c] += float64(e.ge[c]) * (e.t - e.geLast[c])
	e.geLast[c] = e.t
	e.ge[c]++
}

// drop records that a server's count goes down from c.
func (e *engine) drop(c int32) {
	e.geArea[c] += float64(e.ge[c]) * (e.t - e.geLast[c])
	e.geLast[c] = e.t
	e.ge[c]--
}

// arrival places a new task's replicas at the tails of its servers' lists.
func (e *engine) arrival() {
	var s int32
	if k := len(e.free); k > 0 {
		s = e.free[k-1]
		e.free = e.free[:k-1]
	} else {
		s = int32(len(e.arrive))
		e.arrive = append(e.arrive, 0)
		for range e.d {
			e.nodes = append(e.nodes, node{})
		}
	}
	e.arrive[s] = e.t
	if e.t >= e.warmup && e.t < e.horizon {
		e.tagged++
	}
	set := e.dist.Sample(e.r, e.buf)
	base := int(s) * e.d
	nodes := e.nodes[base : base+e.d]
	for i, j := range set {
		k := int32(base + i)
		tl := e.tail[j]
		nodes[i] = node{srv: j, prev: tl, next: -1}
		if tl < 0 {
			e.head[j] = k
			e.pos[j] = int32(len(e.busy))
			e.busy = append(e.busy, j)
			e.busyFrom[j] = e.t
		} else {
			e.nodes[tl].next = k
		}
		e.tail[j] = k
		c := e.count[j] + 1
		e.count[j] = c
		e.bump(c)
	}
	e.tasks++
	e.arrivals++
}

// complete finishes the replica in service at server j: its task leaves and
// the task's other replicas are removed.
func (e *engine) complete(j int32) {
	s := int(e.head[j]) / e.d
	base := s * e.d
	for k := base; k < base+e.d; k++ {
		nd := e.nodes[k]
		srv := nd.srv
		if nd.prev < 0 {
			e.head[srv] = nd.next
		} else {
			e.nodes[nd.prev].next = nd.next
		}
		if nd.next < 0 {
			e.tail[srv] = nd.prev
		} else {
			e.nodes[nd.next].prev = nd.prev
		}
		c := e.count[srv]
		e.drop(c)
		e.count[srv] = c - 1
		if c == 1 {
			p := e.pos[srv]
			last := e.busy[len(e.busy)-1]
			e.busy[p] = last
			e.pos[last] = p
			e.busy = e.busy[:len(e.busy)-1]
			e.busyTime[srv] += e.t - e.busyFrom[srv]
		}
	}
	if a := e.arrive[s]; a >= e.warmup && a < e.horizon {
		x := e.t - a
		e.sojournSum += x
		e.sojournN++
		e.sojourn[histBucket(x)]++
		e.tagged--
	}
	e.free = append(e.free, int32(s))
	e.tasks--
	e.completions++
	e.cancellations += int64(e.d - 1)
}

// run advances the chain until time end (stop: a check every 2^16 events
// for cancellation), or, with end infinite, until no tagged task is left.
// It returns the number of loop iterations.
func (e *engine) run(ctx context.Context, end float64, tick func(t float64)) error {
	drain := math.IsInf(end, 1)
	for it := 1; ; it++ {
		if drain && e.tagged == 0 {
			return nil
		}
		if it&(1<<16-1) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if tick != nil {
				tick(e.t)
			}
		}
		rate := e.total + float64(len(e.busy))*e.muMax
		tn := e.t + e.r.ExpFloat64()/rate
		if tn > end {
			// Memoryless: stop the clock at end; the next phase redraws.
			e.hist[min(e.tasks, len(e.hist)-1)] += end - e.t
			e.t = end
			return nil
		}
		if e.tasks >= len(e.hist)-1 {
			e.hist = append(e.hist, make([]float64, len(e.hist))...)
		}
		e.hist[e.tasks] += tn - e.t
		e.t = tn
		u := e.r.Float64() * rate
		if u < e.total {
			e.arrival()
			continue
		}
		j := e.busy[e.r.IntN(len(e.busy))]
		if !e.unit && e.r.Float64()*e.muMax >= e.rates[j] {
			continue // a fictitious event: uniformisation of the unequal rates
		}
		e.complete(j)
	}
}

// reset starts the measurements at the current time (the warm-up's end).
func (e *engine) reset() {
	clear(e.hist)
	for i := range e.geArea {
		e.geArea[i], e.geLast[i] = 0, e.t
	}
	for _, j := range e.busy {
		e.busyFrom[j] = e.t
	}
	clear(e.busyTime)
}

// snapshot closes the measurements at the current time (the horizon).
func (e *engine) snapshot() RepResult {
	span := e.t - e.warmup
	var res RepResult
	last := 0
	for k, x := range e.hist {
		if x > 0 {
			last = k
		}
	}
	res.TasksDistribution = make([]float64, last+1)
	for k := range res.TasksDistribution {
		res.TasksDistribution[k] = e.hist[k] / span
		res.MeanTasks += float64(k) * e.hist[k] / span
	}
	for i := 1; i < len(e.ge); i++ {
		area := e.geArea[i] + float64(e.ge[i])*(e.t-e.geLast[i])
		if area == 0 {
			break
		}
		res.Occupancy = append(res.Occupancy, area/span/float64(e.n))
	}
	res.busy = make([]float64, e.n)
	for j := range e.n {
		b := e.busyTime[j]
		if e.count[j] > 0 {
			b += e.t - e.busyFrom[j]
		}
		res.busy[j] = b / span
	}
	return res
}

func (e *engine) finish(res *RepResult, quantiles []float64) {
	res.Arrivals, res.Completions, res.Cancellations = e.arrivals, e.completions, e.cancellations
	res.Events = int64(e.d)*e.arrivals + e.completions + e.cancellations
	res.Responses = e.sojournN
	res.MeanResponse = math.NaN()
	if e.sojournN > 0 {
		res.MeanResponse = e.sojournSum / float64(e.sojournN)
	}
	res.ResponseQuantiles = make([]float64, len(quantiles))
	for i, q := range quantiles {
		res.ResponseQuantiles[i] = math.NaN()
		if e.sojournN == 0 {
			continue
		}
		target := int64(math.Ceil(q * float64(e.sojournN)))
		var acc int64
		for k, c := range e.sojourn {
			acc += c
			if acc >= max(target, 1) {
				res.ResponseQuantiles[i] = histValue(k)
				break
			}
		}
	}
}

// Check validates the options (and applies no defaults): the errors name
// the parameter.
func (o *Options) Check() error {
	if o.Dist == nil {
		return errors.New("redundancy: dist: no pair distribution")
	}
	if o.Servers != o.Dist.N() {
		return fmt.Errorf("redundancy: servers = %d: the pair distribution is over %d servers", o.Servers, o.Dist.N())
	}
	rates, err := checkInput(o.Dist, o.Lambda, o.Rates)
	if err != nil {
		return err
	}
	if !(o.Horizon > 0) || math.IsInf(o.Horizon, 0) {
		return fmt.Errorf("redundancy: horizon = %v: must be a finite time > 0", o.Horizon)
	}
	if !(o.Warmup >= 0 && o.Warmup < o.Horizon) {
		return fmt.Errorf("redundancy: warmup = %v: must be >= 0 and below horizon (%v)", o.Warmup, o.Horizon)
	}
	if o.Replications < 0 {
		return fmt.Errorf("redundancy: replications = %d: must be >= 1 (0: 1)", o.Replications)
	}
	if o.Workers < 0 {
		return fmt.Errorf("redundancy: workers = %d: must be >= 0 (0: all cores)", o.Workers)
	}
	for _, q := range o.Quantiles {
		if !(q > 0 && q < 1) {
			return fmt.Errorf("redundancy: quantile %v: must be in (0, 1)", q)
		}
	}
	ratio, worst, err := LoadRatio(o.Dist, o.Lambda, rates)
	if err != nil {
		return err
	}
	if !(ratio < 1-stableMargin) {
		return stabilityError(o.Lambda, ratio, worst, o.Servers)
	}
	return nil
}

// Simulate runs the replications of an event-driven simulation of the
// exact continuous-time Markov chain (see the package documentation).
func Simulate(ctx context.Context, o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	rates, _ := checkInput(o.Dist, o.Lambda, o.Rates)
	reps := max(o.Replications, 1)
	quantiles := o.Quantiles
	if quantiles == nil {
		quantiles = []float64{0.5, 0.9, 0.99, 0.999}
	}
	start := time.Now()
	out := make([]RepResult, reps)
	err := mc.Replicate(reps, o.Workers, o.Progress, func(r int, tick func(float64)) error {
		var err error
		out[r], err = replicate(ctx, &o, rates, quantiles, r, func(t float64) { tick(t / o.Horizon) })
		return err
	})
	if err != nil {
		return nil, err
	}
	return aggregate(&o, quantiles, out, time.Since(start)), nil
}

func replicate(ctx context.Context, o *Options, rates, quantiles []float64, r int, tick func(float64)) (RepResult, error) {
	e := newEngine(o, rates, mc.Stream(o.Seed, uint64(r)))
	if err := e.run(ctx, o.Warmup, tick); err != nil {
		return RepResult{}, err
	}
	e.reset()
	if err := e.run(ctx, o.Horizon, tick); err != nil {
		return RepResult{}, err
	}
	res := e.snapshot()
	tick(o.Horizon)
	if err := e.run(ctx, math.Inf(1), nil); err != nil {
		return RepResult{}, err
	}
	e.finish(&res, quantiles)
	return res, nil
}
