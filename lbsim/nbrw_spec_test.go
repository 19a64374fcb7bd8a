package lbsim_test

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
	"github.com/lbsim/notebooks/lbsim/graph"
)

// TestWalkSpec runs nbrw-jsqd from specs on every topology, checks the
// defaults (d = 2, walk = nbrw, steps = 1, graph_seed = seed for random
// topologies), the JSON round trip of the result's spec, and that every bad
// key gives an error naming it.
func TestWalkSpec(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{"servers": 16, "lambda": 0.5, "policy": "nbrw-jsqd", "horizon": 20}
	}
	for _, f := range []func(map[string]any){
		func(sp map[string]any) { sp["topology"] = "complete" },
		func(sp map[string]any) { sp["topology"] = "er"; sp["degree"] = 3.5 },
		func(sp map[string]any) { sp["topology"] = "regular"; sp["degree"] = 3; sp["walk"] = "srw" },
		func(sp map[string]any) { sp["topology"] = "ring"; sp["degree"] = 4; sp["steps"] = 3 },
		func(sp map[string]any) { sp["topology"] = "torus"; sp["d"] = 3 },
		func(sp map[string]any) { sp["topology"] = "geometric"; sp["radius"] = 0.5 },
		func(sp map[string]any) { sp["topology"] = "split"; sp["split"] = 0.25 },
		func(sp map[string]any) { sp["topology"] = "pendant"; sp["clique"] = 4 },
	} {
		sp := base()
		f(sp)
		res, err := runKeys(sp)
		if err != nil {
			t.Errorf("%v: %v", sp, err)
			continue
		}
		got, err := res.Scenario.CompletedValues()
		if err != nil {
			t.Errorf("%v: the result's scenario has no keys: %v", sp, err)
			continue
		}
		if (sp["d"] == nil && got.Int("d") != 2) || (sp["walk"] == nil && got.String("walk") != "nbrw") ||
			(sp["steps"] == nil && got.Int("steps") != 1) {
			t.Errorf("%v: defaults d = %d, walk = %q, steps = %d; want 2, nbrw, 1", sp, got.Int("d"), got.String("walk"), got.Int("steps"))
		}
		data, again, err := roundTrip(res.Scenario)
		if err != nil || string(again) != string(data) {
			t.Errorf("%s: round trip %v: %s", data, err, again)
		}
		topology := sp["topology"]
		random := topology == "er" || topology == "regular" || topology == "geometric"
		if random != got.Has("graph_seed") || (random && got.Uint("graph_seed") != got.Uint("seed")) {
			t.Errorf("%s: graph_seed default %v (seed %v)", data, got.Get("graph_seed"), got.Get("seed"))
		}
		if !strings.HasPrefix(res.Policy, "nbrw-jsqd(d=") {
			t.Errorf("%s: policy name %q", data, res.Policy)
		}
	}
	bad := []struct {
		f    func(map[string]any)
		want string
	}{
		{func(sp map[string]any) {}, "topology: required for nbrw-jsqd"},
		{func(sp map[string]any) { sp["topology"] = "torus"; sp["walk"] = "levy" }, `walk = "levy": must be one of nbrw, srw`},
		{func(sp map[string]any) { sp["topology"] = "torus"; sp["steps"] = -1 }, "steps = -1: must be between 1 and 1048576"},
		{func(sp map[string]any) { sp["topology"] = "torus"; sp["steps"] = 1 << 21 }, "steps = 2097152: must be between 1 and 1048576"},
		{func(sp map[string]any) { sp["topology"] = "torus"; sp["d"] = 17 }, "d = 17: must be between 1 and servers (16)"},
		{func(sp map[string]any) { sp["topology"] = "torus"; sp["d"] = -1 }, "d = -1: must be between 1 and servers (16)"},
		{func(sp map[string]any) { sp["topology"] = "torus"; sp["sampling"] = "with" }, `sampling = "with": policy nbrw-jsqd takes no sampling`},
		{func(sp map[string]any) { sp["topology"] = "ring"; sp["degree"] = 3 }, "degree = 3: must be an even integer"},
		{func(sp map[string]any) { sp["topology"] = "torus"; sp["servers"] = 1; sp["d"] = 1 }, "servers = 1: policy nbrw-jsqd needs at least 2 servers"},
		{func(sp map[string]any) { sp["policy"] = "jsqd"; sp["walk"] = "srw" }, `walk = "srw": policy jsqd takes no walk`},
		{func(sp map[string]any) { sp["policy"] = "neighbour-jsqd"; sp["topology"] = "torus"; sp["steps"] = 2 }, "steps = 2: policy neighbour-jsqd takes no steps"},
	}
	for _, c := range bad {
		sp := base()
		c.f(sp)
		_, err := lbsim.ScenarioFromKeys(sp)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", sp, err, c.want)
		}
	}
}

// A spec-built nbrw-jsqd is a StatefulRouter whose tasks have no origin, so
// lbsim exact solves it with the walkers in the state: on the implicit
// complete graph K4 with d = 1 it must give the same solution as the policy
// built directly (same chain, so agreement to the solver's tolerance).
func TestWalkSpecExact(t *testing.T) {
	sc, err := lbsim.ScenarioFromKeys(map[string]any{"servers": 4, "lambda": 0.5, "policy": "nbrw-jsqd", "topology": "complete", "d": 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sc.Policy.(lbsim.NeedsDeclarer); !ok || lbsim.NeedsOf(sc.Policy).Origin {
		t.Fatalf("policy %s: want a NeedsDeclarer that uses no origin", sc.Policy.Name())
	}
	sr, ok := sc.Policy.(lbsim.StatefulRouter)
	if !ok {
		t.Fatalf("policy %s is not a StatefulRouter", sc.Policy.Name())
	}
	if got := sr.PolicyStates(lbsim.System{N: 4}); got != 12 {
		t.Fatalf("PolicyStates = %d, want 12 directed edges of K4", got)
	}
	solve := func(p lbsim.ExactRouter) *exact.Solution {
		sol, err := exact.Solve(context.Background(), exact.Problem{System: lbsim.System{N: 4}, Lambda: 0.5, Policy: p, Cap: 10})
		if err != nil {
			t.Fatal(err)
		}
		return sol
	}
	a := solve(sr)
	b := solve(lbsim.NBRWJSQd(mustComplete(t, 4), 1).(lbsim.ExactRouter))
	for i := range a.Occupancy {
		if math.Abs(a.Occupancy[i]-b.Occupancy[i]) > 1e-8 {
			t.Errorf("q_%d: %v from the spec, %v from the policy", i, a.Occupancy[i], b.Occupancy[i])
		}
	}
}

func mustComplete(t *testing.T, n int) *graph.Graph {
	t.Helper()
	g, err := graph.Complete(n)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Same seed, same bytes: the walkers are per replication and drawn from the
// replication's stream, so the result does not depend on how many
// replications run at once.
func TestWalkDeterministicAcrossWorkers(t *testing.T) {
	sp := map[string]any{"servers": 500, "lambda": 0.9, "policy": "nbrw-jsqd", "topology": "regular", "degree": 4, "horizon": 50, "replications": 3}
	var results []*lbsim.Result
	for _, workers := range []int{1, 3} {
		sc, err := lbsim.ScenarioFromKeys(sp)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = workers
		res, err := lbsim.Run(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	if !reflect.DeepEqual(results[0].Occupancy, results[1].Occupancy) || !reflect.DeepEqual(results[0].PerReplication, results[1].PerReplication) {
		t.Errorf("results differ between 1 and 3 workers: %v vs %v", results[0].Occupancy, results[1].Occupancy)
	}
}
