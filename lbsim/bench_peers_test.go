package lbsim

import (
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// The scenarios of the README table "lbsim vs peers" (issue 21), one
// benchmark each; scripts/peers/run.sh runs them interleaved with the peers.
// All at lambda = 0.9 on one core, started at the fixed point; compare
// server-time/s with the peers' (simulated time times N per second).

// Two local choices (neighbour-jsqd, d = 2) on a ring (each server joined to
// its two nearest), a torus (4 neighbours) and a random 3-regular graph:
// Gast's simuTwoLocalChoice.
func benchLocal(b *testing.B, name string, mk func(r *rand.Rand) (*graph.Graph, error)) {
	g := benchGraph(b, name, mk)
	benchNeighbourPolicy(b, g, NeighbourJSQd(g, 2))
}

func ring(n int) func(*rand.Rand) (*graph.Graph, error) {
	return func(*rand.Rand) (*graph.Graph, error) { return graph.Ring(n, 1) }
}

func torus(side int) func(*rand.Rand) (*graph.Graph, error) {
	return func(*rand.Rand) (*graph.Graph, error) { return graph.Torus(side) }
}

func regular3(n int) func(*rand.Rand) (*graph.Graph, error) {
	return func(r *rand.Rand) (*graph.Graph, error) { return graph.RandomRegular(n, 3, r) }
}

func BenchmarkLocalJSQd2RingN1e4(b *testing.B)     { benchLocal(b, "ring1e4", ring(1e4)) }
func BenchmarkLocalJSQd2RingN1e5(b *testing.B)     { benchLocal(b, "ring1e5", ring(1e5)) }
func BenchmarkLocalJSQd2RingN1e6(b *testing.B)     { benchLocal(b, "ring1e6", ring(1e6)) }
func BenchmarkLocalJSQd2TorusN1e4(b *testing.B)    { benchLocal(b, "torus1e4", torus(100)) }
func BenchmarkLocalJSQd2TorusN1e6(b *testing.B)    { benchLocal(b, "torus1e6", torus(1000)) }
func BenchmarkLocalJSQd2Regular3N1e4(b *testing.B) { benchLocal(b, "reg3-1e4", regular3(1e4)) }
func BenchmarkLocalJSQd2Regular3N1e5(b *testing.B) { benchLocal(b, "reg3-1e5", regular3(1e5)) }

// JSQ(d) with and without replacement: the tight C loop (scripts/peers/jsq2.c)
// and, for d = 3 with replacement, the C++ simulator of rmf_tool. (JSQ(2)
// without replacement at N = 10^3 is BenchmarkJSQd2N1e3.)
func BenchmarkJSQd2WithN1e3(b *testing.B) {
	benchScenario(b, 1e3, JSQdSampling(2, WithReplacement), EngineServers, 2)
}

func BenchmarkJSQd2WithN1e5(b *testing.B) {
	benchScenario(b, 1e5, JSQdSampling(2, WithReplacement), EngineServers, 2)
}

func BenchmarkJSQd3WithN1e5(b *testing.B) {
	benchScenario(b, 1e5, JSQdSampling(3, WithReplacement), EngineServers, 3)
}

// The same three scenarios of the tight C loop on the uniformized engine
// (EngineUniformized), which makes the C loop's steps (null ones included).
// For JSQ(2) on at most 2^20 servers both engines run the same per-server
// loop of the uniformized chain (engine_uniformized_servers.go), so the two
// rows of each scenario measure one loop behind two entry points.
func BenchmarkUniformJSQd2WithN1e3(b *testing.B) {
	benchScenario(b, 1e3, JSQdSampling(2, WithReplacement), EngineUniformized, 2)
}

func BenchmarkUniformJSQd2WithN1e5(b *testing.B) {
	benchScenario(b, 1e5, JSQdSampling(2, WithReplacement), EngineUniformized, 2)
}

func BenchmarkUniformJSQd2WithoutN1e3(b *testing.B) {
	benchScenario(b, 1e3, JSQd(2), EngineUniformized, 2)
}
