package lbsim

import (
	"context"
	"math"
	"syscall"
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
	benchFrom(b, n, lambda, p, engine, init)
}

// benchFrom runs one replication of n servers at load lambda from the
// occupancy init, long enough for about b.N events, and reports its rates.
func benchFrom(b *testing.B, n int, lambda float64, p Policy, engine Engine, init []float64) {
	rate := float64(n) * (lambda + init[0]) // events per unit time
	sc := Scenario{
		Servers: n, Lambda: lambda, Policy: p, Engine: engine,
		Horizon: math.Max(float64(b.N)/rate, 1e-6), Warmup: NoWarmup,
		InitOccupancy: init, Workers: 1,
	}
	cpu0 := timeFromFirstEvent(b, &sc)
	res, err := Run(context.Background(), sc)
	if err != nil {
		b.Fatal(err)
	}
	reportRates(b, res.Events, sc, *cpu0)
}

// reportRates reports events per second and server-time per second: the
// simulated time times N per second of wall time, the throughput that
// compares with a uniformized simulator (scripts/peers), whose steps include
// the departures from idle servers that the exact chain does not simulate.
// server-time/cpu-s is the same per second of CPU time of the process since
// cpu0 (cpuSeconds before the run), the figure to compare on a shared machine,
// where wall time includes the time other processes held the core.
func reportRates(b *testing.B, events int64, sc Scenario, cpu0 float64) {
	sec := b.Elapsed().Seconds()
	simulated := (sc.Horizon - max(sc.Warmup, 0)) * float64(sc.Servers)
	b.ReportMetric(float64(events)/sec, "events/s")
	b.ReportMetric(simulated/sec, "server-time/s")
	b.ReportMetric(simulated/(cpuSeconds()-cpu0), "server-time/cpu-s")
	b.ReportMetric(0, "ns/op")
}

// timeFromFirstEvent makes the benchmark's clocks start at the first event of
// sc's (single) replication, through its progress callback, so that the
// set-up (the initial state of N servers) is not timed, as the peers' is not
// (scripts/peers). It returns where the CPU time at that moment will be.
func timeFromFirstEvent(b *testing.B, sc *Scenario) *float64 {
	cpu0 := new(float64)
	started := false
	sc.Progress = func(p Progress) {
		if !started {
			started = true
			b.ResetTimer()
			*cpu0 = cpuSeconds()
		}
	}
	b.ResetTimer()
	*cpu0 = cpuSeconds()
	return cpu0
}

// cpuSeconds returns the user and system CPU time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func BenchmarkJSQd2N1e3(b *testing.B) { benchScenario(b, 1e3, JSQd(2), EngineServers, 2) }
func BenchmarkJSQd2N1e5(b *testing.B) { benchScenario(b, 1e5, JSQd(2), EngineServers, 2) }
func BenchmarkJSQd2N1e6(b *testing.B) { benchScenario(b, 1e6, JSQd(2), EngineServers, 2) }
func BenchmarkJSQN1e5(b *testing.B)   { benchScenario(b, 1e5, JSQ(), EngineServers, 1000) }

func BenchmarkOccupancyJSQd2N1e9(b *testing.B) {
	benchScenario(b, 1e9, JSQd(2), EngineOccupancy, 2)
}
