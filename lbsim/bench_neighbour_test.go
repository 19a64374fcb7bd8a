package lbsim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// Graphs for the neighbour benchmarks, generated once per process outside the
// timed part (the dense one takes seconds and about 1.5 GB).
var (
	benchGraphsMu sync.Mutex
	benchGraphs   = map[string]*graph.Graph{}
)

func benchGraph(b *testing.B, name string, mk func(r *rand.Rand) (*graph.Graph, error)) *graph.Graph {
	benchGraphsMu.Lock()
	defer benchGraphsMu.Unlock()
	if g, ok := benchGraphs[name]; ok {
		return g
	}
	g, err := mk(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	benchGraphs[name] = g
	return g
}

// benchNeighbour runs one replication of policy (neighbour-jsq by default) on
// g at lambda = 0.9, started at the JSQ fluid point (q_1 = 0.9), long enough
// for about b.N events, and reports events per second and the scan-equivalent
// rate (one core): a full scan of an arrival at origin o inspects deg(o) + 1
// queues; origins are uniform, so a scanning dispatcher inspects arrivals *
// (mean degree + 1), with arrivals = events * lambda / (lambda + q_1) from the
// measured q_1 (arrival rate lambda N, departure rate q_1 N).
func benchNeighbour(b *testing.B, g *graph.Graph) { benchNeighbourPolicy(b, g, NeighbourJSQ(g)) }

func benchNeighbourPolicy(b *testing.B, g *graph.Graph, policy Policy) {
	benchNeighbourAt(b, g, policy, 0.9)
}

// benchNeighbourAt is benchNeighbourPolicy at load lambda.
func benchNeighbourAt(b *testing.B, g *graph.Graph, policy Policy, lambda float64) {
	n := g.N()
	var meanDeg float64
	if h, ok := g.PairHash(); ok {
		meanDeg = h.P() * float64(n-1) // its Edges would make the lists
	} else {
		meanDeg = 2 * float64(g.Edges()) / float64(n)
	}
	rate := float64(n) * (lambda + lambda)
	sc := Scenario{
		Servers: n, Lambda: lambda, Policy: policy, Engine: EngineServers,
		Horizon: math.Max(float64(b.N)/rate, 1e-6), Warmup: NoWarmup,
		InitOccupancy: []float64{lambda}, Workers: 1,
	}
	cpu0 := timeFromFirstEvent(b, &sc)
	res, err := Run(context.Background(), sc)
	if err != nil {
		b.Fatal(err)
	}
	sec := b.Elapsed().Seconds()
	q1 := res.Occupancy[0]
	arrivals := float64(res.Events) * lambda / (lambda + q1)
	reportRates(b, res.Events, sc, *cpu0)
	// What a full scan reads per second for this throughput; with probing
	// (dense graphs, see probeIdle) far fewer neighbours are actually read.
	b.ReportMetric(arrivals*(meanDeg+1)/sec, "scan-equivalent/s")
	b.ReportMetric(meanDeg, "mean-degree")
}

// N = 10^5 on G(N, p) with mean degree sqrt(N) ln N (about 3640): the regime
// where neighbour JSQ is asymptotically optimal (Mukherjee, Borst, van
// Leeuwaarden and Whiting).
func BenchmarkNeighbourJSQErdosRenyiN1e5(b *testing.B) {
	const n = 100000
	g := benchGraph(b, "er1e5", func(r *rand.Rand) (*graph.Graph, error) {
		return graph.ErdosRenyiMeanDegree(n, math.Sqrt(n)*math.Log(n), r)
	})
	benchNeighbour(b, g)
}

// The same with probing turned off: every arrival scans its whole
// neighbourhood, so scan-equivalent/s is the number of neighbours inspected.
func BenchmarkNeighbourJSQScanErdosRenyiN1e5(b *testing.B) {
	const n = 100000
	g := benchGraph(b, "er1e5", func(r *rand.Rand) (*graph.Graph, error) {
		return graph.ErdosRenyiMeanDegree(n, math.Sqrt(n)*math.Log(n), r)
	})
	benchNeighbourPolicy(b, g, &neighbourJSQ{g: g, scanOnly: true})
}

// The Halfin-Whitt regime, lambda = 1 - 1/sqrt(N), on G(N, p) of mean degree
// N^(3/4) (notebook 02, section 2): about sqrt(N) servers are idle, so an
// idle neighbour is rare among the neighbours (probes fail) and a stored
// graph's arrival scans its whole neighbourhood, while on the implicit graph
// dispatch draws among the idle servers and tests pairs by hash (about
// N^(1/4) tests). N = 3·10^4 on both (the stored graph: 270 MB), 10^5 and
// 10^6 on the implicit one only (the stored one would need 2.2 and 126 GB).
func benchHalfinWhitt(b *testing.B, n int, implicit bool) {
	d := math.Pow(float64(n), 0.75)
	var g *graph.Graph
	if implicit {
		g = benchGraph(b, fmt.Sprintf("erhw-implicit-%d", n), func(r *rand.Rand) (*graph.Graph, error) {
			return graph.ErdosRenyiImplicit(n, d/float64(n-1), r.Uint64())
		})
	} else {
		g = benchGraph(b, fmt.Sprintf("erhw-%d", n), func(r *rand.Rand) (*graph.Graph, error) {
			return graph.ErdosRenyiMeanDegree(n, d, r)
		})
	}
	benchNeighbourAt(b, g, NeighbourJSQ(g), 1-1/math.Sqrt(float64(n)))
}

func BenchmarkNeighbourJSQHalfinWhittStoredN3e4(b *testing.B)   { benchHalfinWhitt(b, 30000, false) }
func BenchmarkNeighbourJSQHalfinWhittImplicitN3e4(b *testing.B) { benchHalfinWhitt(b, 30000, true) }
func BenchmarkNeighbourJSQHalfinWhittImplicitN1e5(b *testing.B) { benchHalfinWhitt(b, 100000, true) }
func BenchmarkNeighbourJSQHalfinWhittImplicitN1e6(b *testing.B) { benchHalfinWhitt(b, 1000000, true) }

func BenchmarkNeighbourJSQRegular10N1e5(b *testing.B) {
	g := benchGraph(b, "reg10", func(r *rand.Rand) (*graph.Graph, error) { return graph.RandomRegular(100000, 10, r) })
	benchNeighbour(b, g)
}
