package lbsim

import (
	"context"
	"math"
	"testing"
)

// benchScenario runs one replication long enough for about b.N events, started
// at the JSQ(d) fixed point so it measures the stationary regime, and reports
// events per second (one core: a single replication runs on one goroutine).
func benchScenario(b *testing.B, n int, p Policy, engine Engine, d int) {
	const lambda = 0.9
	var init []float64
	for i := 1; ; i++ {
		q := math.Pow(lambda, (math.Pow(float64(d), float64(i))-1)/float64(d-1))
		if d == 1 {
			q = math.Pow(lambda, float64(i))
		}
		if q*float64(n) < 0.5 || i > 60 {
			break
		}
		init = append(init, q)
	}
	rate := float64(n) * (lambda + init[0]) // events per unit time
	sc := Scenario{
		Servers: n, Lambda: lambda, Policy: p, Engine: engine,
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

func BenchmarkJSQd2N1e3(b *testing.B) { benchScenario(b, 1e3, JSQd(2), EngineServers, 2) }
func BenchmarkJSQd2N1e5(b *testing.B) { benchScenario(b, 1e5, JSQd(2), EngineServers, 2) }
func BenchmarkJSQd2N1e6(b *testing.B) { benchScenario(b, 1e6, JSQd(2), EngineServers, 2) }
func BenchmarkJSQN1e5(b *testing.B)   { benchScenario(b, 1e5, JSQ(), EngineServers, 1000) }

func BenchmarkOccupancyJSQd2N1e9(b *testing.B) {
	benchScenario(b, 1e9, JSQd(2), EngineOccupancy, 2)
}
