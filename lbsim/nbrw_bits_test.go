package lbsim

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
)

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
