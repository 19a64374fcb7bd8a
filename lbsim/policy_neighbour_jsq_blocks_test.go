package lbsim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// NeighbourJSQBlocks states the same routing law as NeighbourJSQ on the
// stored graph.CompleteMultipartite(n, m), and its Dispatch samples that law
// (chi-square, 1e5 draws per state and origin), in states where the shortest
// level is small, large, or lies wholly in the origin's block (so that the
// search moves up a level), for blocks of 1 (the clique), 2, 3 and n.
func TestNeighbourJSQBlocksMatchesStoredGraph(t *testing.T) {
	const draws = 100000
	for _, tc := range []struct{ n, m int }{{7, 1}, {7, 2}, {7, 3}, {9, 9}, {30, 2}, {30, 4}} {
		stored, err := graph.CompleteMultipartite(tc.n, tc.m)
		if err != nil {
			t.Fatal(err)
		}
		sys := System{N: tc.n}
		p, err := NeighbourJSQBlocks(tc.n, tc.m).(Preparer).Prepare(sys)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := NeighbourJSQ(stored).(Preparer).Prepare(sys)
		if err != nil {
			t.Fatal(err)
		}
		r0 := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.m)))
		var states [][]int
		for _, top := range []int{1, 2, 3} {
			ls := make([]int, tc.n)
			for j := range ls {
				ls[j] = r0.IntN(top + 1)
			}
			states = append(states, ls)
		}
		// Only the first block's servers but server 0 are idle: from origin 0
		// the shortest level is all in its block, and the search moves up.
		blockShort := make([]int, tc.n)
		for j := range blockShort {
			blockShort[j] = 2
			if j > 0 && j < tc.m {
				blockShort[j] = 0
			}
		}
		states = append(states, blockShort)
		for si, lengths := range states {
			s := newPolicyState(sys, p)
			for j, l := range lengths {
				for range l {
					s.add(j)
				}
			}
			for origin := range min(tc.n, 5) {
				what := fmt.Sprintf("n %d m %d state %d origin %d", tc.n, tc.m, si, origin)
				probs, total := map[int]float64{}, 0.0
				for _, c := range p.(ExactRouter).Route(sys, lengths, 0, origin, nil) {
					probs[c.Server] += c.P
					total += c.P
				}
				if math.Abs(total-1) > 1e-12 {
					t.Fatalf("%s: Route probabilities sum to %v", what, total)
				}
				want := map[int]float64{}
				for _, c := range ref.(ExactRouter).Route(sys, lengths, 0, origin, nil) {
					want[c.Server] += c.P
				}
				if len(want) != len(probs) {
					t.Fatalf("%s: Route %v, neighbour-jsq on the stored graph %v", what, probs, want)
				}
				for j, w := range want {
					if math.Abs(probs[j]-w) > 1e-12 {
						t.Fatalf("%s: Route %v, neighbour-jsq on the stored graph %v", what, probs, want)
					}
				}
				r := rand.New(rand.NewPCG(uint64(100*si+origin), 11))
				counts := map[int]int{}
				for range draws {
					counts[p.Dispatch(s, origin, r)]++
				}
				chiSquareOK(t, what, counts, probs, draws)
			}
		}
	}
}

// A run with NeighbourJSQBlocks and one with NeighbourJSQ on the stored graph
// are the same chain: at N = 200, m = 14 (about sqrt(N)) and lambda = 0.97,
// where idle servers are few and the levels above are searched too, q_1..q_3
// agree within 4 combined 95% half-widths (8 replications each).
func TestNeighbourJSQBlocksRunsAsStoredGraph(t *testing.T) {
	const n, m = 200, 14
	stored, err := graph.CompleteMultipartite(n, m)
	if err != nil {
		t.Fatal(err)
	}
	run := func(p Policy, seed uint64) *Result {
		res, err := Run(context.Background(), Scenario{Servers: n, Lambda: 0.97, Policy: p, Horizon: 2000, Replications: 8, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(NeighbourJSQBlocks(n, m), 1), run(NeighbourJSQ(stored), 2)
	get := func(xs []float64, i int) float64 {
		if i < len(xs) {
			return xs[i]
		}
		return 0
	}
	if get(a.Occupancy, 1) < 0.01 {
		t.Fatalf("q_2 = %.4f: the busy levels are hardly searched", get(a.Occupancy, 1))
	}
	for i := range 3 {
		qa, qb := get(a.Occupancy, i), get(b.Occupancy, i)
		ci := math.Hypot(get(a.OccupancyCI95, i), get(b.OccupancyCI95, i))
		if math.Abs(qa-qb) > 4*ci+1e-9 {
			t.Errorf("q_%d: blocks %.5f, stored graph %.5f (combined ci %.5f)", i+1, qa, qb, ci)
		}
	}
}

func TestNeighbourJSQBlocksChecksSystem(t *testing.T) {
	if _, err := NeighbourJSQBlocks(10, 2).(Preparer).Prepare(System{N: 11}); err == nil {
		t.Error("10 servers' policy prepared for 11")
	}
	if _, err := NeighbourJSQBlocks(10, 0).(Preparer).Prepare(System{N: 10}); err == nil {
		t.Error("block size 0 accepted")
	}
}
