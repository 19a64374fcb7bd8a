package lbsim_test

import (
	"context"
	"fmt"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/evidence"
)

// binomialQuantile is the lower p-quantile of Binomial(n, x) divided by n.
func binomialQuantile(n int, x, p float64) float64 {
	b := distuv.Binomial{N: float64(n), P: x}
	for k := range n + 1 {
		if b.CDF(float64(k)) >= p {
			return float64(k) / float64(n)
		}
	}
	return 1
}

// Under random routing the servers are independent M/M/1 queues, so the
// number of servers with at least L tasks is Binomial(N, lambda^L) in
// equilibrium: the level laws' quantiles of q_1 and q_2 must match its
// quantiles. Each of 2 levels x 5 probabilities is a t test over 16
// replications at level 0.001 (family level 1%); the reference carries a bound
// of one server (1/N) for the discreteness of a quantile. Power: each check
// detects 0.001 to 0.0015 at 80% (printed, with the bound), about a tenth of
// a standard deviation of q_1 (0.0112) and under the 0.005 that a 1% change of
// the load moves q_1's quantiles (need 0.005, asserted). Control: the same
// checks against lambda 2% high reject at least 8 of the 10.
func TestLevelLawRandomRoutingBinomial(t *testing.T) {
	const n, lambda, reps = 2000, 0.5, 16
	res, err := lbsim.Run(context.Background(), lbsim.Scenario{Servers: n, Lambda: lambda, Policy: lbsim.Random(),
		Horizon: 2000, Warmup: 50, Replications: reps, Seed: 11, Grid: 1, LawLevels: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.LevelLaws) != 2 || res.LevelLaws[0].Level != 1 || res.LevelLaws[1].Level != 2 {
		t.Fatalf("level laws %+v", res.LevelLaws)
	}
	if s := res.LevelLaws[0].Samples; s != 1951 {
		t.Errorf("samples per replication %d, want 1951 (grid times 50, 51, ..., 2000)", s)
	}
	check := func(load float64) (rejected int) {
		for _, law := range res.LevelLaws {
			x := load
			if law.Level == 2 {
				x = load * load
			}
			for _, pc := range []int{10, 25, 50, 75, 90} {
				k := pc - 1
				if p := lbsim.LawProbability(k); p != float64(pc)/100 {
					t.Fatalf("LawProbability(%d) = %g", k, p)
				}
				est := evidence.Replications(column(law.PerReplication, k))
				ref := evidence.Exact(binomialQuantile(n, x, float64(pc)/100), 1.0/n)
				o := evidence.Agree(est, ref, evidence.Spec{Level: 0.001, Need: 0.005})
				if load == lambda {
					t.Log(o.Describe(fmt.Sprintf("q_%d, %d%% quantile", law.Level, pc)))
					if !o.Holds || o.Weak {
						t.Errorf("q_%d, %d%% quantile: %s", law.Level, pc, o.Describe("level law"))
					}
				}
				if !o.Holds {
					rejected++
				}
			}
		}
		return rejected
	}
	check(lambda)
	if r := check(lambda * 1.02); r < 8 {
		t.Errorf("control (lambda 2%% high): %d of 10 quantile checks rejected, want at least 8", r)
	}
}

// column is column k of rows.
func column(rows [][]float64, k int) []float64 {
	out := make([]float64, len(rows))
	for r, row := range rows {
		out[r] = row[k]
	}
	return out
}
