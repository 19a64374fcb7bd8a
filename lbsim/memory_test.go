package lbsim

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/model"
)

// The per-server engine needs 12 bytes per server (length, sorted order and
// its inverse), plus 4 for JSQ(d) with d > 16 (a scratch permutation): at most
// 16 bytes per server plus O(levels); JSQ(2) runs the uniformized chain's
// per-server loop (a length per server), on either engine. Measured as all
// bytes allocated by a short run at N = 10^6, so anything per-server that
// creeps in shows.
func TestMemoryPerServer(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of megabytes")
	}
	const n = 1000000
	for _, c := range []struct {
		p      Policy
		engine Engine
		limit  float64
	}{
		{JSQd(2), EngineServers, 12.5}, {JSQ(), EngineServers, 12.5}, {JSQd(40), EngineServers, 16.5},
		{JSQd(2), EngineUniformized, bytesPerServerUniform + 0.5},
	} {
		perServer := allocated(t, Scenario{Servers: n, Lambda: 0.9, Policy: c.p, Engine: c.engine,
			Horizon: 0.5, Warmup: NoWarmup}) / n
		if perServer > c.limit {
			t.Errorf("%s on %s: %.2f bytes allocated per server, want <= %.1f", c.p.Name(), c.engine, perServer, c.limit)
		}
		t.Logf("%s on %s: %.2f bytes per server", c.p.Name(), c.engine, perServer)
	}
}

// The estimate that Run checks against the memory limit bounds what a run
// allocates (all bytes, measured as in TestMemoryPerServer) and is not far
// above it, on each engine that allocates per server.
func TestMemoryEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of megabytes")
	}
	const n = 200000
	lengths := make([]int, n)
	for j := range lengths {
		lengths[j] = 8
	}
	for _, sc := range []Scenario{
		{Servers: n, Lambda: 0.9, Policy: JSQd(2), Engine: EngineServers, Horizon: 0.5, Warmup: NoWarmup, Workers: 1},
		{Servers: n, Lambda: 0.9, Policy: JSQdSampling(3, WithReplacement), Engine: EngineServers, Horizon: 0.5,
			Warmup: NoWarmup, Workers: 1},
		{Servers: n, Lambda: 0.9, Policy: JSQd(2), Engine: EngineUniformized, Horizon: 0.5, Warmup: NoWarmup, Workers: 1},
		{Servers: n, Lambda: 0.9, Policy: JSQd(2), Engine: EngineGeneral, Horizon: 0.5, Warmup: NoWarmup, Workers: 1},
		{Servers: n, Lambda: 0.9, Policy: JSQd(2), Engine: EngineGeneral, Horizon: 0.5, Warmup: NoWarmup, Workers: 1,
			InitLengths: lengths},
	} {
		r, err := sc.resolve()
		if err != nil {
			t.Fatal(err)
		}
		estimate, key := memoryEstimate(&r, choosePlan(&r), 1)
		used := allocated(t, sc)
		t.Logf("%s, %s, %d initial lengths: allocated %.0f bytes, estimate %.0f (%s)", sc.Engine, sc.Policy.Name(), len(sc.InitLengths), used, estimate, key)
		if used > estimate || estimate > 4*used {
			t.Errorf("%s: allocated %.3g bytes, estimate %.3g: want allocated <= estimate <= 4 allocated", sc.Engine, used, estimate)
		}
	}
}

// Run refuses a run above the memory or event limit before allocating,
// naming the key.
func TestRunLimits(t *testing.T) {
	model.SetMemoryLimit(1 << 20)
	defer model.SetMemoryLimit(0)
	_, err := Run(context.Background(), Scenario{Servers: 1 << 20, Lambda: 0.5, Policy: JSQ(), Engine: EngineServers, Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "servers = 1048576: needs about 16.8 MB of memory, above the limit of 1.05 MB") {
		t.Errorf("Run: %v", err)
	}
	model.SetMemoryLimit(0)
	model.SetEventLimit(1e6)
	defer model.SetEventLimit(0)
	_, err = Run(context.Background(), Scenario{Servers: 1000, Lambda: 0.5, Policy: JSQ(), Horizon: 1e4})
	if err == nil || !strings.Contains(err.Error(), "horizon = 10000 (servers = 1000, replications = 1): expects about 1e+07 events") {
		t.Errorf("Run: %v", err)
	}
}

// allocated runs sc and returns all the bytes it allocated.
func allocated(t *testing.T, sc Scenario) float64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Run(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc - before.TotalAlloc)
}
