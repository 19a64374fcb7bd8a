package lbsim

import (
	"testing"
)

// The per-server engine needs 12 bytes per server (length, sorted order and
// its inverse), plus 4 for JSQ(d) with d > 16 (a scratch permutation): at most
// 16 bytes per server plus O(levels). Measured as all bytes allocated by a short
// run at N = 10^6, so anything per-server that creeps in shows.
func TestMemoryPerServer(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of megabytes")
	}
	const n = 1000000
	for _, c := range []struct {
		p     Policy
		limit float64
	}{{JSQd(2), 12.5}, {JSQ(), 12.5}, {JSQd(40), 16.5}} {
		perServer := allocated(t, Scenario{Servers: n, Lambda: 0.9, Policy: c.p, Engine: EngineServers,
			Horizon: 0.5, Warmup: NoWarmup}) / n
		if perServer > c.limit {
			t.Errorf("%s: %.2f bytes allocated per server, want <= %.1f", c.p.Name(), perServer, c.limit)
		}
		t.Logf("%s: %.2f bytes per server", c.p.Name(), perServer)
	}
}
