package exact

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
)

func TestStateCount(t *testing.T) {
	for _, tc := range []struct{ n, k, ps, limit, want int }{
		{4, 36, 1, 2_000_000, 1874161},
		{4, 37, 1, 2_000_000, -1},
		{2, 3, 2, 32, 32},
		{2, 3, 2, 31, -1},
		{64, 1, 1, math.MaxInt32, -1}, // 2^64 must not overflow into a small number
		{3, 1 << 40, 1, math.MaxInt, -1},
		{1, 5, 3, 1000, 18},
	} {
		if got := stateCount(tc.n, tc.k, tc.ps, tc.limit); got != tc.want {
			t.Errorf("stateCount(%d, %d, %d, %d) = %d, want %d", tc.n, tc.k, tc.ps, tc.limit, got, tc.want)
		}
	}
	for _, tc := range []struct{ n, ps, limit, want int }{
		{4, 1, 2_000_000, 36},
		{3, 1, 2_000_000, 124},
		{1, 1, 2_000_000, 1_999_999},
		{2, 3, 300, 9},
		{21, 1, 2_000_000, 0},
		{20, 1, 2_000_000, 1},
	} {
		if got := maxCap(tc.n, tc.ps, tc.limit); got != tc.want {
			t.Errorf("maxCap(%d, %d, %d) = %d, want %d", tc.n, tc.ps, tc.limit, got, tc.want)
		}
	}
}

func TestNextCap(t *testing.T) {
	// One point: double. Two points with mass decaying as 0.9^K: predict the
	// cap where it reaches tol (+2), within 4x the last cap.
	if got := nextCap([]int{8}, []float64{0.1}, 1e-9, 100); got != 16 {
		t.Errorf("one point: %d, want 16", got)
	}
	m := func(k int) float64 { return math.Pow(0.9, float64(k)) }
	want := 16 + int(math.Ceil(math.Log(1e-9/m(16))/math.Log(0.9))) + 2
	if got := nextCap([]int{8, 16}, []float64{m(8), m(16)}, 1e-9, 1000); got != min(want, 64) {
		t.Errorf("two points: %d, want %d", got, min(want, 64))
	}
	if got := nextCap([]int{40, 60}, []float64{m(40), m(60)}, 1e-9, 1000); got != want {
		t.Errorf("two points: %d, want %d", got, want)
	}
	if got := nextCap([]int{8, 16}, []float64{m(8), m(16)}, 1e-9, 20); got != 20 {
		t.Errorf("at the state limit: %d, want 20", got)
	}
	if got := nextCap([]int{8, 16}, []float64{0.1, 0.2}, 1e-9, 1000); got != 32 {
		t.Errorf("mass not decaying: %d, want 32", got)
	}
}

type rrTest struct{}

func (rrTest) Name() string                               { return "rr" }
func (rrTest) Dispatch(*lbsim.State, int, *rand.Rand) int { return 0 }
func (rrTest) PolicyStates(sys lbsim.System) int          { return sys.N }
func (rrTest) Route(sys lbsim.System, _ []int, ps, _ int, out []lbsim.Choice) []lbsim.Choice {
	return append(out, lbsim.Choice{Server: ps, Next: (ps + 1) % sys.N, P: 1})
}

// The accelerated and the plain iteration reach the same distribution.
// Tolerance: both stop at ||pi Q||_1 <= 1e-12 * 5.4; the mixing time of this
// chain is below 100, so each is within ~5e-10 of the solution.
func TestAndersonAgrees(t *testing.T) {
	defer func(d int) { andersonDepth = d }(andersonDepth)
	p := Problem{System: lbsim.System{N: 3, Rates: []float64{1, 1.2, 0.8}}, Lambda: 0.8, Policy: rrTest{}, Cap: 12, Tol: 1e-12}
	var sols [2]*Solution
	for i, depth := range []int{0, 3} {
		andersonDepth = depth
		sol, err := Solve(context.Background(), p)
		if err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		t.Logf("Anderson depth %d: %d iterations, residual %.2g", depth, sol.Iterations, sol.Residual)
		sols[i] = sol
	}
	worst := 0.0
	for i, x := range sols[0].pi {
		worst = max(worst, math.Abs(x-sols[1].pi[i]))
	}
	if worst > 1e-9 {
		t.Errorf("largest difference %.3g > 1e-9", worst)
	}
}
