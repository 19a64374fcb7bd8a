package lbsim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/compat"
)

// The graphs are generated before benchScenario resets the timer.

// compat-jsqd (d = 2, without replacement) at N = 10^5 on the paper's sparse
// random graph with M = N types and server degree 3 ln N (35): every
// arrival draws a type and two of its about 35 compatible servers, so it
// reads the type's offsets and adjacency as well as the two queues.
func BenchmarkCompatJSQdSparseN1e5(b *testing.B) {
	const n = 100000
	g, err := compat.Sparse(n, n, int(math.Ceil(3*math.Log(n))), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	benchScenario(b, n, CompatJSQd(g, 2), EngineServers, 2)
}

// The same with unequal type rates (alias sampling of the type).
func BenchmarkCompatJSQdSparseRatesN1e5(b *testing.B) {
	const n = 100000
	g, err := compat.Sparse(n, n, int(math.Ceil(3*math.Log(n))), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	w := make([]float64, n)
	for t := range w {
		w[t] = 1 + float64(t%7)
	}
	if g, err = g.WithTypeRates(w); err != nil {
		b.Fatal(err)
	}
	benchScenario(b, n, CompatJSQd(g, 2), EngineServers, 2)
}

// compat-jsqd on the implicit complete graph dispatches as JSQd(2): the
// reference for the cost of the constraints.
func BenchmarkCompatJSQdCompleteN1e5(b *testing.B) {
	g, err := compat.Complete(100000, 100000)
	if err != nil {
		b.Fatal(err)
	}
	benchScenario(b, 100000, CompatJSQd(g, 2), EngineServers, 2)
}

// compat-jsq on a ring with 20 servers per type: a scan of 20 queues per
// arrival (started at the JSQ(2) fixed point, which is above its own).
func BenchmarkCompatJSQRingN1e5(b *testing.B) {
	g, err := compat.Ring(100000, 100000, 1e-4)
	if err != nil {
		b.Fatal(err)
	}
	benchScenario(b, 100000, CompatJSQ(g), EngineServers, 2)
}
