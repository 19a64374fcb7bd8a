package redundancy

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/lbsim/notebooks/lbsim/pairs"
)

// checkInput validates the common inputs of Exact and Simulate: lambda per
// server, the rates (nil: all 1) and the distribution, and returns the
// rates to use.
func checkInput(dist *pairs.Dist, lambda float64, rates []float64) ([]float64, error) {
	if dist == nil {
		return nil, errors.New("redundancy: dist: no pair distribution")
	}
	n := dist.N()
	if math.IsNaN(lambda) || math.IsInf(lambda, 0) || lambda <= 0 {
		return nil, fmt.Errorf("redundancy: lambda = %v: must be a finite arrival rate per server > 0", lambda)
	}
	if rates == nil {
		rates = make([]float64, n)
		for j := range rates {
			rates[j] = 1
		}
	}
	if len(rates) != n {
		return nil, fmt.Errorf("redundancy: rates: got %d values, want one per server (%d)", len(rates), n)
	}
	for j, mu := range rates {
		if math.IsNaN(mu) || math.IsInf(mu, 0) || mu <= 0 {
			return nil, fmt.Errorf("redundancy: rates[%d] = %v: must be a finite service rate > 0", j, mu)
		}
	}
	if u := dist.Uncovered(); len(u) > 0 {
		return nil, fmt.Errorf("redundancy: pairs: %d servers (%v) belong to no set of positive probability: "+
			"they would never receive a task; give servers only the covered ones or add pairs", len(u), head(u, 8))
	}
	return rates, nil
}

func head(xs []int, k int) []int {
	if len(xs) > k {
		return xs[:k]
	}
	return xs
}

// LoadRatio returns max over nonempty sets A of servers of
// Lambda * P(S subset of A) / mu(A), with Lambda = lambda*N, and a set A that
// attains it. The redundancy system is stable if and only if it is below 1
// (Gardner et al. 2016; Bonald and Comte 2017): the classes whose sets lie
// inside A can be served only by A.
//
// For uniform d-sets P(S subset of A) depends on |A| only, so the k slowest
// servers are the worst set of size k. For explicit pairs the maximum is a
// densest-subgraph problem, solved exactly by Dinkelbach's iteration over
// parametric minimum cuts (Goldberg 1984): max over A of
// Lambda*p(E(A)) - t*mu(A) is a maximum-weight closure of the bipartite
// pair-server graph.
//
// The answer for explicit pairs is remembered (one entry: the same
// distribution, lambda and rates), so that validating a model point and
// running it solve the cut problem once: it takes seconds for 10^6 servers.
func LoadRatio(dist *pairs.Dist, lambda float64, rates []float64) (ratio float64, worst []int, err error) {
	rates, err = checkInput(dist, lambda, rates)
	if err != nil {
		return 0, nil, err
	}
	total := lambda * float64(dist.N())
	if dist.IsUniform() {
		r, w := uniformRatio(dist.N(), dist.D(), total, rates)
		return r, w, nil
	}
	ratioMu.Lock()
	last := lastRatio
	ratioMu.Unlock()
	if last.dist == dist && last.lambda == lambda && slices.Equal(last.rates, rates) {
		return last.ratio, slices.Clone(last.worst), nil
	}
	sets, err := dist.Sets()
	if err != nil {
		return 0, nil, err
	}
	r, w := pairRatio(dist.N(), sets, total, rates)
	ratioMu.Lock()
	lastRatio = ratioMemo{dist, lambda, slices.Clone(rates), r, slices.Clone(w)}
	ratioMu.Unlock()
	return r, w, nil
}

// ratioMemo is the last LoadRatio of explicit pairs.
type ratioMemo struct {
	dist   *pairs.Dist
	lambda float64
	rates  []float64
	ratio  float64
	worst  []int
}

var (
	ratioMu   sync.Mutex
	lastRatio ratioMemo
)

// uniformRatio is LoadRatio for uniform d-sets: over k = d..n, the k
// slowest servers, with P(S subset of A) = C(k, d)/C(n, d).
func uniformRatio(n, d int, total float64, rates []float64) (float64, []int) {
	order := make([]int, n)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rates[a] < rates[b]:
			return -1
		case rates[a] > rates[b]:
			return 1
		}
		return 0
	})
	lgN := lchoose(n, d)
	best, bestK, mu := 0.0, n, 0.0
	for k := 1; k <= n; k++ {
		mu += rates[order[k-1]]
		if k < d {
			continue
		}
		p := 1.0
		if k < n {
			p = math.Exp(lchoose(k, d) - lgN)
		}
		if r := total * p / mu; r > best {
			best, bestK = r, k
		}
	}
	worst := slices.Clone(order[:bestK])
	slices.Sort(worst)
	return best, worst
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// pairRatio is LoadRatio for explicit sets, by Dinkelbach's iteration: start
// from t = the ratio of all servers; find A maximising
// Lambda*p(inside A) - t*mu(A) by a minimum cut; if its value is positive,
// t = ratio(A) grows strictly and the step repeats, else t is the maximum.
func pairRatio(n int, sets []pairs.Set, total float64, rates []float64) (float64, []int) {
	all := make([]int, n)
	muAll := 0.0
	for j := range all {
		all[j] = j
		muAll += rates[j]
	}
	best, worst := total/muAll, all
	ratio := func(a []int) float64 {
		in := make([]bool, n)
		mu := 0.0
		for _, j := range a {
			in[j] = true
			mu += rates[j]
		}
		p := 0.0
		for _, s := range sets {
			inside := true
			for _, j := range s.Servers {
				inside = inside && in[j]
			}
			if inside {
				p += s.P
			}
		}
		return total * p / mu
	}
	for range 100 {
		a := maxClosure(n, sets, total, rates, best)
		if len(a) == 0 {
			break
		}
		r := ratio(a)
		if !(r > best*(1+1e-12)) {
			break
		}
		best, worst = r, a
	}
	return best, worst
}

// maxClosure returns the servers A (possibly none) maximising
// total*p(sets inside A) - t*mu(A): the source side of a minimum cut of
// source -> set (capacity total*p), set -> its servers (infinite),
// server -> sink (capacity t*mu).
func maxClosure(n int, sets []pairs.Set, total float64, rates []float64, t float64) []int {
	m := len(sets)
	g := newFlow(m + n + 2)
	src, sink := m+n, m+n+1
	for k, s := range sets {
		g.add(src, k, total*s.P)
		for _, j := range s.Servers {
			g.add(k, m+j, math.Inf(1))
		}
	}
	for j := range n {
		g.add(m+j, sink, t*rates[j])
	}
	g.maxflow(src, sink, 1e-13*total)
	var a []int
	for j := range n {
		if g.level[m+j] >= 0 {
			a = append(a, j)
		}
	}
	return a
}

// flow is Dinic's maximum-flow algorithm on float capacities.
type flow struct {
	head  []int32
	to    []int32
	next  []int32
	cap   []float64
	level []int32
	iter  []int32
	eps   float64
}

func newFlow(nodes int) *flow {
	f := &flow{head: make([]int32, nodes), level: make([]int32, nodes), iter: make([]int32, nodes)}
	for i := range f.head {
		f.head[i] = -1
	}
	return f
}

func (f *flow) add(u, v int, c float64) {
	f.to = append(f.to, int32(v), int32(u))
	f.cap = append(f.cap, c, 0)
	f.next = append(f.next, f.head[u], f.head[v])
	f.head[u], f.head[v] = int32(len(f.to)-2), int32(len(f.to)-1)
}

// bfs levels the residual graph from s; level -1 marks unreachable nodes.
func (f *flow) bfs(s int) {
	for i := range f.level {
		f.level[i] = -1
	}
	f.level[s] = 0
	queue := []int32{int32(s)}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for e := f.head[u]; e >= 0; e = f.next[e] {
			if v := f.to[e]; f.cap[e] > f.eps && f.level[v] < 0 {
				f.level[v] = f.level[u] + 1
				queue = append(queue, v)
			}
		}
	}
}

func (f *flow) dfs(u, t int32, limit float64) float64 {
	if u == t {
		return limit
	}
	for ; f.iter[u] >= 0; f.iter[u] = f.next[f.iter[u]] {
		e := f.iter[u]
		v := f.to[e]
		if f.cap[e] > f.eps && f.level[v] == f.level[u]+1 {
			if d := f.dfs(v, t, math.Min(limit, f.cap[e])); d > 0 {
				f.cap[e] -= d
				f.cap[e^1] += d
				return d
			}
		}
	}
	return 0
}

// maxflow pushes a maximum flow from s to t; afterwards level marks the
// source side of a minimum cut (level >= 0).
func (f *flow) maxflow(s, t int, eps float64) {
	f.eps = eps
	for {
		f.bfs(s)
		if f.level[t] < 0 {
			return
		}
		copy(f.iter, f.head)
		for f.dfs(int32(s), int32(t), math.Inf(1)) > 0 {
		}
	}
}

// stableMargin is how far below 1 the load ratio must be: a ratio within
// rounding of 1 (six pairs of probability 1/6 sum to 1 - 2^-53) is unstable.
const stableMargin = 1e-12

// stabilityError is the error of an unstable input, naming lambda.
func stabilityError(lambda, ratio float64, worst []int, n int) error {
	what := fmt.Sprintf("the servers %v", head(worst, 8))
	if len(worst) > 8 {
		what = fmt.Sprintf("a set of %d servers (%v, ...)", len(worst), head(worst, 8))
	}
	if len(worst) == n {
		what = "all the servers"
	}
	return fmt.Errorf("redundancy: lambda = %v: unstable: the tasks whose sets lie within %s arrive at %.6g times "+
		"the rate those servers serve at; the system is stable iff this load ratio is below 1 for every set of servers "+
		"(lambda must be below %.6g)", lambda, what, ratio, lambda/ratio)
}
