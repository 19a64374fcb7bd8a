package lbsim

import (
	"testing"
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
