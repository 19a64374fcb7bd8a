package trickle

import (
	"context"
	"strconv"
	"syscall"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/mc"
)

// cpuSeconds is the CPU time (user and system) of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// benchRun runs one replication of c per b.N chunk and reports node events
// (interval starts and transmission decisions) per second of wall time and
// per second of CPU time (the second is the figure to trust on a loaded
// machine, where other processes take the core part of the time).
func benchRun(b *testing.B, c Config) {
	c.Replications, c.Workers = 1, 1
	var events int64
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for r := 0; r < b.N; r++ {
		c.Seed = uint64(r)
		res, err := Simulate(context.Background(), c)
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	cpu := cpuSeconds() - cpu0
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	if cpu > 0 {
		b.ReportMetric(float64(events)/cpu, "events/cpu-s")
	}
}

// BenchmarkSingleCell: the performance target, a single cell of 10^4 nodes
// (2*10^6 node events per replication).
func BenchmarkSingleCell(b *testing.B) {
	for _, tc := range []struct {
		name string
		c    Config
	}{
		{"n=1e4/eta=0/k=1", Config{Nodes: 10_000, K: 1, Horizon: 500}},
		{"n=1e4/eta=0.5/k=2", Config{Nodes: 10_000, K: 2, Eta: 0.5, Horizon: 500}},
		{"n=1e4/sync/k=1", Config{Nodes: 10_000, K: 1, Sync: true, Horizon: 500}},
	} {
		b.Run(tc.name, func(b *testing.B) { benchRun(b, tc.c) })
	}
}

var horizonMulti = 5.0

// BenchmarkMultiCell: random geometric hearing graphs on the unit torus,
// mean degree about 30.
func BenchmarkMultiCell(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		g, _, err := graph.RandomGeometric(n, RadiusForDegree(n, 30), mc.Stream(1, 0))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("geometric/n="+strconv.Itoa(n), func(b *testing.B) {
			benchRun(b, Config{Nodes: n, K: 1, Eta: 0.5, Graph: g, Horizon: horizonMulti})
		})
	}
}
