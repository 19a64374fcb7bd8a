package lbsim_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/exact"
	"github.com/lbsim/notebooks/lbsim/graph"
)

func edges(t testing.TB, n int, es ...[2]int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(n)
	for _, e := range es {
		if err := b.AddEdge(e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestNeighbourMatchesExact simulates neighbour-jsq and neighbour-jsqd(2) on
// the path on 3 vertices, the star on 4, the 4-cycle and the complete graph on
// 4 (explicit edges), and compares q_1..q_3, the mean sojourn time and the
// waiting probability with the exact stationary solution. Tolerance, as in
// TestSimulationMatchesExact: 4 confidence half-widths (8 replications,
// Student t; a correct simulation fails a given check with probability about
// 1e-3, and the seeds are fixed) plus the exact solution's truncation mass,
// which bounds the distance between the truncated and the infinite chain.
func TestNeighbourMatchesExact(t *testing.T) {
	graphs := []struct {
		name string
		g    *graph.Graph
	}{
		{"path3", edges(t, 3, [2]int{0, 1}, [2]int{1, 2})},
		{"star4", edges(t, 4, [2]int{0, 1}, [2]int{0, 2}, [2]int{0, 3})},
		{"cycle4", edges(t, 4, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}, [2]int{3, 0})},
		{"K4", edges(t, 4, [2]int{0, 1}, [2]int{0, 2}, [2]int{0, 3}, [2]int{1, 2}, [2]int{1, 3}, [2]int{2, 3})},
	}
	for gi, tc := range graphs {
		for pi, mk := range []func(*graph.Graph) lbsim.Policy{
			lbsim.NeighbourJSQ,
			func(g *graph.Graph) lbsim.Policy { return lbsim.NeighbourJSQd(g, 2) },
		} {
			for _, lambda := range []float64{0.5, 0.8} {
				p := mk(tc.g)
				n := tc.g.N()
				t.Run(fmt.Sprintf("%s/%s/lambda=%v", tc.name, p.Name(), lambda), func(t *testing.T) {
					t.Parallel()
					sol, err := exact.Solve(context.Background(), exact.Problem{
						System: lbsim.System{N: n}, Lambda: lambda, Policy: p.(lbsim.ExactRouter), Tol: 1e-7,
						MaxTruncationMass: 1e-3})
					if err != nil {
						t.Fatal(err)
					}
					res, err := lbsim.Run(context.Background(), lbsim.Scenario{
						Servers: n, Lambda: lambda, Policy: p, Horizon: 40000, Replications: 8,
						Seed: uint64(100*gi + 10*pi + int(lambda*10))})
					if err != nil {
						t.Fatal(err)
					}
					checkAgainstExact(t, res, sol, 3)
				})
			}
		}
	}
}

// On a complete graph neighbour-jsq is JSQ: with explicit edges (the O(degree)
// scan), on the implicit clique (the O(1) structure) and lbsim.JSQ() give the
// same occupancy. Each pair must agree within 4 combined confidence
// half-widths (8 replications each, independent seeds).
func TestNeighbourCompleteIsJSQ(t *testing.T) {
	const n, lambda = 20, 0.9
	implicit, _ := graph.Complete(n)
	explicit, _ := implicit.Materialize()
	run := func(p lbsim.Policy, seed uint64) *lbsim.Result {
		res, err := lbsim.Run(context.Background(), lbsim.Scenario{
			Servers: n, Lambda: lambda, Policy: p, Horizon: 5000, Replications: 8, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	results := map[string]*lbsim.Result{
		"explicit": run(lbsim.NeighbourJSQ(explicit), 1),
		"implicit": run(lbsim.NeighbourJSQ(implicit), 2),
		"jsq":      run(lbsim.JSQ(), 3),
	}
	for _, pair := range [][2]string{{"explicit", "implicit"}, {"explicit", "jsq"}, {"implicit", "jsq"}} {
		a, b := results[pair[0]], results[pair[1]]
		for i := 0; i < 4; i++ {
			qa, qb := at(a.Occupancy, i), at(b.Occupancy, i)
			ci := math.Hypot(at(a.OccupancyCI95, i), at(b.OccupancyCI95, i))
			if math.Abs(qa-qb) > 4*ci+1e-9 {
				t.Errorf("q_%d: %s %.5f, %s %.5f (combined ci %.5f)", i+1, pair[0], qa, pair[1], qb, ci)
			}
		}
	}
}

// Neighbour-jsq on an implicit Erdős-Rényi graph (the level-by-level search
// through the pair hash) and on a stored copy of the same graph (the scan of
// the neighbour lists) are the same chain: q_1..q_4 must agree within 4
// combined confidence half-widths (8 replications each, independent seeds).
// The graph (N = 300, mean degree 4.5) is sparse enough that many arrivals
// find no idle neighbour and search the busy levels, and dense enough in
// places for levels to be drawn from (see dispatchPairs); lambda = 0.95 keeps
// several levels occupied.
func TestNeighbourImplicitERIsStoredER(t *testing.T) {
	const n, lambda = 300, 0.95
	implicit, err := graph.ErdosRenyiImplicit(n, 4.5/(n-1), 3)
	if err != nil {
		t.Fatal(err)
	}
	b := graph.NewBuilder(n)
	for v := range n {
		for _, u := range implicit.Neighbors(v) {
			b.AddEdge(v, int(u))
		}
	}
	stored, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stored.PairHash(); ok || !stored.Equal(implicit) {
		t.Fatal("the stored copy is not a stored graph with the same edges")
	}
	run := func(g *graph.Graph, seed uint64) *lbsim.Result {
		res, err := lbsim.Run(context.Background(), lbsim.Scenario{
			Servers: n, Lambda: lambda, Policy: lbsim.NeighbourJSQ(g), Horizon: 3000, Replications: 8, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, c := run(implicit, 1), run(stored, 2)
	if at(a.Occupancy, 2) < 0.01 {
		t.Fatalf("q_3 = %.4f: the busy levels are hardly searched, so this test would not test them", at(a.Occupancy, 2))
	}
	for i := 0; i < 4; i++ {
		qa, qc := at(a.Occupancy, i), at(c.Occupancy, i)
		ci := math.Hypot(at(a.OccupancyCI95, i), at(c.OccupancyCI95, i))
		if math.Abs(qa-qc) > 4*ci+1e-9 {
			t.Errorf("q_%d: implicit %.5f, stored %.5f (combined ci %.5f)", i+1, qa, qc, ci)
		}
	}
}

func at(xs []float64, i int) float64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

// A dense Erdos-Renyi graph (N = 2000, mean degree 200 >> log N) behaves like
// the complete graph, whose fluid limit at lambda = 0.9 is the JSQ point q_1 =
// 0.9, q_2 = 0: q_2 must be below 0.01. A ring with degree 2 (a task sees its
// own server and two neighbours) is far from it: JSQ(3) alone would give
// q_2 = 0.9^4 = 0.66 in the mean-field limit, and the ring's correlations only
// raise it, so q_2 > 0.05 is a safe margin.
func TestNeighbourDenseVersusRing(t *testing.T) {
	run := func(topology string, degree float64) *lbsim.Result {
		res, err := runKeys(map[string]any{"servers": 2000, "lambda": 0.9, "policy": "neighbour-jsq", "topology": topology,
			"degree": degree, "horizon": 100, "replications": 2})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if er := run("er", 200); at(er.Occupancy, 1) >= 0.01 {
		t.Errorf("er with mean degree 200: q_2 = %v, want < 0.01 (the JSQ fluid point)", at(er.Occupancy, 1))
	} else if q1 := er.Occupancy[0]; math.Abs(q1-0.9) > 0.02 {
		t.Errorf("er with mean degree 200: q_1 = %v, want about 0.9", q1)
	}
	if ring := run("ring", 2); at(ring.Occupancy, 1) <= 0.05 {
		t.Errorf("ring with degree 2: q_2 = %v, want > 0.05", at(ring.Occupancy, 1))
	}
}

func TestNeighbourSpec(t *testing.T) {
	base := func(policy string) map[string]any {
		return map[string]any{"servers": 16, "lambda": 0.5, "policy": policy, "horizon": 20}
	}
	ok := []map[string]any{}
	for _, f := range []func(map[string]any){
		func(sp map[string]any) { sp["topology"] = "complete" },
		func(sp map[string]any) { sp["topology"] = "er"; sp["degree"] = 3.5 },
		func(sp map[string]any) { sp["topology"] = "er"; sp["p"] = 0.3 },
		func(sp map[string]any) { sp["topology"] = "regular"; sp["degree"] = 3 },
		func(sp map[string]any) { sp["topology"] = "ring"; sp["degree"] = 4 },
		func(sp map[string]any) { sp["topology"] = "torus" },
		func(sp map[string]any) { sp["topology"] = "geometric"; sp["radius"] = 0.3 },
		func(sp map[string]any) { sp["topology"] = "split"; sp["split"] = 0.25 },
		func(sp map[string]any) { sp["topology"] = "pendant"; sp["clique"] = 4 },
	} {
		for _, policy := range []string{"neighbour-jsq", "neighbour-jsq-first-idle", "neighbour-jsqd"} {
			sp := base(policy)
			f(sp)
			ok = append(ok, sp)
		}
	}
	for _, sp := range ok {
		res, err := runKeys(sp)
		if err != nil {
			t.Errorf("%v: %v", sp, err)
			continue
		}
		// The scenario in the result round-trips through JSON and parses again.
		data, again, err := roundTrip(res.Scenario)
		if err != nil || string(again) != string(data) {
			t.Errorf("%s: round trip %v: %s", data, err, again)
		}
		got, err := res.Scenario.CompletedValues()
		if err != nil {
			t.Fatal(err)
		}
		topology := sp["topology"]
		random := topology == "er" || topology == "regular" || topology == "geometric"
		if random != got.Has("graph_seed") || (random && got.Uint("graph_seed") != got.Uint("seed")) {
			t.Errorf("%s: graph_seed default %v (seed %v)", data, got.Get("graph_seed"), got.Get("seed"))
		}
	}
	bad := []struct {
		f    func(map[string]any)
		want string
	}{
		{func(sp map[string]any) {}, "topology: required for neighbour-jsq"},
		{func(sp map[string]any) { sp["topology"] = "hypercube" }, `topology = "hypercube": must be one of complete, er`},
		{func(sp map[string]any) { sp["topology"] = "er" }, "degree: topology er needs degree"},
		{func(sp map[string]any) { sp["topology"] = "er"; sp["degree"] = 16 }, "degree = 16: the mean degree of er must be > 0 and at most servers-1 (15)"},
		{func(sp map[string]any) { sp["topology"] = "er"; sp["p"] = 1.5 }, "p = 1.5: must be an edge probability in (0, 1]"},
		{func(sp map[string]any) { sp["topology"] = "er"; sp["p"] = 0.5; sp["degree"] = 3 }, "not both"},
		{func(sp map[string]any) { sp["topology"] = "regular"; sp["degree"] = 2.5 }, "degree = 2.5: must be an integer between 1 and servers-1 (15)"},
		{func(sp map[string]any) { sp["topology"] = "regular"; sp["degree"] = -1 }, "degree = -1"},
		{func(sp map[string]any) { sp["topology"] = "ring"; sp["degree"] = 3 }, "degree = 3: must be an even integer"},
		{func(sp map[string]any) { sp["topology"] = "ring"; sp["degree"] = 16 }, "degree = 16: must be an even integer between 2 and servers-1 (15)"},
		{func(sp map[string]any) { sp["topology"] = "torus"; sp["servers"] = 15 }, "servers = 15: topology torus needs servers to be a perfect square"},
		{func(sp map[string]any) { sp["topology"] = "geometric"; sp["radius"] = 1 }, "radius = 1: topology geometric needs a radius in (0, 0.707107]"},
		{func(sp map[string]any) { sp["topology"] = "split"; sp["split"] = 2 }, "split = 2: topology split needs a clique fraction in (0, 1]"},
		{func(sp map[string]any) { sp["topology"] = "pendant"; sp["clique"] = 17 }, "clique = 17: topology pendant needs a clique size between 1 and servers (16)"},
		{func(sp map[string]any) { sp["topology"] = "torus"; sp["radius"] = 0.1 }, "radius = 0.1: topology torus takes no radius"},
		{func(sp map[string]any) { sp["topology"] = "ring"; sp["degree"] = 2; sp["d"] = 2 }, "d = 2: policy neighbour-jsq takes no d"},
		{func(sp map[string]any) { sp["topology"] = "ring"; sp["degree"] = 2; sp["sampling"] = "with" }, "sampling = \"with\": policy neighbour-jsq takes no sampling"},
		{func(sp map[string]any) { sp["graph"] = "/nonexistent/g.txt" }, `graph = "/nonexistent/g.txt"`},
		{func(sp map[string]any) { sp["graph"] = os.TempDir() }, "not a regular file"},
		{func(sp map[string]any) { sp["graph"] = "x"; sp["topology"] = "ring" }, "either topology or graph"},
		{func(sp map[string]any) { sp["policy"] = "jsqd"; sp["topology"] = "ring" }, `topology = "ring": policy jsqd takes no topology`},
		{func(sp map[string]any) { sp["policy"] = "jsq"; sp["degree"] = 4 }, "degree = 4: policy jsq takes no degree"},
		{func(sp map[string]any) { sp["policy"] = "jiqd"; sp["graph"] = "g.txt" }, "policy jiqd takes no graph"},
		{func(sp map[string]any) { sp["policy"] = "random"; sp["graph_seed"] = uint64(3) }, "graph_seed = 3: policy random takes no graph"},
		{func(sp map[string]any) { sp["policy"] = "neighbour-jsqd"; sp["topology"] = "torus"; sp["d"] = 17 }, "d = 17: must be between 1 and servers (16)"},
	}
	for _, c := range bad {
		sp := base("neighbour-jsq")
		c.f(sp)
		_, err := lbsim.ScenarioFromKeys(sp)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", sp, err, c.want)
		}
	}
}

// The graph of a spec depends only on graph_seed (default: seed), not on the
// replications' streams.
func TestNeighbourSpecGraphSeed(t *testing.T) {
	sp := map[string]any{"servers": 200, "lambda": 0.5, "policy": "neighbour-jsq", "topology": "er", "degree": 5, "seed": 1}
	g1, err := lbsim.GraphFromKeys(sp)
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := lbsim.GraphFromKeys(sp)
	sp["graph_seed"] = uint64(1)
	g3, _ := lbsim.GraphFromKeys(sp)
	if !g1.Equal(g2) || !g1.Equal(g3) {
		t.Error("the same keys (and graph_seed = seed) gave different graphs")
	}
	sp["graph_seed"] = uint64(2)
	if g4, _ := lbsim.GraphFromKeys(sp); g1.Equal(g4) {
		t.Error("graph_seed 2 gave the same graph as 1")
	}
	delete(sp, "graph_seed")
	sp["seed"] = 2
	if g5, _ := lbsim.GraphFromKeys(sp); g1.Equal(g5) {
		t.Error("seed 2 (graph_seed by default) gave the same graph as seed 1")
	}
}

func TestNeighbourSpecEdgeListFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "star.txt")
	if err := os.WriteFile(path, []byte("# a star\n0 1\n0 2\n0 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := map[string]any{"servers": 4, "lambda": 0.5, "policy": "neighbour-jsqd", "graph": path, "horizon": 50}
	res, err := runKeys(sp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Policy, "neighbour-jsqd(d=2,graph=") {
		t.Errorf("policy name %q", res.Policy)
	}
	sp["servers"] = 3
	if _, err := lbsim.ScenarioFromKeys(sp); err == nil || !strings.Contains(err.Error(), "graph = ") {
		t.Errorf("ids beyond servers: err = %v", err)
	}
}

// The policy name neighbour-jsq-first-idle is NeighbourJSQFirstIdle on the
// spec's graph: the same seed gives the same run, and not neighbour-jsq's.
func TestNeighbourSpecFirstIdle(t *testing.T) {
	sp := map[string]any{"servers": 60, "lambda": 0.8, "policy": "neighbour-jsq-first-idle", "topology": "ring", "degree": 4,
		"horizon": 200, "seed": 5}
	viaSpec, err := runKeys(sp)
	if err != nil {
		t.Fatal(err)
	}
	ring, err := graph.Ring(60, 2)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := lbsim.ScenarioFromKeys(sp)
	if err != nil {
		t.Fatal(err)
	}
	run := func(p lbsim.Policy) *lbsim.Result {
		sc := sc
		sc.Policy = p
		res, err := lbsim.Run(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	direct, full := run(lbsim.NeighbourJSQFirstIdle(ring)), run(lbsim.NeighbourJSQ(ring))
	if !reflect.DeepEqual(viaSpec.Occupancy, direct.Occupancy) {
		t.Errorf("spec %v, NeighbourJSQFirstIdle %v: want the same run", viaSpec.Occupancy, direct.Occupancy)
	}
	if reflect.DeepEqual(direct.Occupancy, full.Occupancy) {
		t.Error("first-idle and full scan gave the same run; the spec name may not select the variant")
	}
	if !strings.Contains(viaSpec.Policy, "first-idle") {
		t.Errorf("policy name %q", viaSpec.Policy)
	}
}
