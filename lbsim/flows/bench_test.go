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
// 0.8, m = 10 packets per flow at rate r = 1 (7200 flows in progress).
func benchFlows(b *testing.B, p PolicyOptions) { benchFlowsAt(b, 10000, 1, p) }

// benchFlowsAt runs one replication on one goroutine at N = servers, lambda =
// 0.8, m = 10 packets per flow at rate r (0.72 N / r flows in progress): a
// warm-up of 50 time units (untimed: the flows in progress start at their
// stationary law, the queues fill in), then about b.N packet events
// (arrivals and departures, each recorded with its delay), and reports
// packet events per second.
func benchFlowsAt(b *testing.B, servers int, r float64, p PolicyOptions) {
	o := Options{Servers: servers, Lambda: 0.8, PacketsPerFlow: 10, PacketRate: r, Policy: p, Warmup: 50}
	o.Horizon = o.Warmup + 1.01*float64(b.N)/(2*o.Lambda*float64(servers)) + 1
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
	if e.t+span > o.Horizon {
		b.Fatalf("b.N = %d: past the horizon", b.N)
	}
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

// At data-centre scale: N = 10^5 servers, r = 0.072 so that 10^6 flows are
// in progress (lambda N (m-1)/(m r) = 8*10^4 * 0.9 / 0.072).
const scaleServers, scaleRate = 100000, 0.072

func BenchmarkStaticN1e5F1e6(b *testing.B) {
	benchFlowsAt(b, scaleServers, scaleRate, PolicyOptions{Policy: Static})
}
func BenchmarkJSQ2N1e5F1e6(b *testing.B) {
	benchFlowsAt(b, scaleServers, scaleRate, PolicyOptions{Policy: JSQd, D: 2})
}
func BenchmarkJSQN1e5F1e6(b *testing.B) {
	benchFlowsAt(b, scaleServers, scaleRate, PolicyOptions{Policy: JSQ})
}
func BenchmarkStickyN1e5F1e6(b *testing.B) {
	benchFlowsAt(b, scaleServers, scaleRate, PolicyOptions{Policy: Sticky, D: scaleServers, Threshold: 5})
}
func BenchmarkStickyD2N1e5F1e6(b *testing.B) {
	benchFlowsAt(b, scaleServers, scaleRate, PolicyOptions{Policy: Sticky, D: 2, Threshold: 5})
}
func BenchmarkBinsN1e5F1e6(b *testing.B) {
	benchFlowsAt(b, scaleServers, scaleRate, PolicyOptions{Policy: Bins, D: scaleServers, Threshold: 5, Bins: 4 * scaleServers})
}
