package lbsim

import (
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// Random-walk sampling at N = 10^5 on a random 10-regular graph (the graph of
// BenchmarkNeighbourJSQRegular10N1e5), lambda = 0.9, one replication on one
// core started at the JSQ(2) fixed point: events per second, to set beside
// BenchmarkJSQd2N1e5 (i.i.d. sampling of 2 servers on the same engine).
func benchWalk(b *testing.B, walk Walk, d int) {
	g := benchGraph(b, "reg10", func(r *rand.Rand) (*graph.Graph, error) { return graph.RandomRegular(100000, 10, r) })
	benchScenario(b, 100000, WalkJSQd(g, d, walk, 1), EngineServers, d)
}

func BenchmarkNBRWJSQd2Regular10N1e5(b *testing.B) { benchWalk(b, NonBacktracking, 2) }
func BenchmarkSRWJSQd2Regular10N1e5(b *testing.B)  { benchWalk(b, SimpleWalk, 2) }
func BenchmarkNBRWJSQd3Regular10N1e5(b *testing.B) { benchWalk(b, NonBacktracking, 3) }
