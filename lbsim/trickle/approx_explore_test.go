package trickle

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// TestExploreApprox is an exploration tool, not a check: with
// LBSIM_TRICKLE_EXPLORE="topologies;degrees;etas;ks[;1 for sync]" it prints
// the simulated count (n = 10^4, one replication of 35 intervals) against
// Approximate over the grid (the tables of the report of issue 32).
func TestExploreApprox(t *testing.T) {
	spec := os.Getenv("LBSIM_TRICKLE_EXPLORE")
	if spec == "" {
		t.Skip("LBSIM_TRICKLE_EXPLORE=topos;degrees;etas;ks;sync")
	}
	parts := strings.Split(spec, ";")
	floats := func(s string) []float64 {
		var out []float64
		for _, f := range strings.Split(s, ",") {
			v, _ := strconv.ParseFloat(f, 64)
			out = append(out, v)
		}
		return out
	}
	sync := len(parts) > 4 && parts[4] == "1"
	for _, topo := range strings.Split(parts[0], ",") {
		for _, d := range floats(parts[1]) {
			g := approxGraph(t, approxCase{topo: topo, d: d, seed: 1}, 10_000)
			deg := graph.Degrees(g)
			for _, eta := range floats(parts[2]) {
				for _, k := range floats(parts[3]) {
					c := Config{Nodes: g.N(), K: int(k), Eta: eta, Sync: sync, Graph: g, Horizon: 40, Warmup: 5, Replications: 1, Seed: 3}
					if g.IsComplete() {
						c.Graph = nil
					}
					sim, ap := simAndApprox(t, c)
					fmt.Printf("%-9s d=%5.1f eta=%.2f k=%d sim=%9.2f approx=%9.2f ratio=%.3f it=%d\n", topo, deg.Mean, eta, int(k),
						sim.MessagesPerInterval, ap.MessagesPerInterval, ap.MessagesPerInterval/sim.MessagesPerInterval, ap.Iterations)
				}
			}
		}
	}
}
