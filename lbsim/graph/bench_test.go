package graph

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkErdosRenyiLarge generates G(N, p) at N = 10^5 with mean degree
// sqrt(N) ln N (about 1.8e8 directed entries, a 720 MB CSR).
func BenchmarkErdosRenyiLarge(b *testing.B) {
	const n = 100_000
	d := math.Sqrt(n) * math.Log(n)
	rng := rand.New(rand.NewPCG(1, 2))
	var g *Graph
	var ms0, ms1 runtime.MemStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g = nil
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		var err error
		g, err = ErdosRenyiMeanDegree(n, d, rng)
		if err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&ms1)
	}
	b.StopTimer()
	entries := float64(2 * g.Edges())
	b.ReportMetric(float64(g.Edges())*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/entries, "allocB/entry")
	b.ReportMetric(float64(g.Bytes())/entries, "csrB/entry")
	b.ReportMetric(entries, "entries")
}

// BenchmarkRandomRegularLarge generates a random 10-regular graph on 10^6
// vertices (target: well under 5 s).
func BenchmarkRandomRegularLarge(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < b.N; i++ {
		g, err := RandomRegular(1_000_000, 10, rng)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.Bytes())/float64(2*g.Edges()), "csrB/entry")
	}
}
