package trickle

import (
	"context"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// approxGrid is the number of cells of the grid of chosen times in
// [eta, 1] and of phase offsets in [0, 1) of the per-node fixed point.
const (
	approxTimes  = 24
	approxPhases = 48
)

// emitted holds, for one node j and each grid time s, the probabilities
// that a neighbour's listen window [0, s) holds 0, 1 or 2 of j's
// transmissions (never more: a window is at most one interval long).
type emitted struct{ p0, p1, p2 [approxTimes]float64 }

// prefixOf returns the partial sums of q: pre[l] = q[0] + ... + q[l-1].
func prefixOf(q *[approxTimes]float64) *[approxTimes + 1]float64 {
	var pre [approxTimes + 1]float64
	for l, v := range q {
		pre[l+1] = pre[l] + v
	}
	return &pre
}

// cumulative returns G(u) = the probability that a node transmits in an
// interval at an age below u, from the partial sums pre of q, its
// transmission probability at each grid time (piecewise constant on the
// cells of [eta, 1]).
func cumulative(pre *[approxTimes + 1]float64, eta, u float64) float64 {
	x := (u - eta) / (1 - eta) * approxTimes
	switch {
	case x <= 0:
		return 0
	case x >= approxTimes:
		return pre[approxTimes] / approxTimes
	}
	m := int(x)
	return (pre[m] + (pre[m+1]-pre[m])*(x-float64(m))) / approxTimes
}

// emit computes what node j's transmissions put into a neighbour's listen
// windows. Unsynchronized, j's interval boundaries sit at a phase phi
// uniform in [0, 1) from the listener's interval start; the window [0, s)
// catches the transmission of j's interval [phi-1, phi) when its age u is in
// [1-phi, 1-phi+s), and that of [phi, phi+1) when u < s-phi, the two taken
// as independent. Synchronized, the window catches j's transmission of the
// same interval when its age is below s. q is j's transmission probability
// at each grid age; for phi <= cut the interval [phi-1, phi) transmits by
// qCut instead (the listener's own transmission at age cut of its previous
// interval fell in it: j heard one more; cut < 0 for none).
func emit(qv, qCutv *[approxTimes]float64, cut, eta float64, sync bool, out *emitted) {
	w := 1 - eta
	q, qCut := prefixOf(qv), prefixOf(qCutv)
	for l := range approxTimes {
		s := eta + w*(float64(l)+0.5)/approxTimes
		if sync {
			g := cumulative(q, eta, s)
			out.p0[l], out.p1[l], out.p2[l] = 1-g, g, 0
			continue
		}
		var p0, p1, p2 float64
		for f := range approxPhases {
			phi := (float64(f) + 0.5) / approxPhases
			qa := q
			if phi <= cut {
				qa = qCut
			}
			a := cumulative(qa, eta, math.Min(1, 1-phi+s)) - cumulative(qa, eta, 1-phi)
			b := 0.0
			if phi < s {
				b = cumulative(q, eta, s-phi)
			}
			p0 += (1 - a) * (1 - b)
			p1 += a*(1-b) + b*(1-a)
			p2 += a * b
		}
		out.p0[l], out.p1[l], out.p2[l] = p0/approxPhases, p1/approxPhases, p2/approxPhases
	}
}

// series is a power series in z truncated to its first terms.
type series []float64

// logFactor sets out to the series of log(p0 + p1 z + p2 z^2) up to z^(len-1).
func logFactor(p0, p1, p2 float64, out, y, pow series) {
	p0 = math.Max(p0, 1e-12)
	a, b := p1/p0, p2/p0
	for m := range out {
		out[m], y[m], pow[m] = 0, 0, 0
	}
	out[0] = math.Log(p0)
	if len(out) == 1 {
		return
	}
	y[1] = a
	if len(y) > 2 {
		y[2] = b
	}
	// pow = y^j, out += (-1)^(j+1) y^j / j.
	copy(pow, y)
	for j := 1; j < len(out); j++ {
		sign := 1.0
		if j%2 == 0 {
			sign = -1
		}
		for m := range out {
			out[m] += sign * pow[m] / float64(j)
		}
		// pow *= y
		for m := len(pow) - 1; m >= 0; m-- {
			v := 0.0
			for r := 1; r <= 2 && r <= m; r++ {
				v += y[r] * pow[m-r]
			}
			pow[m] = v
		}
	}
}

// expSeries sets a to the first len(l) coefficients of exp(l) and returns
// the sums of the first len(l) and len(l)-1 of them, clamped to [0, 1].
func expSeries(l, a series) (all, butLast float64) {
	a[0] = math.Exp(l[0])
	for m := 1; m < len(l); m++ {
		v := 0.0
		for j := 1; j <= m; j++ {
			v += float64(j) * l[j] * a[m-j]
		}
		a[m] = v / float64(m)
	}
	for m, v := range a {
		if m < len(a)-1 {
			butLast += v
		}
		all += v
	}
	clamp := func(x float64) float64 { return math.Min(1, math.Max(0, x)) }
	return clamp(all), clamp(butLast)
}

// ApproxResult is the per-node fixed point's estimate.
type ApproxResult struct {
	// MessagesPerInterval is the expected transmissions per interval in the
	// whole network; PerNode each node's transmission probability per interval.
	MessagesPerInterval float64
	PerNode             []float64
	Iterations          int
}

// degreeClasses is what the fixed point needs of a graph: the distinct
// degrees, the nodes of each, and the mean number of neighbours of each
// class that a node of a class has.
type degreeClasses struct {
	degree []int
	count  []float64
	nbr    [][]classWeight
	of     []int // class of each node (nil for the single cell)
}

type classWeight struct {
	class int
	mean  float64
}

// approxCuts is the number of cells of the grid of ages at which the
// listener's own previous transmission is conditioned on (pair step).
const approxCuts = 8

// fixedPoint solves the fixed point over the degree classes: every node of
// a class has the same transmission probability q(s) at each chosen time s;
// its listen window [0, s) holds the transmissions of a mean number of
// neighbours of each class, independent, each by the law emit gives. With
// pair, the neighbours' transmissions are conditioned on the listener's
// state: if it transmitted in its previous interval (at an age on a grid of
// approxCuts cells), each neighbour heard it, so the neighbour's interval
// that held it transmits only with one count fewer to spare (never for
// k = 1); the listener's own state follows the two-state chain
// transmitted / not transmitted in the previous interval, whose
// stationary law gives q.
func fixedPoint(ctx context.Context, c Config, dc *degreeClasses, pair bool) ([][approxTimes]float64, int, error) {
	nc := len(dc.degree)
	q := make([][approxTimes]float64, nc)
	qp := make([][approxTimes]float64, nc) // P(heard fewer than k-1)
	for a := range q {
		for l := range q[a] {
			q[a][l], qp[a][l] = 1, 1
		}
	}
	if c.K == 1 {
		for a := range qp {
			qp[a] = [approxTimes]float64{}
		}
	}
	pair = pair && !c.Sync
	cuts := 0
	if pair {
		cuts = approxCuts
	}
	em := make([]emitted, nc)
	emc := make([][approxCuts]emitted, nc)
	k := c.K
	lsum, tmp, y, pow, ex := make(series, k), make(series, k), make(series, k), make(series, k), make(series, k)
	var cond [approxCuts + 1][2][approxTimes]float64 // per state: P(< k), P(< k-1)
	var none emitted
	step, last := 0.5, math.Inf(1)
	it := 0
	w := 1 - c.Eta
	for it = 1; it <= 5000; it++ {
		if err := ctx.Err(); err != nil {
			return nil, it, err
		}
		for b := range nc {
			emit(&q[b], &q[b], -1, c.Eta, c.Sync, &em[b])
			for u := range cuts {
				emit(&q[b], &qp[b], c.Eta+w*(float64(u)+0.5)/approxCuts, c.Eta, c.Sync, &emc[b][u])
			}
		}
		change := 0.0
		for a := range nc {
			// The listener's transmission probability at each cut cell.
			var wt [approxCuts]float64
			for l, v := range q[a] {
				if pair {
					wt[l*approxCuts/approxTimes] += v / approxTimes
				}
			}
			pt := 0.0
			for _, v := range wt {
				pt += v
			}
			for st := 0; st <= cuts; st++ {
				for l := range approxTimes {
					for m := range lsum {
						lsum[m] = 0
					}
					for _, nw := range dc.nbr[a] {
						e := &em[nw.class]
						if st < cuts {
							e = &emc[nw.class][st]
						} else if pt > 0 && pt < 1 {
							// Not transmitted: the unconditional law less its
							// transmitted part.
							e = &none
							un := &em[nw.class]
							n0, n1, n2 := un.p0[l], un.p1[l], un.p2[l]
							for u := range cuts {
								ec := &emc[nw.class][u]
								n0 -= wt[u] * ec.p0[l]
								n1 -= wt[u] * ec.p1[l]
								n2 -= wt[u] * ec.p2[l]
							}
							n0, n1, n2 = math.Max(0, n0), math.Max(0, n1), math.Max(0, n2)
							if t := n0 + n1 + n2; t > 0 {
								none.p0[l], none.p1[l], none.p2[l] = n0/t, n1/t, n2/t
							} else {
								none.p0[l], none.p1[l], none.p2[l] = un.p0[l], un.p1[l], un.p2[l]
							}
						}
						logFactor(e.p0[l], e.p1[l], e.p2[l], tmp, y, pow)
						for m := range lsum {
							lsum[m] += nw.mean * tmp[m]
						}
					}
					cond[st][0][l], cond[st][1][l] = expSeries(lsum, ex)
				}
			}
			var next, nextP [approxTimes]float64
			if cuts == 0 || !(pt > 0 && pt < 1) {
				next, nextP = cond[cuts][0], cond[cuts][1]
			} else {
				// p1: transmission probability after a transmission; p0 after none.
				p1, p0 := 0.0, 0.0
				var mix, mixP [approxTimes]float64
				for u := range cuts {
					for l := range approxTimes {
						mix[l] += wt[u] / pt * cond[u][0][l]
						mixP[l] += wt[u] / pt * cond[u][1][l]
					}
				}
				for l := range approxTimes {
					p1 += mix[l] / approxTimes
					p0 += cond[cuts][0][l] / approxTimes
				}
				pi := p0 / (1 - p1 + p0)
				for l := range approxTimes {
					next[l] = pi*mix[l] + (1-pi)*cond[cuts][0][l]
					nextP[l] = pi*mixP[l] + (1-pi)*cond[cuts][1][l]
				}
			}
			for l := range next {
				if math.IsNaN(next[l]) || math.IsNaN(nextP[l]) {
					next[l], nextP[l] = q[a][l], qp[a][l]
				}
				d := next[l] - q[a][l]
				change = math.Max(change, math.Abs(d))
				q[a][l] += step * d
				if k > 1 {
					qp[a][l] += step * (nextP[l] - qp[a][l])
				}
			}
		}
		if change > last {
			step = math.Max(step/2, 1.0/64)
		}
		last = change
		if change < 1e-9 {
			break
		}
	}
	return q, it, nil
}

// maxClasses bounds the degree classes of the fixed point: nodes are grouped
// by degree into at most this many contiguous ranges of about equal node
// counts (each distinct degree its own class when they are fewer).
const maxClasses = 16

// classesOf groups the nodes of g by degree (at most maxClasses classes, a
// class's degree the rounded mean of its nodes') and counts the mean
// neighbours of each class that a node of each class has: O(edges).
func classesOf(g *graph.Graph) *degreeClasses {
	n := g.N()
	off, adj := g.Offsets(), g.Adjacency()
	hist := map[int]int{}
	for i := range n {
		hist[int(off[i+1]-off[i])]++
	}
	degs := slices.Sorted(maps.Keys(hist))
	bin := map[int]int{}
	cum := 0
	for _, d := range degs {
		b := cum * maxClasses / n
		if len(degs) <= maxClasses {
			b = len(bin)
		}
		bin[d] = b
		cum += hist[d]
	}
	// Renumber the bins in use 0, 1, ...
	index := map[int]int{}
	for _, d := range degs {
		if _, ok := index[bin[d]]; !ok {
			index[bin[d]] = len(index)
		}
	}
	nc := len(index)
	dc := &degreeClasses{of: make([]int, n), degree: make([]int, nc), count: make([]float64, nc)}
	sum := make([]float64, nc)
	for i := range n {
		d := int(off[i+1] - off[i])
		a := index[bin[d]]
		dc.of[i] = a
		dc.count[a]++
		sum[a] += float64(d)
	}
	for a := range nc {
		dc.degree[a] = int(math.Round(sum[a] / dc.count[a]))
	}
	edges := make([][]float64, nc)
	for a := range edges {
		edges[a] = make([]float64, nc)
	}
	for i := range n {
		a := dc.of[i]
		for _, j := range adj[off[i]:off[i+1]] {
			edges[a][dc.of[j]]++
		}
	}
	dc.nbr = make([][]classWeight, nc)
	for a := range edges {
		for b, m := range edges[a] {
			if m > 0 {
				dc.nbr[a] = append(dc.nbr[a], classWeight{b, m / dc.count[a]})
			}
		}
	}
	return dc
}

// clustering returns the mean local clustering coefficient of the nodes
// of each degree class (the fraction of pairs of a node's neighbours that
// hear each other), over at most 20000 nodes evenly spaced in id order and
// at most 64 neighbours of each; a class with no sampled node gets the mean
// over all sampled nodes.
func clustering(g *graph.Graph, dc *degreeClasses) []float64 {
	n := g.N()
	off, adj := g.Offsets(), g.Adjacency()
	stride := max(1, n/20000)
	mark := make([]bool, n)
	sum, cnt := make([]float64, len(dc.degree)), make([]float64, len(dc.degree))
	all, allCnt := 0.0, 0.0
	for i := 0; i < n; i += stride {
		nb := adj[off[i]:off[i+1]]
		if len(nb) < 2 {
			continue
		}
		for _, j := range nb {
			mark[j] = true
		}
		use := nb[:min(len(nb), 64)]
		links := 0
		for _, j := range use {
			for _, u := range adj[off[j]:off[j+1]] {
				if mark[u] {
					links++
				}
			}
		}
		for _, j := range nb {
			mark[j] = false
		}
		c := float64(links) / (float64(len(use)) * float64(len(nb)-1))
		a := dc.of[i]
		sum[a] += c
		cnt[a]++
		all += c
		allCnt++
	}
	out := make([]float64, len(sum))
	for a := range out {
		switch {
		case cnt[a] > 0:
			out[a] = sum[a] / cnt[a]
		case allCnt > 0:
			out[a] = all / allCnt
		}
	}
	return out
}

// cellMessages is the transmissions per interval of a single cell of m
// nodes: min(m, k) synchronized (SyncMessages), UnsyncK1Messages
// unsynchronized with k = 1, and otherwise measured by simulating the single
// cell (sizes on a grid of ratio 2^(1/4), interpolated in log-log).
func cellMessages(ctx context.Context, c Config, m int) (float64, error) {
	switch {
	case c.Sync:
		return SyncMessages(m, c.K), nil
	case c.K == 1:
		return UnsyncK1Messages(m, c.Eta), nil
	}
	// No closed form: the single cell of m nodes simulated at the sizes of
	// the grid around m, each over about 4*10^5 node events.
	x := 4 * math.Log2(float64(m))
	lo := math.Floor(x)
	a, err := cellSimulated(ctx, c, int(math.Round(math.Exp2(lo/4))))
	if err != nil || lo == x {
		return a, err
	}
	b, err := cellSimulated(ctx, c, int(math.Round(math.Exp2((lo+1)/4))))
	if err != nil {
		return 0, err
	}
	f := x - lo
	return math.Exp((1-f)*math.Log(a) + f*math.Log(b)), nil
}

// cellKey names a simulated single cell; cells caches their counts (the
// simulation is deterministic: a fixed seed).
type cellKey struct {
	m, k int
	eta  float64
}

var (
	cellsMu sync.Mutex
	cells   = map[cellKey]float64{}
)

// cellSimulated is the simulated transmissions per interval of an
// unsynchronized single cell of m nodes with c's k and eta (fixed seed).
func cellSimulated(ctx context.Context, c Config, m int) (float64, error) {
	key := cellKey{m, c.K, c.Eta}
	cellsMu.Lock()
	v, ok := cells[key]
	cellsMu.Unlock()
	if ok {
		return v, nil
	}
	h := math.Max(200, 2e5/float64(m))
	res, err := Simulate(ctx, Config{Nodes: m, K: c.K, Eta: c.Eta, Horizon: h + 10, Warmup: 10, Replications: 1, Workers: 1, Seed: 0x63656c6c})
	if err != nil {
		return 0, err
	}
	cellsMu.Lock()
	cells[key] = res.MessagesPerInterval
	cellsMu.Unlock()
	return res.MessagesPerInterval, nil
}

// independentCell is fixedPoint (steps 1 and 2 of Approximate) on the
// single cell of m nodes.
func independentCell(ctx context.Context, c Config, m int) (float64, error) {
	dc := &degreeClasses{degree: []int{m - 1}, count: []float64{float64(m)}, nbr: [][]classWeight{{{0, float64(m - 1)}}}}
	q, _, err := fixedPoint(ctx, c, dc, true)
	if err != nil {
		return 0, err
	}
	p := 0.0
	for _, v := range q[0] {
		p += v / approxTimes
	}
	return p * float64(m), nil
}

// Approximate is the multi-cell approximation of the expected
// transmissions per interval, per node and in total, for c's hearing graph
// (nil: the single cell), k, eta and Sync (the stationary regime: Imin,
// Horizon and the replications are not used). It is computed, not
// simulated, in three steps:
//
//  1. A fixed point over the degree classes of the graph (classesOf: at
//     most maxClasses) with independent neighbours: a node of degree d
//     transmits at its chosen time s if the transmissions of its
//     neighbours in its listen window [0, s) number fewer than k, each
//     neighbour contributing 0, 1 or 2 of them independently, by the law
//     its own class's transmission probability q(s) and a uniform phase
//     give (emit); the mean numbers of neighbours of each class come from
//     the graph's edges (O(edges) once, then O(classes^2) per iteration).
//  2. A pair step (unsynchronized): the neighbours' transmissions are
//     conditioned on whether the node itself transmitted in its previous
//     interval, which silenced the neighbours that heard it (fixedPoint).
//  3. A correction for clustering: neighbours that hear each other are
//     silenced together, which makes the heard process more regular than
//     independent ones (fewer empty windows). For a node of degree d with
//     local clustering coefficient C (mean of its class), the rate is
//     multiplied by (cell(d+1)/fixedPoint(d+1))^C, the ratio of the single
//     cell's count to steps 1-2 on the single cell of d+1 nodes: C = 0 (a
//     tree-like graph) keeps steps 1-2, C = 1 (a single cell) gives the
//     single cell's figure (SyncMessages; UnsyncK1Messages; for
//     unsynchronized k >= 2, which has no closed form, a simulation of the
//     single cell of about d+1 nodes, never of the network).
//
// Measured against simulation at n = 10^4 on tori, grids, random geometric
// and random regular graphs of mean degree 4 to 100, k = 1, 2, 4
// (TestApproxHidden on other networks, and the tables of notebook 09):
// unsynchronized within 5% for eta <= 1/4 (5.2% on the bordered grid of
// degree 95, whose border and interior nodes share degree classes) and
// within 10% at eta = 1/2 for mean degree >= 8 (the 4-neighbour lattice at
// eta = 1/2, k = 1: 16% low); at eta = 3/4 it
// is low by up to about 23% (a node that transmitted keeps transmitting
// over many intervals, a memory longer than the pair step's one interval);
// synchronized within 20% (low by 6-17% on two-dimensional graphs: the
// clustering weight is too strong there).
func Approximate(ctx context.Context, c Config) (*ApproxResult, error) {
	var dc *degreeClasses
	var clust []float64
	if c.Graph == nil || c.Graph.IsComplete() {
		dc = &degreeClasses{degree: []int{c.Nodes - 1}, count: []float64{float64(c.Nodes)},
			nbr: [][]classWeight{{{0, float64(c.Nodes - 1)}}}}
		clust = []float64{1}
	} else {
		dc = classesOf(c.Graph)
		clust = clustering(c.Graph, dc)
	}
	q, it, err := fixedPoint(ctx, c, dc, true)
	if err != nil {
		return nil, err
	}
	res := &ApproxResult{PerNode: make([]float64, c.Nodes), Iterations: it}
	rate := make([]float64, len(q))
	ratios := map[int]float64{} // cell/independent by cell size
	for a := range q {
		for _, v := range q[a] {
			rate[a] += v / approxTimes
		}
		if m := dc.degree[a] + 1; m >= 2 && clust[a] > 0 {
			ratio, ok := ratios[m]
			if !ok {
				cell, err := cellMessages(ctx, c, m)
				if err != nil {
					return nil, err
				}
				ind, err := independentCell(ctx, c, m)
				if err != nil {
					return nil, err
				}
				ratio = cell / ind
				ratios[m] = ratio
			}
			rate[a] *= math.Pow(ratio, clust[a])
		}
		res.MessagesPerInterval += rate[a] * dc.count[a]
	}
	for i := range res.PerNode {
		a := 0
		if dc.of != nil {
			a = dc.of[i]
		}
		res.PerNode[i] = rate[a]
	}
	return res, nil
}
