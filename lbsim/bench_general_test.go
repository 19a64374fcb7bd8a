package lbsim

import (
	"context"
	"math"
	"testing"

	"github.com/lbsim/notebooks/lbsim/service"
)

// benchGeneral runs one replication of the general engine at N = 10^5, JSQ(2),
// lambda = 0.9, long enough for about b.N events, started at the JSQ(2)
// fixed point (the insensitive one under PS and LIFO-PR; close to the FIFO
// one), and reports events per second on one core.
func benchGeneral(b *testing.B, law string, disc Discipline) {
	const n, lambda = 100000, 0.9
	dist, err := service.Parse(law)
	if err != nil {
		b.Fatal(err)
	}
	var init []float64
	for i := 1; ; i++ {
		q := math.Pow(lambda, math.Pow(2, float64(i))-1)
		if q*n < 0.5 {
			break
		}
		init = append(init, q)
	}
	rate := n * (lambda + init[0]) // events per unit time
	sc := Scenario{
		Servers: n, Lambda: lambda, Policy: JSQd(2), Service: dist, Discipline: disc,
		Horizon: math.Max(float64(b.N)/rate, 1e-6), Warmup: NoWarmup,
		InitOccupancy: init, Workers: 1,
	}
	b.ResetTimer()
	res, err := Run(context.Background(), sc)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(0, "ns/op")
}

func BenchmarkGeneralFIFODetN1e5(b *testing.B)      { benchGeneral(b, "det", FIFO) }
func BenchmarkGeneralFIFOParetoN1e5(b *testing.B)   { benchGeneral(b, "pareto:alpha=3", FIFO) }
func BenchmarkGeneralPSDetN1e5(b *testing.B)        { benchGeneral(b, "det", PS) }
func BenchmarkGeneralPSParetoN1e5(b *testing.B)     { benchGeneral(b, "pareto:alpha=3", PS) }
func BenchmarkGeneralLIFOExpN1e5(b *testing.B)      { benchGeneral(b, "exp", LIFOPR) }
func BenchmarkGeneralLIFOHyperexpN1e5(b *testing.B) { benchGeneral(b, "hyperexp:scv=4", LIFOPR) }
