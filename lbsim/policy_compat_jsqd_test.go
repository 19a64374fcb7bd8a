package lbsim

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/compat"
)

// CompatTestGraph is compatTestGraph for the external tests (package lbsim_test).
var CompatTestGraph = compatTestGraph

// compatTestGraph builds a compatibility graph from type -> servers lists.
func compatTestGraph(t testing.TB, n int, lists [][]int, rates []float64) *compat.Graph {
	t.Helper()
	g, err := compat.FromTypeLists(n, lists)
	if err == nil && rates != nil {
		g, err = g.WithTypeRates(rates)
	}
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bruteCompatRoute enumerates every equally likely ordered draw of d
// positions among each type's servers (all deg^d tuples with replacement,
// all deg!/(deg-d)! arrangements without) and lets the first shortest drawn
// server win, which is what Dispatch does: an independent check of Route's
// closed form.
func bruteCompatRoute(g *compat.Graph, d int, s Sampling, lengths []int) []float64 {
	prob := make([]float64, g.Servers())
	total := 0.0
	for ty := range g.Types() {
		total += g.TypeRate(ty)
	}
	for ty := range g.Types() {
		pt := g.TypeRate(ty) / total
		nb := g.ServersOf(ty)
		deg := len(nb)
		var tuples [][]int
		var rec func(prefix []int)
		rec = func(prefix []int) {
			if len(prefix) == d {
				tuples = append(tuples, append([]int(nil), prefix...))
				return
			}
		next:
			for i := range deg {
				if s == WithoutReplacement {
					for _, q := range prefix {
						if q == i {
							continue next
						}
					}
				}
				rec(append(prefix, i))
			}
		}
		rec(nil)
		for _, tu := range tuples {
			best := int(nb[tu[0]])
			for _, i := range tu[1:] {
				if j := int(nb[i]); lengths[j] < lengths[best] {
					best = j
				}
			}
			prob[best] += pt / float64(len(tuples))
		}
	}
	return prob
}

// TestCompatRouteMatchesEnumeration compares Route's closed form with the
// enumeration of all draws, to 1e-12 (rounding only), on a small graph with
// unequal type rates and degrees 1..5, in many random states.
func TestCompatRouteMatchesEnumeration(t *testing.T) {
	g := compatTestGraph(t, 6, [][]int{{0, 1, 2, 3, 4}, {2, 3, 5}, {1, 4}, {0, 1, 2, 3, 4, 5}}, []float64{1, 2, 0.5, 1.5})
	sys := System{N: 6}
	r := rand.New(rand.NewPCG(11, 12))
	for _, s := range []Sampling{WithoutReplacement, WithReplacement} {
		for _, d := range []int{1, 2, 3} {
			if s == WithoutReplacement && d > 2 {
				continue // type 2 has two servers
			}
			p, err := CompatJSQdSampling(g, d, s).(Preparer).Prepare(sys)
			if err != nil {
				t.Fatal(err)
			}
			for range 200 {
				lengths := make([]int, 6)
				for j := range lengths {
					lengths[j] = r.IntN(4)
				}
				want := bruteCompatRoute(g, d, s, lengths)
				got := make([]float64, 6)
				for _, c := range p.(ExactRouter).Route(sys, lengths, 0, -1, nil) {
					got[c.Server] += c.P
				}
				for j := range got {
					if math.Abs(got[j]-want[j]) > 1e-12 {
						t.Fatalf("%s lengths %v: Route gives server %d probability %v, enumeration %v", p.Name(), lengths, j, got[j], want[j])
					}
				}
			}
		}
	}
}

// TestCompatDispatchMatchesRoute checks that Dispatch samples the
// distribution Route states (chi-square at the 1 - 1e-6 quantile, 2e5 draws:
// see chiSquareOK), for both policies, both samplings, d = 1..3 and d = 18
// (the partial Fisher-Yates path), equal and unequal type rates.
func TestCompatDispatchMatchesRoute(t *testing.T) {
	lists := [][]int{{0, 1, 2, 3, 4}, {2, 3, 5}, {1, 4}, {0, 1, 2, 3, 4, 5}}
	big := make([][]int, 3)
	for j := range 24 {
		big[0] = append(big[0], j)
		if j%2 == 0 || j < 20 {
			big[1] = append(big[1], j)
		}
		if j >= 4 {
			big[2] = append(big[2], j)
		}
	}
	type tc struct {
		g       *compat.Graph
		lengths []int
		ps      []func(*compat.Graph) Policy
	}
	small := []func(*compat.Graph) Policy{
		CompatJSQ,
		func(g *compat.Graph) Policy { return CompatJSQd(g, 1) },
		func(g *compat.Graph) Policy { return CompatJSQd(g, 2) },
		func(g *compat.Graph) Policy { return CompatJSQdSampling(g, 2, WithReplacement) },
		func(g *compat.Graph) Policy { return CompatJSQdSampling(g, 3, WithReplacement) },
	}
	cases := []tc{
		{compatTestGraph(t, 6, lists, nil), []int{0, 1, 2, 1, 0, 3}, small},
		{compatTestGraph(t, 6, lists, []float64{1, 2, 0.5, 1.5}), []int{2, 2, 1, 1, 3, 1}, small},
		{compatTestGraph(t, 24, big, []float64{3, 1, 2}),
			[]int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4},
			[]func(*compat.Graph) Policy{
				CompatJSQ,
				func(g *compat.Graph) Policy { return CompatJSQd(g, 3) },
				func(g *compat.Graph) Policy { return CompatJSQd(g, 18) },
			}},
	}
	const draws = 200000
	for ci, c := range cases {
		n := len(c.lengths)
		sys := System{N: n}
		for _, mk := range c.ps {
			p, err := mk(c.g).(Preparer).Prepare(sys)
			if err != nil {
				t.Fatal(err)
			}
			s := newState(sys, false)
			for j, l := range c.lengths {
				for range l {
					s.add(j)
				}
			}
			r := rand.New(rand.NewPCG(uint64(ci), 9))
			counts := map[int]int{}
			for range draws {
				counts[p.Dispatch(s, -1, r)]++
			}
			probs := map[int]float64{}
			total := 0.0
			for _, ch := range p.(ExactRouter).Route(sys, c.lengths, 0, -1, nil) {
				probs[ch.Server] += ch.P
				total += ch.P
			}
			if math.Abs(total-1) > 1e-12 {
				t.Fatalf("%s case %d: Route probabilities sum to %v", p.Name(), ci, total)
			}
			chiSquareOK(t, p.Name()+" Dispatch", counts, probs, draws)
			if q, ok := p.(*compatJSQd); ok && q.scratch != nil {
				for i, v := range q.scratch {
					if int(v) != i {
						t.Fatalf("%s: scratch[%d] = %d after sampling, want the identity", p.Name(), i, v)
					}
				}
			}
		}
	}
}

// TestCompatCompleteRouteIsJSQd: on the complete bipartite graph, given
// explicitly edge by edge, Route equals JSQd's Route in every state (the law
// is the same, so the exact solutions are equal too).
func TestCompatCompleteRouteIsJSQd(t *testing.T) {
	const n = 4
	all := []int{0, 1, 2, 3}
	g := compatTestGraph(t, n, [][]int{all, all, all}, []float64{1, 3, 2})
	sys := System{N: n}
	r := rand.New(rand.NewPCG(5, 6))
	for _, s := range []Sampling{WithoutReplacement, WithReplacement} {
		for d := 1; d <= n; d++ {
			p, err := CompatJSQdSampling(g, d, s).(Preparer).Prepare(sys)
			if err != nil {
				t.Fatal(err)
			}
			ref := JSQdSampling(d, s).(ExactRouter)
			for range 100 {
				lengths := make([]int, n)
				for j := range lengths {
					lengths[j] = r.IntN(3)
				}
				got, want := make([]float64, n), make([]float64, n)
				for _, c := range p.(ExactRouter).Route(sys, lengths, 0, -1, nil) {
					got[c.Server] += c.P
				}
				for _, c := range ref.Route(sys, lengths, 0, -1, nil) {
					want[c.Server] += c.P
				}
				for j := range got {
					if math.Abs(got[j]-want[j]) > 1e-12 {
						t.Fatalf("d=%d %s lengths %v: server %d: compat %v, jsqd %v", d, s, lengths, j, got[j], want[j])
					}
				}
			}
		}
	}
	// compat-jsq on the same graph is JSQ.
	p, _ := CompatJSQ(g).(Preparer).Prepare(sys)
	lengths := []int{2, 0, 1, 0}
	got := p.(ExactRouter).Route(sys, lengths, 0, -1, nil)
	if len(got) != 2 || got[0].Server != 1 || got[1].Server != 3 || math.Abs(got[0].P-0.5) > 1e-15 {
		t.Fatalf("compat-jsq on the complete graph in state %v: %v, want servers 1 and 3 with 1/2 each", lengths, got)
	}
}

func TestCompatPrepareErrors(t *testing.T) {
	g := compatTestGraph(t, 4, [][]int{{0, 1, 2}, {3}}, nil)
	cases := []struct {
		p    Policy
		sys  System
		want string
	}{
		{CompatJSQd(nil, 2), System{N: 4}, "compat graph: nil"},
		{CompatJSQd(g, 2), System{N: 5}, "has 4 servers but the system has 5"},
		{CompatJSQd(g, 2), System{N: 4}, "type 1 has 1 compatible servers, fewer than 2"},
		{CompatJSQd(g, 0), System{N: 4}, "d = 0: must be at least 1"},
		{CompatJSQdSampling(g, 2, Sampling(7)), System{N: 4}, "sampling = 7"},
		{CompatJSQ(compatTestGraph(t, 4, [][]int{{0, 1}, {}}, nil)), System{N: 4}, "type 1 has 0 compatible servers, fewer than 1"},
	}
	for _, c := range cases {
		_, err := c.p.(Preparer).Prepare(c.sys)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Prepare error %v, want it to contain %q", c.p.Name(), err, c.want)
		}
	}
	// A type that never arrives may have no server; with replacement one
	// server is enough.
	h := compatTestGraph(t, 4, [][]int{{0, 1, 2}, {}}, []float64{1, 0})
	if _, err := CompatJSQd(h, 2).(Preparer).Prepare(System{N: 4}); err != nil {
		t.Errorf("type of rate 0 without servers: %v", err)
	}
	if _, err := CompatJSQdSampling(g, 3, WithReplacement).(Preparer).Prepare(System{N: 4}); err != nil {
		t.Errorf("with replacement, degree 1 < d: %v", err)
	}
}

// TestCompatDispatchNoAlloc: Dispatch runs in the hot loop and must not
// allocate, on every path.
func TestCompatDispatchNoAlloc(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	g, err := compat.Random(200, 50, 10, r)
	if err != nil {
		t.Fatal(err)
	}
	rates := make([]float64, 50)
	for i := range rates {
		rates[i] = float64(i%5 + 1)
	}
	gw, _ := g.WithTypeRates(rates)
	full, _ := compat.Complete(200, 50)
	sys := System{N: 200}
	for _, p0 := range []Policy{CompatJSQd(g, 2), CompatJSQd(gw, 3), CompatJSQd(g, 20), CompatJSQdSampling(g, 2, WithReplacement),
		CompatJSQdSampling(gw, 4, WithReplacement), CompatJSQ(g), CompatJSQd(full, 2)} {
		p, err := p0.(Preparer).Prepare(sys)
		if err != nil {
			t.Fatal(err)
		}
		s := newState(sys, false)
		for j := range 200 {
			for range j % 4 {
				s.add(j)
			}
		}
		if a := testing.AllocsPerRun(1000, func() { p.Dispatch(s, -1, r) }); a != 0 {
			t.Errorf("%s: Dispatch allocates %v times per call", p.Name(), a)
		}
	}
}
