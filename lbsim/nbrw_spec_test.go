package lbsim_test

import (
	"context"
	"encoding/json"
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
	base := func() lbsim.Spec {
		return lbsim.Spec{Servers: 16, Lambda: 0.5, Policy: "nbrw-jsqd", Horizon: 20}
	}
	for _, f := range []func(*lbsim.Spec){
		func(sp *lbsim.Spec) { sp.Topology = "complete" },
		func(sp *lbsim.Spec) { sp.Topology = "er"; sp.Degree = 3.5 },
		func(sp *lbsim.Spec) { sp.Topology = "regular"; sp.Degree = 3; sp.Walk = "srw" },
		func(sp *lbsim.Spec) { sp.Topology = "ring"; sp.Degree = 4; sp.Steps = 3 },
		func(sp *lbsim.Spec) { sp.Topology = "torus"; sp.D = 3 },
		func(sp *lbsim.Spec) { sp.Topology = "geometric"; sp.Radius = 0.5 },
		func(sp *lbsim.Spec) { sp.Topology = "split"; sp.Split = 0.25 },
		func(sp *lbsim.Spec) { sp.Topology = "pendant"; sp.Clique = 4 },
	} {
		sp := base()
		f(&sp)
		res, err := lbsim.RunSpec(context.Background(), sp, nil)
		if err != nil {
			t.Errorf("%+v: %v", sp, err)
			continue
		}
		got := res.Spec
		if (sp.D == 0 && got.D != 2) || (sp.Walk == "" && got.Walk != "nbrw") || (sp.Steps == 0 && got.Steps != 1) {
			t.Errorf("%+v: defaults d = %d, walk = %q, steps = %d; want 2, nbrw, 1", sp, got.D, got.Walk, got.Steps)
		}
		data, _ := json.Marshal(got)
		again, err := lbsim.ParseSpec(data)
		if err != nil || !reflect.DeepEqual(again, *got) {
			t.Errorf("%s: round trip %v: %+v vs %+v", data, err, again, *got)
		}
		if (sp.Topology == "er" || sp.Topology == "regular" || sp.Topology == "geometric") != (got.GraphSeed != nil) {
			t.Errorf("%s: graph_seed default %v", data, got.GraphSeed)
		}
		if !strings.HasPrefix(res.Policy, "nbrw-jsqd(d=") {
			t.Errorf("%s: policy name %q", data, res.Policy)
		}
	}
	bad := []struct {
		f    func(*lbsim.Spec)
		want string
	}{
		{func(sp *lbsim.Spec) {}, "topology: required for nbrw-jsqd"},
		{func(sp *lbsim.Spec) { sp.Topology = "torus"; sp.Walk = "levy" }, `walk = "levy": must be nbrw (non-backtracking) or srw (simple random walk)`},
		{func(sp *lbsim.Spec) { sp.Topology = "torus"; sp.Steps = -1 }, "steps = -1: must be between 1 and 1048576"},
		{func(sp *lbsim.Spec) { sp.Topology = "torus"; sp.Steps = 1 << 21 }, "steps = 2097152: must be between 1 and 1048576"},
		{func(sp *lbsim.Spec) { sp.Topology = "torus"; sp.D = 17 }, "d = 17: must be between 1 and servers (16)"},
		{func(sp *lbsim.Spec) { sp.Topology = "torus"; sp.D = -1 }, "d = -1: must be between 1 and servers (16)"},
		{func(sp *lbsim.Spec) { sp.Topology = "torus"; sp.Sampling = "with" }, `sampling = "with": policy nbrw-jsqd takes no sampling`},
		{func(sp *lbsim.Spec) { sp.Topology = "ring"; sp.Degree = 3 }, "degree = 3: must be an even integer"},
		{func(sp *lbsim.Spec) { sp.Topology = "torus"; sp.Servers = 1; sp.D = 1 }, "servers = 1: policy nbrw-jsqd needs at least 2 servers"},
		{func(sp *lbsim.Spec) { sp.Policy = "jsqd"; sp.Walk = "srw" }, `walk = "srw": policy jsqd takes no walk (only nbrw-jsqd does)`},
		{func(sp *lbsim.Spec) { sp.Policy = "neighbour-jsqd"; sp.Topology = "torus"; sp.Steps = 2 }, "steps = 2: policy neighbour-jsqd takes no steps (only nbrw-jsqd does)"},
	}
	for _, c := range bad {
		sp := base()
		c.f(&sp)
		_, err := sp.Scenario()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", sp, err, c.want)
		}
	}
}

// A spec-built nbrw-jsqd is a StatefulRouter whose tasks have no origin, so
// lbsim exact solves it with the walkers in the state: on the implicit
// complete graph K4 with d = 1 it must give the same solution as the policy
// built directly (same chain, so agreement to the solver's tolerance).
func TestWalkSpecExact(t *testing.T) {
	sp := lbsim.Spec{Servers: 4, Lambda: 0.5, Policy: "nbrw-jsqd", Topology: "complete", D: 1}
	sc, err := sp.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := sc.Policy.(lbsim.OriginUser); !ok || o.UsesOrigin() {
		t.Fatalf("policy %s: want an OriginUser that uses no origin", sc.Policy.Name())
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
	sp := lbsim.Spec{Servers: 500, Lambda: 0.9, Policy: "nbrw-jsqd", Topology: "regular", Degree: 4, Horizon: 50, Replications: 3}
	var results []*lbsim.Result
	for _, workers := range []int{1, 3} {
		sc, err := sp.Scenario()
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
