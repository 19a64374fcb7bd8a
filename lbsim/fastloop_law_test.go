package lbsim_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
	"github.com/lbsim/notebooks/lbsim/graph"
)

// The per-server engine's loop for JSQ(2) and JSQ(3) with replacement and for
// two local choices (loopArrivals) against exact stationary solutions, on the
// policies and graphs it newly covers: JSQ(3) with replacement on 3 and 4
// servers, two local choices on the implicit ring C_4 and C_5 (computed
// neighbours) and the implicit circulant graph on 5 vertices with shifts 1, 2
// (K_5). Tolerance as in TestSimulationMatchesExact: 4 confidence half-widths
// (8 replications, Student t) plus the truncation mass.
func TestFastLoopMatchesExact(t *testing.T) {
	c4, _ := graph.Ring(4, 1)
	c5, _ := graph.Ring(5, 1)
	k5, _ := graph.Circulant(5, []int{1, 2})
	cases := []struct {
		n      int
		lambda float64
		p      lbsim.Policy
	}{
		{3, 0.5, lbsim.JSQdSampling(3, lbsim.WithReplacement)},
		{3, 0.8, lbsim.JSQdSampling(3, lbsim.WithReplacement)},
		{4, 0.5, lbsim.JSQdSampling(3, lbsim.WithReplacement)},
		{4, 0.8, lbsim.NeighbourJSQd(c4, 2)},
		{5, 0.5, lbsim.NeighbourJSQd(c5, 2)},
		{5, 0.5, lbsim.NeighbourJSQd(k5, 2)},
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%d/%s/N=%d/lambda=%v", ci, c.p.Name(), c.n, c.lambda), func(t *testing.T) {
			t.Parallel()
			sol, err := exact.Solve(context.Background(), exact.Problem{
				System: lbsim.System{N: c.n}, Lambda: c.lambda, Policy: c.p.(lbsim.ExactRouter), Tol: 1e-7,
				MaxTruncationMass: 1e-3})
			if err != nil {
				t.Fatal(err)
			}
			res, err := lbsim.Run(context.Background(), lbsim.Scenario{
				Servers: c.n, Lambda: c.lambda, Policy: c.p, Engine: lbsim.EngineServers,
				Horizon: 40000, Replications: 8, Seed: uint64(700 + ci)})
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstExact(t, res, sol, 4)
		})
	}
}

// Equality in law of the loop and the policies' Dispatch on systems too
// large to solve exactly: the same scenario run by loopArrivals (for JSQ(2)
// with replacement, by the uniformized chain's per-server loop,
// engine_uniformized_servers.go, which the per-server engine now runs for
// JSQ(2)) and by the generic path (uniform origin weights, which the loop does not take, for
// two local choices; the general engine with exponential service for JSQ(d)
// with replacement) gives the same q_1..q_5, mean sojourn and waiting
// probability within 4 combined confidence half-widths (8 replications each,
// independent seeds; a correct pair fails a given check with probability
// about 1e-3). Graphs: an implicit ring and torus, a stored random 3-regular
// graph (stride) and a stored Erdos-Renyi graph with vertices of degree 0
// (three stages).
func TestFastLoopEqualsDispatchInLaw(t *testing.T) {
	const n, lambda = 144, 0.9
	ring, _ := graph.Ring(n, 1)
	torus, _ := graph.Torus(12)
	reg, err := graph.RandomRegular(n, 3, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	er, err := graph.ErdosRenyi(n, 1.5/n, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	type variant struct {
		name    string
		p       lbsim.Policy
		generic func(*lbsim.Scenario)
	}
	viaOrigins := func(sc *lbsim.Scenario) { sc.OriginWeights = ones }
	viaGeneral := func(sc *lbsim.Scenario) { sc.Engine = lbsim.EngineGeneral }
	cases := []variant{
		{"ring", lbsim.NeighbourJSQd(ring, 2), viaOrigins},
		{"torus", lbsim.NeighbourJSQd(torus, 2), viaOrigins},
		{"regular3", lbsim.NeighbourJSQd(reg, 2), viaOrigins},
		{"er", lbsim.NeighbourJSQd(er, 2), viaOrigins},
		{"jsq2-with", lbsim.JSQdSampling(2, lbsim.WithReplacement), viaGeneral},
		{"jsq3-with", lbsim.JSQdSampling(3, lbsim.WithReplacement), viaGeneral},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sc := lbsim.Scenario{Servers: n, Lambda: lambda, Policy: c.p, Engine: lbsim.EngineServers,
				Horizon: 3000, Replications: 8, Seed: uint64(800 + 2*ci)}
			fast, err := lbsim.Run(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			c.generic(&sc)
			sc.Seed++
			slow, err := lbsim.Run(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			checkSameLaw(t, "loop", "Dispatch", fast, slow, 5)
		})
	}
}

// Two local choices on an implicit ring or torus run without the graph's
// lists (no memory per edge); a policy that reads lists (d = 3) makes them.
func TestFastLoopKeepsGraphsImplicit(t *testing.T) {
	ring, _ := graph.Ring(1000, 1)
	torus, _ := graph.Torus(30)
	for _, g := range []*graph.Graph{ring, torus} {
		sc := lbsim.Scenario{Servers: g.N(), Lambda: 0.9, Policy: lbsim.NeighbourJSQd(g, 2), Horizon: 5, Replications: 2}
		if _, err := lbsim.Run(context.Background(), sc); err != nil {
			t.Fatal(err)
		}
		if g.Bytes() != 0 {
			t.Errorf("%d servers, d = 2: the run made the lists (%d bytes)", g.N(), g.Bytes())
		}
		sc.Policy = lbsim.NeighbourJSQd(g, 3)
		if _, err := lbsim.Run(context.Background(), sc); err != nil {
			t.Fatal(err)
		}
		if g.Bytes() == 0 {
			t.Errorf("%d servers, d = 3: no lists made, yet Dispatch reads them", g.N())
		}
	}
}
