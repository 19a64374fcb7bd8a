package pairs

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/internal/alias"
	"github.com/lbsim/notebooks/lbsim/internal/edgelist"
)

// MaxSets bounds the sets an explicit distribution stores (16 bytes each
// with its weight and alias entry).
const MaxSets = 1 << 28

// Dist is a probability distribution over the d-sets of the servers
// 0..n-1. It is read-only after construction; concurrent samplers each use
// their own *rand.Rand.
type Dist struct {
	n, d    int
	uniform bool
	u, v    []int32   // explicit pairs (d = 2)
	p       []float64 // their probabilities
	table   *alias.Table
	desc    string
}

// Uniform is the uniform distribution over the d-sets of n servers
// (1 <= d <= n).
func Uniform(n, d int) (*Dist, error) {
	if n < 1 || n > math.MaxInt32 {
		return nil, fmt.Errorf("pairs: n = %d servers: must be in [1, 2^31-1]", n)
	}
	if d < 1 || d > n {
		return nil, fmt.Errorf("pairs: d = %d: must be between 1 and the number of servers (%d)", d, n)
	}
	return &Dist{n: n, d: d, uniform: true, desc: "uniform"}, nil
}

// Weighted is the distribution over the pairs {u[k], v[k]} with
// probabilities proportional to w[k] (w nil: equal). Pairs must join two
// distinct servers below n, weights must be finite and >= 0, not all 0; a
// pair given twice counts twice.
func Weighted(n int, u, v []int32, w []float64) (*Dist, error) {
	if n < 2 || n > math.MaxInt32 {
		return nil, fmt.Errorf("pairs: n = %d servers: a pair needs at least 2 (and at most 2^31-1)", n)
	}
	if len(u) != len(v) || (w != nil && len(w) != len(u)) {
		return nil, errors.New("pairs: u, v and w must have the same length")
	}
	if len(u) == 0 {
		return nil, errors.New("pairs: no pairs")
	}
	if len(u) > MaxSets {
		return nil, fmt.Errorf("pairs: %d pairs, more than %d", len(u), MaxSets)
	}
	p := make([]float64, len(u))
	total := 0.0
	for k := range u {
		if u[k] < 0 || v[k] < 0 || int(u[k]) >= n || int(v[k]) >= n {
			return nil, fmt.Errorf("pairs: pair %d = {%d, %d}: servers must be in [0, %d)", k, u[k], v[k], n)
		}
		if u[k] == v[k] {
			return nil, fmt.Errorf("pairs: pair %d = {%d, %d}: a pair needs two distinct servers", k, u[k], v[k])
		}
		p[k] = 1
		if w != nil {
			p[k] = w[k]
		}
		if math.IsNaN(p[k]) || math.IsInf(p[k], 0) || p[k] < 0 {
			return nil, fmt.Errorf("pairs: pair %d = {%d, %d}: weight %v: must be finite and >= 0", k, u[k], v[k], p[k])
		}
		total += p[k]
	}
	if !(total > 0) {
		return nil, errors.New("pairs: all weights are zero; at least one pair must have a weight > 0")
	}
	for k := range p {
		p[k] /= total
	}
	desc := "weighted"
	if w == nil {
		desc = "edges"
	}
	return &Dist{n: n, d: 2, u: u, v: v, p: p, table: alias.New(p), desc: desc}, nil
}

// FromGraph is the uniform distribution over the edges of g (each
// undirected edge once; self-loops are refused). The implicit complete
// graph gives Uniform(n, 2).
func FromGraph(g *graph.Graph) (*Dist, error) {
	if g.IsComplete() {
		return Uniform(g.N(), 2)
	}
	if g.SelfLoops() > 0 {
		return nil, fmt.Errorf("pairs: the graph has %d self-loops; a pair needs two distinct servers", g.SelfLoops())
	}
	var u, v []int32
	for a := range g.N() {
		for _, b := range g.Neighbors(a) {
			if int(b) > a {
				u, v = append(u, int32(a)), append(v, int32(b))
			}
		}
	}
	d, err := Weighted(g.N(), u, v, nil)
	if err != nil {
		return nil, err
	}
	d.desc = "graph"
	return d, nil
}

// ReadEdgeList reads weighted pairs, one "u v [w]" per line (0-based server
// ids below n; w a finite weight >= 0, default 1; '#' comments).
func ReadEdgeList(r io.Reader, n int) (*Dist, error) {
	var u, v []int32
	var w []float64
	err := edgelist.ReadWeighted(r, edgelist.Format{Pkg: "pairs", Want: "two server ids and an optional weight",
		IDs: [2]string{"server id", "server id"}}, func(line int, a, b uint32, x float64) error {
		if int64(a) >= int64(n) || int64(b) >= int64(n) {
			return fmt.Errorf("pairs: edge list line %d: server %d: must be below the number of servers (%d)", line, max(a, b), n)
		}
		if a == b {
			return fmt.Errorf("pairs: edge list line %d: pair {%d, %d}: a pair needs two distinct servers", line, a, b)
		}
		if x < 0 {
			return fmt.Errorf("pairs: edge list line %d: weight %v: must be >= 0", line, x)
		}
		if len(u) >= MaxSets {
			return fmt.Errorf("pairs: edge list line %d: more than %d pairs", line, MaxSets)
		}
		u, v, w = append(u, int32(a)), append(v, int32(b)), append(w, x)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return Weighted(n, u, v, w)
}

// N is the number of servers, D the size of the sets.
func (p *Dist) N() int { return p.n }

// D is the size of the sets.
func (p *Dist) D() int { return p.d }

// IsUniform reports whether every d-set is equally likely.
func (p *Dist) IsUniform() bool { return p.uniform }

// String says what the distribution is: uniform, graph, edges or weighted.
func (p *Dist) String() string { return p.desc }

// Sample draws one set into buf[:d] (which needs room for d servers) and
// returns it. A uniform d-set is drawn by rejection of repeats (d small) or
// a partial shuffle; an explicit pair by the alias table, in a random order.
func (p *Dist) Sample(r *rand.Rand, buf []int32) []int32 {
	buf = buf[:p.d]
	if !p.uniform {
		k := p.table.Sample(r)
		if r.Uint64()&1 == 0 {
			buf[0], buf[1] = p.u[k], p.v[k]
		} else {
			buf[0], buf[1] = p.v[k], p.u[k]
		}
		return buf
	}
	n := int32(p.n)
	for i := range buf {
	again:
		j := r.Int32N(n)
		for _, x := range buf[:i] {
			if x == j {
				goto again
			}
		}
		buf[i] = j
	}
	return buf
}

// Set is one set of servers with its probability.
type Set struct {
	Servers []int
	P       float64
}

// maxEnumerated bounds the sets Sets lists for a uniform distribution.
const maxEnumerated = 1 << 22

// Sets lists the sets of positive probability, with their probabilities;
// for a uniform distribution the C(n, d) d-sets in lexicographic order (an
// error beyond 2^22 of them). A pair listed twice is merged.
func (p *Dist) Sets() ([]Set, error) {
	if !p.uniform {
		idx := map[[2]int32]int{}
		var out []Set
		for k := range p.u {
			if p.p[k] == 0 {
				continue
			}
			key := [2]int32{min(p.u[k], p.v[k]), max(p.u[k], p.v[k])}
			if i, ok := idx[key]; ok {
				out[i].P += p.p[k]
				continue
			}
			idx[key] = len(out)
			out = append(out, Set{Servers: []int{int(key[0]), int(key[1])}, P: p.p[k]})
		}
		return out, nil
	}
	count := 1.0
	for i := range p.d {
		count = count * float64(p.n-i) / float64(i+1)
	}
	if count > maxEnumerated {
		return nil, fmt.Errorf("pairs: %.3g sets of %d of %d servers, more than %d to list", count, p.d, p.n, maxEnumerated)
	}
	prob := 1 / math.Round(count)
	var out []Set
	set := make([]int, p.d)
	var rec func(i, from int)
	rec = func(i, from int) {
		if i == p.d {
			out = append(out, Set{Servers: append([]int(nil), set...), P: prob})
			return
		}
		for s := from; s <= p.n-(p.d-i); s++ {
			set[i] = s
			rec(i+1, s+1)
		}
	}
	rec(0, 0)
	return out, nil
}

// Uncovered returns the servers that no set of positive probability
// contains: under positive load they receive nothing.
func (p *Dist) Uncovered() []int {
	if p.uniform {
		return nil
	}
	covered := make([]bool, p.n)
	for k := range p.u {
		if p.p[k] > 0 {
			covered[p.u[k]], covered[p.v[k]] = true, true
		}
	}
	var out []int
	for j, c := range covered {
		if !c {
			out = append(out, j)
		}
	}
	return out
}
