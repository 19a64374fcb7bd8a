package csma

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
	"github.com/lbsim/notebooks/lbsim/internal/fenwick"
)

// A Process is a reversible Markov process whose stationary law is the
// product form pi_theta of its statistics phi; the online algorithm drives
// it. Network (CSMA) is the built-in one.
type Process interface {
	// Dim is the number of parameters.
	Dim() int
	// SetTheta changes the parameters; the state is kept.
	SetTheta(theta []float64)
	// Measure runs the process for time t from its current state and writes
	// the time averages of phi over that time into mean and, when second is
	// not nil, of phi_i phi_j into second (row-major, Dim x Dim). It
	// returns the number of transitions.
	Measure(ctx context.Context, t float64, mean, second []float64) (int64, error)
}

// MaxCovarianceNodes bounds the nodes of a Network measuring second
// moments (two Dim x Dim arrays).
const MaxCovarianceNodes = 2048

// Network simulates the CSMA network on a conflict graph as a
// continuous-time Markov chain: an inactive node none of whose neighbours
// is active activates at rate exp(theta_i), an active node deactivates at
// rate 1. Its stationary law is pi_theta(x) ∝ exp(Σ_{i in x} theta_i) on
// the independent sets.
//
// Each transition costs O(degree · log n): the holding time is exponential
// with the total rate A + F (A active nodes, F the summed rates of the
// free nodes); a deactivation picks a uniform active node from a list, an
// activation a free node in proportion to its rate from a Fenwick tree
// (lbsim/internal/fenwick) over the free nodes, and a flip changes the
// eligibility of the flipped node's neighbours only. Second moments, when
// asked for, add O(n) per transition: at each activation of j the running
// active times of all nodes are kept, and at its deactivation their
// increase is the time each node was active together with j.
type Network struct {
	n       int
	off     []int32
	adj     []int32
	lambda  []float64
	active  []bool
	blocked []int32 // active neighbours of each node
	list    []int32 // the active nodes
	pos     []int32 // position of each active node in list
	free    *fenwick.BusyRates
	src     *rand.PCG

	// The measurement: time since its start, activation times and
	// accumulated active times, and with second moments a snapshot of the
	// accumulated times at each active node's activation.
	since []float64
	cum   []float64
	snap  []float64
	pair  []float64
	now   []float64
}

// NewNetwork returns the network on the conflict graph g, all nodes
// inactive, theta = 0, drawing from src.
func NewNetwork(g *graph.Graph, src *rand.PCG) (*Network, error) {
	g, err := g.Materialize()
	if err != nil {
		return nil, err
	}
	n := g.N()
	if n < 1 || n > MaxNodes {
		return nil, fmt.Errorf("csma: %d nodes: want 1 to %d", n, MaxNodes)
	}
	if g.SelfLoops() > 0 {
		return nil, fmt.Errorf("csma: the conflict graph has self-loops")
	}
	w := &Network{n: n, off: make([]int32, n+1), lambda: make([]float64, n), active: make([]bool, n),
		blocked: make([]int32, n), pos: make([]int32, n), src: src,
		since: make([]float64, n), cum: make([]float64, n)}
	for v := range n {
		for _, u := range g.Neighbors(v) {
			w.adj = append(w.adj, int32(u))
		}
		w.off[v+1] = int32(len(w.adj))
	}
	for i := range w.lambda {
		w.lambda[i] = 1
	}
	w.free = fenwick.New(w.lambda)
	w.markFree()
	return w, nil
}

// Dim is the number of nodes.
func (w *Network) Dim() int { return w.n }

// Active returns whether each node is active now (a copy).
func (w *Network) Active() []bool { return append([]bool(nil), w.active...) }

// SetTheta sets the activation rates exp(theta_i); the state is kept.
func (w *Network) SetTheta(theta []float64) {
	for i, t := range theta[:w.n] {
		w.lambda[i] = math.Exp(t)
	}
	w.free.Reset(w.lambda)
	w.markFree()
}

func (w *Network) markFree() {
	for i := range w.n {
		if !w.active[i] && w.blocked[i] == 0 {
			w.free.SetBusy(i)
		}
	}
}

// Measure runs the network for time t; see Process.
func (w *Network) Measure(ctx context.Context, t float64, mean, second []float64) (int64, error) {
	n := w.n
	if !(t > 0) || math.IsInf(t, 0) {
		return 0, fmt.Errorf("csma: measurement time %v: want a finite time > 0", t)
	}
	clear(w.cum)
	for _, i := range w.list {
		w.since[i] = 0
	}
	cov := second != nil
	if cov {
		if n > MaxCovarianceNodes {
			return 0, fmt.Errorf("csma: %d nodes: second moments take at most %d", n, MaxCovarianceNodes)
		}
		if w.pair == nil {
			w.pair, w.snap, w.now = make([]float64, n*n), make([]float64, n*n), make([]float64, n)
		}
		clear(w.pair)
		for _, j := range w.list {
			clear(w.snap[int(j)*n : int(j+1)*n])
		}
	}
	var events int64
	now := 0.0
	src := w.src
	unit := 1 / w.free.Scale()
	for {
		// One 64-bit draw gives the holding time (its low 40 bits, through
		// the ziggurat) and the kind of transition (its top 24 bits):
		// a deactivation with probability A/(A+F).
		a := float64(len(w.list))
		f := float64(w.free.Total()) * unit
		inv := 1 / (a + f)
		x := src.Uint64()
		e, ok := fastrand.ExpFast(x)
		if !ok {
			e = fastrand.ExpSlow(src, x)
		}
		now += e * inv
		if now >= t {
			break
		}
		// P(deactivation) = a/(a+f), exactly 1 without free nodes (so that
		// no activation is drawn from an empty tree) and 0 without active
		// ones.
		p := a * inv
		if f == 0 {
			p = 1
		}
		if fastrand.NewArrivalCut(p).Arrival(uint32(x>>40), src) {
			y := src.Uint64()
			w.deactivate(int(w.list[fastrand.Bounded32(src, uint32(y>>32), uint32(len(w.list)))]), now, cov)
		} else {
			w.activate(w.free.Pick(fastrand.Bounded64(src, w.free.Total())), now, cov)
		}
		events++
		if events&(1<<18-1) == 0 && ctx.Err() != nil {
			return events, ctx.Err()
		}
	}
	// Close the measurement at time t (the exponential clock is memoryless:
	// the overshoot is discarded).
	if cov {
		w.accumulated(t)
		for _, j := range w.list {
			row, snap := w.pair[int(j)*n:int(j+1)*n], w.snap[int(j)*n:int(j+1)*n]
			for k, c := range w.now {
				row[k] += c - snap[k]
			}
		}
		for i := range n {
			for j := range i {
				s := (w.pair[i*n+j] + w.pair[j*n+i]) / 2 / t
				second[i*n+j], second[j*n+i] = s, s
			}
			second[i*n+i] = w.pair[i*n+i] / t
		}
	}
	for _, i := range w.list {
		w.cum[i] += t - w.since[i]
	}
	for i, c := range w.cum {
		mean[i] = c / t
	}
	return events, nil
}

// accumulated writes each node's active time up to time t into w.now.
func (w *Network) accumulated(t float64) {
	copy(w.now, w.cum)
	for _, i := range w.list {
		w.now[i] += t - w.since[i]
	}
}

func (w *Network) activate(i int, t float64, cov bool) {
	w.free.SetIdle(i)
	w.active[i] = true
	w.since[i] = t
	w.pos[i] = int32(len(w.list))
	w.list = append(w.list, int32(i))
	for _, j := range w.adj[w.off[i]:w.off[i+1]] {
		if w.blocked[j] == 0 {
			w.free.SetIdle(int(j))
		}
		w.blocked[j]++
	}
	if cov {
		// The accumulated active times now (j itself has 0 so far).
		snap := w.snap[i*w.n : (i+1)*w.n]
		copy(snap, w.cum)
		for _, k := range w.list {
			snap[k] += t - w.since[k]
		}
	}
}

func (w *Network) deactivate(i int, t float64, cov bool) {
	w.active[i] = false
	w.cum[i] += t - w.since[i]
	last := w.list[len(w.list)-1]
	w.list[w.pos[i]] = last
	w.pos[last] = w.pos[i]
	w.list = w.list[:len(w.list)-1]
	if cov {
		// Add the increase of every node's accumulated active time since
		// i activated (i itself is off the list, its cum already updated).
		row, snap := w.pair[i*w.n:(i+1)*w.n], w.snap[i*w.n:(i+1)*w.n]
		for k, c := range w.cum {
			row[k] += c - snap[k]
		}
		for _, k := range w.list {
			row[k] += t - w.since[k]
		}
	}
	w.free.SetBusy(i)
	for _, j := range w.adj[w.off[i]:w.off[i+1]] {
		w.blocked[j]--
		if w.blocked[j] == 0 {
			w.free.SetBusy(int(j))
		}
	}
}
