package flows

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// benchFlows runs one replication on one goroutine at N = 10^4, lambda =
// 0.8, m = 10 packets per flow at rate r = 1: a warm-up of 50 time units
// (untimed: the flows in progress start at their stationary law, the
// queues fill in), then about b.N packet events (arrivals and departures,
// each recorded with its delay), and reports packet events per second.
func benchFlows(b *testing.B, p PolicyOptions) {
	o := Options{Servers: 10000, Lambda: 0.8, PacketsPerFlow: 10, PacketRate: 1, Policy: p, Horizon: 2000, Warmup: 50}
	if err := o.Check(); err != nil {
		b.Fatal(err)
	}
	e := newEngine(&o, mc.Source(1, 0))
	e.init()
	ctx := context.Background()
	if err := e.run(ctx, o.Warmup, nil); err != nil {
		b.Fatal(err)
	}
	e.reset()
	e.delays = make([]float64, 0, b.N/2+b.N/16+1024) // as replicate allocates them
	events := e.arrivals + e.departures
	span := float64(b.N) / (2 * o.Lambda * float64(o.Servers))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU(b)
	b.ResetTimer()
	start := time.Now()
	if err := e.run(ctx, e.t+span, nil); err != nil {
		b.Fatal(err)
	}
	secs := time.Since(start).Seconds()
	cpu := threadCPU(b) - cpu0
	n := float64(e.arrivals + e.departures - events)
	b.ReportMetric(n/secs, "events/s")
	b.ReportMetric(n/cpu, "events/cpu-s")
	b.ReportMetric(float64(len(e.flows)), "flows-in-progress")
	b.ReportMetric(0, "ns/op")
}

// threadCPU returns the CPU time of the calling OS thread (user and
// system), which is what one core spent on the run whatever else the
// machine runs: on a shared machine events/cpu-s is the speed of one core,
// events/s the speed the run got.
func threadCPU(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func BenchmarkStaticN1e4(b *testing.B) { benchFlows(b, PolicyOptions{Policy: Static}) }
func BenchmarkJSQ2N1e4(b *testing.B)   { benchFlows(b, PolicyOptions{Policy: JSQd, D: 2}) }
func BenchmarkJSQN1e4(b *testing.B)    { benchFlows(b, PolicyOptions{Policy: JSQ}) }
func BenchmarkStickyN1e4(b *testing.B) {
	benchFlows(b, PolicyOptions{Policy: Sticky, D: 10000, Threshold: 5})
}
func BenchmarkBinsN1e4(b *testing.B) {
	benchFlows(b, PolicyOptions{Policy: Bins, D: 10000, Threshold: 5, Bins: 40000})
}
