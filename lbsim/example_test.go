package lbsim_test

import (
	"context"
	"fmt"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/graph"
)

// Run simulates a scenario: here JSQ(2) on 1000 servers at load 0.9, which
// the per-server engine runs (the same seed gives the same numbers).
func ExampleRun() {
	res, err := lbsim.Run(context.Background(), lbsim.Scenario{
		Servers: 1000, Lambda: 0.9, Policy: lbsim.JSQd(2), Engine: lbsim.EngineServers,
		Horizon: 60, Warmup: 20, Replications: 2, Seed: 1, Workers: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s on the %s engine: %d events\n", res.Policy, res.Engine, res.Events)
	fmt.Printf("q_1 = %.3f, q_2 = %.3f, mean sojourn %.3f\n", res.Occupancy[0], res.Occupancy[1], res.MeanSojourn)
	// Output:
	// jsqd(d=2,without) on the servers engine: 210825 events
	// q_1 = 0.892, q_2 = 0.709, mean sojourn 2.524
}

// ScenarioFromKeys builds a scenario from the keys of a scenario file; with
// engine auto, JSQ(2) runs on the occupancy-level engine, whose cost per
// event does not depend on N.
func ExampleScenarioFromKeys() {
	sc, err := lbsim.ScenarioFromKeys(map[string]any{
		"servers": 10000, "lambda": 0.9, "policy": "jsqd", "d": 2,
		"horizon": 200, "warmup": 100, "replications": 1, "seed": 3,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := lbsim.Run(context.Background(), sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s, N = %d, %s engine: q_1 = %.4f, q_2 = %.4f (fixed point 0.9, 0.729)\n",
		res.Policy, res.Scenario.Servers, res.Engine, res.Occupancy[0], res.Occupancy[1])
	// Output:
	// jsqd(d=2,without), N = 10000, occupancy engine: q_1 = 0.9006, q_2 = 0.7301 (fixed point 0.9, 0.729)
}

// A graph policy: two local choices (NeighbourJSQd with d = 2) on a ring
// where each server sees its two neighbours on either side.
func ExampleNeighbourJSQd() {
	g, err := graph.Ring(1000, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := lbsim.Run(context.Background(), lbsim.Scenario{
		Servers: 1000, Lambda: 0.8, Policy: lbsim.NeighbourJSQd(g, 2),
		Horizon: 60, Warmup: 20, Replications: 2, Seed: 5, Workers: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s on the %s engine: mean tasks per server %.3f\n", res.Policy, res.Engine, res.MeanTasksPerServer)
	// Output:
	// neighbour-jsqd(d=2) on the servers engine: mean tasks per server 1.685
}

// NeedsOf reads what a policy declares to the engines: JSQ needs the
// servers sorted by length, a graph policy the origin of each task.
func ExampleNeedsOf() {
	g, _ := graph.Ring(10, 1)
	for _, p := range []lbsim.Policy{lbsim.JSQ(), lbsim.NeighbourJSQd(g, 2), lbsim.JSWd(2), lbsim.CountDraws(lbsim.JSQ())} {
		u := lbsim.NeedsOf(p)
		fmt.Printf("%s: origin %v, shortest order %v, workload %v\n", p.Name(), u.Origin, u.ShortestOrder, u.Workload)
	}
	// Output:
	// jsq: origin false, shortest order true, workload false
	// neighbour-jsqd(d=2): origin true, shortest order false, workload false
	// jswd(d=2): origin false, shortest order false, workload true
	// jsq: origin false, shortest order true, workload false
}
