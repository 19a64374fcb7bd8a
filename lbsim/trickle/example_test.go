package trickle_test

import (
	"context"
	"fmt"

	"github.com/lbsim/notebooks/lbsim/trickle"
)

// A synchronized cell of 50 nodes with redundancy constant 2 sends exactly
// two messages per interval; without synchronization, and without a
// listen-only period, it sends more, close to the derived count for k = 1.
func ExampleSimulate() {
	sync, _ := trickle.Simulate(context.Background(), trickle.Config{Nodes: 50, K: 2, Sync: true, Horizon: 100, Warmup: 10})
	fmt.Printf("synchronized, k = 2: %.0f per interval\n", sync.MessagesPerInterval)
	one, _ := trickle.Simulate(context.Background(), trickle.Config{Nodes: 1000, K: 1, Horizon: 200, Replications: 4, Seed: 1})
	fmt.Printf("unsynchronized, k = 1, n = 1000: %.1f per interval (derived %.1f)\n", one.MessagesPerInterval,
		trickle.UnsyncK1Messages(1000, 0))
	// Output:
	// synchronized, k = 2: 2 per interval
	// unsynchronized, k = 1, n = 1000: 25.1 per interval (derived 25.2)
}
