package lbsim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// walkTestGraphs are small graphs with the features the walk must handle:
// the complete graph explicitly and implicitly (K4, K5), a vertex of degree 1
// (forced backtracking: the star and the path), degree 2 (a deterministic
// non-backtracking step: the path's middle, the 5-cycle) and a 3-regular graph
// that is not complete (the triangular prism).
func walkTestGraphs(t testing.TB) map[string]*graph.Graph {
	k4, _ := graph.Complete(4)
	k5, _ := graph.Complete(5)
	k4e, _ := k4.Materialize()
	return map[string]*graph.Graph{
		"K4":          k4,
		"K4-explicit": k4e,
		"K5":          k5,
		"star4":       edgeGraph(t, 4, [][2]int{{0, 1}, {0, 2}, {0, 3}}),
		"path3":       edgeGraph(t, 3, [][2]int{{0, 1}, {1, 2}}),
		"cycle5":      edgeGraph(t, 5, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}}),
		"prism":       edgeGraph(t, 6, [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {0, 3}, {1, 4}, {2, 5}}),
	}
}

// setWalkers puts the prepared policy's walkers in the joint exact state ps
// and plans their next moves. The simple walk's state does not say where a
// walker came from; its steps do not depend on it.
func setWalkers(p *walkJSQd, ps int, s *State, r *rand.Rand) {
	b := p.walkerStates()
	for w := range p.d {
		x := p.decode(ps % b)
		ps /= b
		p.place(w, uint32(x.cur), uint32(max(x.prev, 0)), s, r)
	}
	p.started = true
}

// walkersState is the joint exact state of the walkers.
func walkersState(p *walkJSQd) int {
	b, ps, scale := p.walkerStates(), 0, 1
	for w := range p.d {
		ps += scale * p.encode(walker{prev: int(p.prev[w]), cur: int(p.cur[w])})
		scale *= b
	}
	return ps
}

// TestWalkDispatchMatchesRoute checks that Dispatch samples exactly the joint
// law of (server, next walker state) that Route states, on every test graph,
// for both walks, d = 1..3 and 1 or 2 steps per arrival, from several walker
// states and queue lengths with many ties. Chi-square at the 1 - 1e-6
// quantile (chiSquareOK) with 1e5 draws per case: deterministic with the fixed
// seeds, and a sampler off by a few percent on any outcome fails. It also
// checks that Route's probabilities sum to 1 and that every walker state
// round-trips through encode and decode.
func TestWalkDispatchMatchesRoute(t *testing.T) {
	const draws = 100000
	for name, g := range walkTestGraphs(t) {
		n := g.N()
		lengths := make([]int, n)
		for j := range lengths {
			lengths[j] = []int{1, 0, 2, 1, 0, 1}[j%6]
		}
		for _, walk := range []Walk{NonBacktracking, SimpleWalk} {
			for d := 1; d <= 3; d++ {
				for steps := 1; steps <= 2; steps++ {
					if d == 3 && steps == 2 {
						continue
					}
					p0 := WalkJSQd(g, d, walk, steps).(*walkJSQd)
					sys := System{N: n}
					pp, err := p0.Prepare(sys)
					if err != nil {
						t.Fatal(err)
					}
					p := pp.(*walkJSQd)
					b := p.walkerStates()
					for x := range b {
						if y := p.encode(p.decode(x)); y != x {
							t.Fatalf("%s %s: walker state %d decodes to %+v, which encodes to %d", name, walk, x, p.decode(x), y)
						}
					}
					states := p.PolicyStates(sys)
					s := newState(sys, false)
					for j, l := range lengths {
						for range l {
							s.add(j)
						}
					}
					r := rand.New(rand.NewPCG(uint64(d*10+steps), uint64(walk)+uint64(len(name))))
					for _, ps := range []int{0, states / 3, states - 1} {
						what := fmt.Sprintf("%s %s pstate %d", name, p.Name(), ps)
						probs := map[int]float64{}
						total := 0.0
						for _, c := range p.Route(sys, lengths, ps, -1, nil) {
							if c.Next < 0 || c.Next >= states {
								t.Fatalf("%s: next state %d out of range", what, c.Next)
							}
							probs[c.Server*states+c.Next] += c.P
							total += c.P
						}
						if math.Abs(total-1) > 1e-12 {
							t.Fatalf("%s: Route probabilities sum to %v", what, total)
						}
						counts := map[int]int{}
						for range draws {
							setWalkers(p, ps, s, r)
							j := p.Dispatch(s, -1, r)
							counts[j*states+walkersState(p)]++
						}
						chiSquareOK(t, what, counts, probs, draws)
					}
				}
			}
		}
	}
}

// On a cycle the non-backtracking walk is deterministic: each walker goes
// round in one direction, and one walker visits every server once in N
// arrivals (round robin), drawing no random bits after its start.
func TestWalkCycleIsDeterministic(t *testing.T) {
	g, err := graph.Ring(7, 1)
	if err != nil {
		t.Fatal(err)
	}
	pp, err := NBRWJSQd(g, 1).(Preparer).Prepare(System{N: 7})
	if err != nil {
		t.Fatal(err)
	}
	p := pp.(*walkJSQd)
	s := newState(System{N: 7}, false)
	src := rand.NewPCG(1, 2)
	r := rand.New(src)
	first := p.Dispatch(s, -1, r)
	after := *src // the start drew its numbers; the walk draws none
	dir := (int(p.cur[0]) - int(p.prev[0]) + 7) % 7
	for k := 1; k <= 21; k++ {
		if j, want := p.Dispatch(s, -1, r), (first+k*dir)%7; j != want {
			t.Fatalf("dispatch %d went to %d, want %d", k, j, want)
		}
	}
	if *src != after {
		t.Error("the walk on a cycle drew random numbers")
	}
}

func TestWalkPrepareErrors(t *testing.T) {
	k4, _ := graph.Complete(4)
	isolated := edgeGraph(t, 4, [][2]int{{0, 1}, {1, 2}})
	for _, c := range []struct {
		p    Policy
		n    int
		want string
	}{
		{WalkJSQd(k4, 0, NonBacktracking, 1), 4, "d = 0"},
		{WalkJSQd(k4, 5, NonBacktracking, 1), 4, "d = 5"},
		{WalkJSQd(k4, 2, Walk(7), 1), 4, "walk = 7"},
		{WalkJSQd(k4, 2, SimpleWalk, 0), 4, "steps = 0"},
		{WalkJSQd(k4, 2, SimpleWalk, 1), 5, "graph: has 4 vertices"},
		{WalkJSQd(nil, 1, SimpleWalk, 1), 4, "graph: nil"},
		{NBRWJSQd(isolated, 1), 4, "vertex 3 has no neighbour"},
	} {
		_, err := c.p.(Preparer).Prepare(System{N: c.n})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %d servers: error %v, want one containing %q", c.p.Name(), c.n, err, c.want)
		}
	}
}

// TestWalkBitsPerDispatch counts, through CountDraws, the random words the
// walkers draw per dispatch when every queue has the same length (so every
// dispatch with d = 2 breaks a tie), and compares them with what the bit pool
// must consume: each choice among m <= 16 options takes 8 bits and is redrawn
// with probability (256 mod m)/256, so a dispatch takes
// 8*(d/(1 - (256 mod m)/256) + 1) bits on average, with m = k-1 for the
// non-backtracking walk and m = k for the simple walk on a k-regular graph;
// on a cycle the non-backtracking walk takes no bits and only the tie costs 8.
// With 1e6 dispatches the standard deviation of the count is below 0.002 bits
// per dispatch; the tolerance is 0.02.
func TestWalkBitsPerDispatch(t *testing.T) {
	const n, dispatches = 1000, 1000000
	reg, err := graph.RandomRegular(n, 10, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	cycle, _ := graph.Ring(n, 1)
	expect := func(m int) float64 {
		return 8 * (2/(1-float64(256%m)/256) + 1)
	}
	for _, c := range []struct {
		name string
		p    Policy
		want float64
	}{
		{"nbrw on 10-regular", NBRWJSQd(reg, 2), expect(9)},
		{"srw on 10-regular", WalkJSQd(reg, 2, SimpleWalk, 1), expect(10)},
		{"nbrw on the cycle", NBRWJSQd(cycle, 2), 8},
	} {
		counter := CountDraws(c.p)
		pp, err := counter.Prepare(System{N: n})
		if err != nil {
			t.Fatal(err)
		}
		s := newState(System{N: n}, false)
		r := rand.New(rand.NewPCG(3, 4))
		for range dispatches {
			pp.Dispatch(s, -1, r)
		}
		if counter.Dispatches() != dispatches {
			t.Fatalf("%s: %d dispatches counted, want %d", c.name, counter.Dispatches(), dispatches)
		}
		if got := counter.BitsPerDispatch(); math.Abs(got-c.want) > 0.02 {
			t.Errorf("%s: %.4f bits per dispatch, want %.4f", c.name, got, c.want)
		}
	}
}

// TestCountDrawsIsTransparent checks that a policy wrapped in CountDraws
// gives the same results, to the bit, as the policy itself (the wrapped
// policy draws through a source that forwards every word), and that the
// counts are those of the whole run.
func TestCountDrawsIsTransparent(t *testing.T) {
	g, err := graph.RandomRegular(200, 4, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	// Not the policies the per-server engine dispatches inline (see
	// DrawCounter): JSQ(3) without replacement, two local choices with d = 3.
	for _, p := range []Policy{NBRWJSQd(g, 2), JSQd(3), NeighbourJSQd(g, 3)} {
		sc := Scenario{Servers: 200, Lambda: 0.9, Policy: p, Horizon: 50, Replications: 2, Seed: 9, Engine: EngineServers}
		plain, err := Run(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		counter := CountDraws(p)
		sc.Policy = counter
		counted, err := Run(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(plain.Occupancy, counted.Occupancy) || plain.Events != counted.Events {
			t.Errorf("%s: results differ with CountDraws: %v vs %v", p.Name(), plain.Occupancy, counted.Occupancy)
		}
		// About half of the events are arrivals (lambda*N against at most
		// N departures per unit time).
		if d := counter.Dispatches(); d < counted.Events/3 || d > counted.Events*2/3 {
			t.Errorf("%s: %d dispatches counted in %d events", p.Name(), d, counted.Events)
		}
		if counter.Words() == 0 {
			t.Errorf("%s: no words counted", p.Name())
		}
	}
}

func TestSampleBits(t *testing.T) {
	for _, c := range []struct {
		got, want float64
	}{
		{WalkSampleBits(NonBacktracking, 10, 2, 1), 2 * math.Log2(9)},
		{WalkSampleBits(NonBacktracking, 10, 2, 3), 6 * math.Log2(9)},
		{WalkSampleBits(SimpleWalk, 10, 1, 1), math.Log2(10)},
		{WalkSampleBits(NonBacktracking, 2, 2, 1), 0},
		{IIDSampleBits(10, 2, WithoutReplacement), math.Log2(90)},
		{IIDSampleBits(10, 2, WithReplacement), math.Log2(100)},
		{IIDSampleBits(1, 3, WithReplacement), 0},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("got %v bits, want %v", c.got, c.want)
		}
	}
	for _, x := range []float64{WalkSampleBits(SimpleWalk, 0, 1, 1), WalkSampleBits(SimpleWalk, 3, 0, 1),
		WalkSampleBits(SimpleWalk, 3, 1, 0), IIDSampleBits(3, 4, WithoutReplacement), IIDSampleBits(3, 0, WithReplacement)} {
		if !math.IsNaN(x) {
			t.Errorf("got %v for invalid arguments, want NaN", x)
		}
	}
}
