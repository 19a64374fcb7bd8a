package trickle

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
	"github.com/lbsim/notebooks/lbsim/internal/modeltest"
	"github.com/lbsim/notebooks/lbsim/mc"
)

// naive is a reference simulator written the plain way: every node keeps
// the count of transmissions it heard in its current interval, every
// transmission increments the counters of all the nodes that hear it, and
// the next event is found by scanning all nodes (ties by node id). It draws
// its random numbers at the same moments as the engine (the phases in node
// order, then one uniform per interval start), so both must give the same
// transmissions, node by node.
func naive(c Config, src *rand.PCG) (messages int64, perNode []int64, events int64) {
	n, tau := c.Nodes, c.tau()
	first := tau
	if c.Imin > 0 && c.Imin < tau {
		first = c.Imin
	}
	at := make([]float64, n)
	end := make([]float64, n)
	ilen := make([]float64, n)
	heard := make([]int, n)
	fire := make([]bool, n)
	for i := range n {
		if !c.Sync {
			at[i] = first * fastrand.Float64(src)
		}
		ilen[i] = first / 2
	}
	hears := func(v, u int) bool { // does u hear v?
		if c.Graph == nil || c.Graph.IsComplete() {
			return u != v
		}
		return c.Graph.HasEdge(u, v)
	}
	perNode = make([]int64, n)
	for {
		i := 0
		for j := 1; j < n; j++ {
			if at[j] < at[i] {
				i = j
			}
		}
		t := at[i]
		if t >= c.Horizon {
			return messages, perNode, events
		}
		events++
		if fire[i] {
			if heard[i] < c.K {
				for u := range n {
					if hears(i, u) {
						heard[u]++
					}
				}
				if t >= c.Warmup {
					messages++
					perNode[i]++
				}
			}
			fire[i] = false
			at[i] = end[i]
			continue
		}
		ilen[i] = math.Min(2*ilen[i], tau)
		heard[i] = 0
		end[i] = t + ilen[i]
		at[i] = t + ilen[i]*(c.Eta+(1-c.Eta)*fastrand.Float64(src))
		fire[i] = true
	}
}

// TestAgainstNaive: the calendar engine (with its global count and
// snapshots in a single cell) makes exactly the transmissions of the
// reference simulator, node by node, in single cells and on hearing graphs,
// synchronized or not, with and without doubling.
func TestAgainstNaive(t *testing.T) {
	torus, _ := Lattice(5, 0.2, true)
	grid, _ := Lattice(5, 0.3, false)
	geo, _, _ := graph.RandomGeometric(30, 0.25, mc.Stream(9, 0))
	for _, c := range []Config{
		{Nodes: 1, K: 1, Horizon: 50},
		{Nodes: 7, K: 1, Horizon: 200, Warmup: 20},
		{Nodes: 7, K: 2, Eta: 0.3, Horizon: 200},
		{Nodes: 12, K: 3, Eta: 0.5, Horizon: 200, Sync: true},
		{Nodes: 12, K: 1, Horizon: 100, Imin: 1.0 / 16, Tau: 2},
		{Nodes: 25, K: 1, Eta: 0.5, Graph: torus, Horizon: 200},
		{Nodes: 25, K: 2, Graph: grid, Horizon: 200, Sync: true},
		{Nodes: 30, K: 1, Eta: 0.2, Graph: geo, Horizon: 200, Warmup: 10},
	} {
		for seed := range uint64(3) {
			c.Seed = seed
			res, err := Simulate(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			msgs, perNode, events := naive(c, mc.Source(seed, 0))
			rep := res.PerReplication[0]
			if rep.Messages != msgs || rep.Events != events {
				t.Errorf("%+v: engine %d messages, %d events; reference %d, %d", c, rep.Messages, rep.Events, msgs, events)
				continue
			}
			for i, m := range rep.perNode {
				if int64(m) != perNode[i] {
					t.Errorf("%+v: node %d transmitted %d times, reference %d", c, i, m, perNode[i])
					break
				}
			}
		}
	}
}

// TestSyncExactlyK: a synchronized single cell transmits exactly min(n, k)
// times in every interval, so over the 990 whole intervals of [10, 1000)
// the count is exact, in every replication.
func TestSyncExactlyK(t *testing.T) {
	for _, c := range []Config{
		{Nodes: 1, K: 1}, {Nodes: 2, K: 1}, {Nodes: 3, K: 2, Eta: 0.5}, {Nodes: 50, K: 3, Eta: 0.2}, {Nodes: 4, K: 9},
	} {
		c.Sync, c.Horizon, c.Warmup, c.Replications, c.Seed = true, 1000, 10, 3, 4
		res, err := Simulate(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		for _, rep := range res.PerReplication {
			if want := int64(990 * SyncMessages(c.Nodes, c.K)); rep.Messages != want {
				t.Errorf("n = %d, k = %d: %d transmissions in 990 intervals, want %d", c.Nodes, c.K, rep.Messages, want)
			}
		}
	}
}

// thin keeps every step-th gap: gaps that far apart depend on disjoint
// intervals, so the kept ones are independent (see the callers).
func thin(gaps []float64, step int) []float64 {
	var out []float64
	for i := 0; i < len(gaps); i += step {
		out = append(out, gaps[i])
	}
	return out
}

// TestSyncGapDistribution: in a synchronized cell the inter-broadcast times
// follow SyncGapCDF. A gap depends on at most two adjacent intervals, and
// min(n,k) gaps fall in each interval, so gaps 2k+1 apart are independent
// and cycle through the positions within an interval; on those the
// Kolmogorov-Smirnov distance must stay below 1.95/sqrt(N), its 0.1%
// critical value.
func TestSyncGapDistribution(t *testing.T) {
	for _, c := range []Config{
		{Nodes: 2, K: 1}, {Nodes: 3, K: 1, Eta: 0.5}, {Nodes: 3, K: 2}, {Nodes: 10, K: 3, Eta: 0.25},
	} {
		c.Sync, c.Horizon, c.Warmup, c.Seed, c.KeepGaps = true, 30000, 1, 11, 1<<20
		res, err := Simulate(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		m := min(c.Nodes, c.K)
		xs := thin(res.Gaps[0], 2*m+1)
		d := mc.KSDistance(xs, func(g float64) float64 { return SyncGapCDF(c.Nodes, c.K, c.Eta, g) })
		if crit := 1.95 / math.Sqrt(float64(len(xs))); d > crit {
			t.Errorf("n = %d, k = %d, eta = %v: KS distance %.4f over %d gaps, above %.4f", c.Nodes, c.K, c.Eta, d, len(xs), crit)
		}
		// The mean gap is exactly tau/min(n,k); its standard error is below
		// 1/sqrt(gaps), so 4/sqrt(gaps) is generous.
		if mean := res.InterbroadcastMean; math.Abs(mean-1/float64(m)) > 4/math.Sqrt(float64(len(res.Gaps[0]))) {
			t.Errorf("n = %d, k = %d: mean gap %.5f, want %.5f", c.Nodes, c.K, mean, 1/float64(m))
		}
	}
}

// TestSingleNode: one node alone transmits once per interval, synchronized
// or not, at gaps triangular on [eta, 2-eta] (SingleNodeGapCDF); every
// second gap is independent.
func TestSingleNode(t *testing.T) {
	for _, c := range []Config{{Eta: 0}, {Eta: 0.6, Sync: true}, {Eta: 0.3, K: 3}} {
		c.Nodes, c.K, c.Horizon, c.Warmup, c.Seed, c.KeepGaps = 1, max(c.K, 1), 20000, 0, 5, 1<<20
		res, err := Simulate(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		// The window holds 19999 or 20000 whole intervals' transmissions
		// (the first interval starts at the phase a in [0, 1)).
		if m := res.PerReplication[0].Messages; m < 19999 || m > 20000 {
			t.Errorf("eta = %v: %d transmissions in 20000 intervals", c.Eta, m)
		}
		xs := thin(res.Gaps[0], 2)
		d := mc.KSDistance(xs, func(g float64) float64 { return SingleNodeGapCDF(c.Eta, g) })
		if crit := 1.95 / math.Sqrt(float64(len(xs))); d > crit {
			t.Errorf("eta = %v: KS distance %.4f, above %.4f", c.Eta, d, crit)
		}
	}
}

// TestUnsyncK1: the unsynchronized cell with k = 1 against the
// independent-phase approximation UnsyncK1Messages, which becomes exact as
// n grows: at n = 2000 the simulated count (8 replications of 300
// intervals, half-width about 0.3%) must be within 1.5% of it, and the
// quantiles of the gaps within 2% of those of UnsyncK1GapSurvival.
func TestUnsyncK1(t *testing.T) {
	for _, eta := range []float64{0, 0.5} {
		c := Config{Nodes: 2000, K: 1, Eta: eta, Horizon: 300, Replications: 8, Seed: 3}
		res, err := Simulate(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		want := UnsyncK1Messages(c.Nodes, eta)
		if rel := math.Abs(res.MessagesPerInterval/want - 1); rel > 0.015 {
			t.Errorf("eta = %v: %.4f ± %.4f transmissions per interval, approximation %.4f (%.2f%% off)",
				eta, res.MessagesPerInterval, res.MessagesPerIntervalCI95, want, 100*rel)
		}
		for j, p := range res.InterbroadcastProbabilities {
			// Invert the survival by bisection.
			lo, hi := eta, 1.0
			for range 60 {
				mid := (lo + hi) / 2
				if 1-UnsyncK1GapSurvival(c.Nodes, eta, mid) < p {
					lo = mid
				} else {
					hi = mid
				}
			}
			// Relative to the part above eta, where the law lives.
			if got := res.InterbroadcastQuantiles[j]; math.Abs(got-lo) > 0.02*(lo-eta)+1e-3*lo {
				t.Errorf("eta = %v: gap quantile %v = %.5f, approximation %.5f", eta, p, got, lo)
			}
		}
	}
}

// TestDeterminism: the same seed gives the same bytes, whatever the number
// of workers.
func TestDeterminism(t *testing.T) {
	g, _ := Lattice(10, 0.25, true)
	var outs [][]byte
	for _, w := range []int{1, 3} {
		res, err := Simulate(context.Background(), Config{Nodes: 100, K: 2, Eta: 0.25, Graph: g, Horizon: 50,
			Replications: 4, Seed: 7, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		res.WallSeconds, res.EventsPerSecond = 0, 0
		b, _ := json.Marshal(res)
		outs = append(outs, b)
	}
	if string(outs[0]) != string(outs[1]) {
		t.Error("results differ between 1 and 3 workers")
	}
}

// TestLattice: radius 1/L on the torus is graph.Torus; the grid without
// wrap has degrees 2, 3 and 4 at corners, edges and inside; radius
// sqrt(2)/L adds the diagonals.
func TestLattice(t *testing.T) {
	g, err := Lattice(6, 1.0/6, true)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := graph.Torus(6); !g.Equal(want) {
		t.Error("lattice with wrap and radius 1/L is not graph.Torus")
	}
	grid, _ := Lattice(4, 0.25, false)
	for v, want := range []int{2, 3, 3, 2, 3, 4, 4, 3, 3, 4, 4, 3, 2, 3, 3, 2} {
		if d := grid.Degree(v); d != want {
			t.Errorf("grid node %d: degree %d, want %d", v, d, want)
		}
	}
	diag, _ := Lattice(5, math.Sqrt2/5, true)
	if d := diag.Degree(0); d != 8 {
		t.Errorf("radius sqrt(2)/L: degree %d, want 8", d)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []Config{
		{Nodes: 0, K: 1, Horizon: 1}, {Nodes: 2, K: 0, Horizon: 1}, {Nodes: 2, K: 1, Eta: 1, Horizon: 1},
		{Nodes: 2, K: 1, Eta: -0.1, Horizon: 1}, {Nodes: 2, K: 1, Horizon: 0}, {Nodes: 2, K: 1, Horizon: 1, Warmup: 1},
		{Nodes: 2, K: 1, Horizon: 1, Imin: 2},
		// A measurement window shorter than one interval.
		{Nodes: 2, K: 1, Horizon: 0.5}, {Nodes: 2, K: 1, Horizon: 3, Warmup: 2.5}, {Nodes: 2, K: 1, Tau: 2, Horizon: 1.9},
	} {
		if _, err := Simulate(context.Background(), c); err == nil {
			t.Errorf("%+v: accepted", c)
		}
	}
	// A window of exactly one interval, written in decimal (1.2 - 0.2 rounds below 1).
	if _, err := Simulate(context.Background(), Config{Nodes: 2, K: 1, Horizon: 1.2, Warmup: 0.2}); err != nil {
		t.Errorf("a window of one interval: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Simulate(ctx, Config{Nodes: 10, K: 1, Horizon: 1e6}); err == nil {
		t.Error("a cancelled run returned no error")
	}
}

// jsonFixtures are results with every field set to a value of its own: one
// replication of a cell whose half-widths are NaN and whose mean gap is NaN
// (fewer than two transmissions), and a synchronized one with finite values.
func jsonFixtures() []*Result {
	nan := math.NaN()
	one := &Result{Nodes: 50, K: 2, Eta: 0.5, Tau: 1, Sync: false, Events: 4321, WallSeconds: 0.0625, EventsPerSecond: 69136,
		MessagesPerInterval: 2.5, MessagesPerIntervalCI95: nan, PerNodeRate: 0.05, PerNodeRateCI95: nan,
		PerNodeQuantiles: []float64{0.01, 0.05, 0.1}, InterbroadcastProbabilities: []float64{0.5, 0.99},
		InterbroadcastQuantiles: []float64{0.25, nan}, InterbroadcastMean: nan, InterbroadcastMeanCI95: math.Inf(1),
		Replications: 1, PerReplication: []Rep{{Events: 4321, Messages: 1, MessagesPerInterval: 2.5, InterbroadcastMean: nan}},
		PerNode: []float64{1, 2}, Gaps: [][]float64{{0.5}}, ApproxMessagesPerInterval: 2.25, ApproxPerNodeRate: 0.045}
	sync := &Result{Nodes: 3, K: 1, Eta: 0, Tau: 2, Sync: true, Events: 9, WallSeconds: 1e-6, EventsPerSecond: 9e6,
		MessagesPerInterval: 1, MessagesPerIntervalCI95: 0, PerNodeRate: 1.0 / 3, PerNodeRateCI95: 0,
		InterbroadcastMean: 2, InterbroadcastMeanCI95: 0, Replications: 2, ApproxMessagesPerInterval: 1, ApproxPerNodeRate: 1.0 / 3,
		PerReplication: []Rep{{Events: 5, Messages: 3, MessagesPerInterval: 1, InterbroadcastMean: 2}, {}}}
	return []*Result{one, sync}
}

// The JSON of a result is byte for byte what lbsim trickle has always
// written (testdata/result.json, written by the encoding before it moved
// onto model.MarshalObject): the same keys in the same order, the same
// numbers, null for NaN and infinities, PerNode and Gaps left out.
func TestResultJSONBytes(t *testing.T) {
	var values []any
	for _, r := range jsonFixtures() {
		values = append(values, r)
	}
	modeltest.JSONBytes(t, "testdata/result.json", values...)
}
