package lbsim

import (
	"math"
	"testing"
)

// benchOccupancyHW runs the occupancy engine in the Halfin-Whitt regime,
// per-server load 1 - 1/sqrt(N) (beta = 1), one replication on one core,
// started near the diffusion's stationary means (N - sqrt(N) busy servers,
// 0.8 sqrt(N) with a waiting task), long enough for about b.N events.
func benchOccupancyHW(b *testing.B, n int, p Policy) {
	sn := math.Sqrt(float64(n))
	lambda := 1 - 1/sn
	init := []float64{1 - 1/sn, 0.8 / sn}
	benchFrom(b, n, lambda, p, EngineOccupancy, init)
}

// dSqrtLog is d(N) = sqrt(N) ln N, the boundary of the JSQ(d(N)) region
// whose diffusion limit is JSQ's.
func dSqrtLog(n int) int { return int(math.Ceil(math.Sqrt(float64(n)) * math.Log(float64(n)))) }

func BenchmarkHalfinWhittJSQN1e7(b *testing.B) { benchOccupancyHW(b, 1e7, JSQ()) }
func BenchmarkHalfinWhittJSQdSqrtLogN1e7(b *testing.B) {
	benchOccupancyHW(b, 1e7, JSQd(dSqrtLog(1e7)))
}
func BenchmarkHalfinWhittJIQN1e7(b *testing.B) { benchOccupancyHW(b, 1e7, JIQ()) }
