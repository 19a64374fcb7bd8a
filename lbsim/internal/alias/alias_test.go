package alias

import (
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/chisq"
)

// Samples follow the weights, zero weights are never drawn, and a single
// weight always gives index 0.
func TestSampleFollowsWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, w := range [][]float64{{1}, {1, 1}, {3, 1}, {0.5, 0, 2, 7, 0.01}, {1e-9, 1, 1, 1, 1, 1, 1, 1}} {
		tab := New(w)
		total := 0.0
		for _, x := range w {
			total += x
		}
		probs := map[int]float64{}
		for i, x := range w {
			probs[i] = x / total
		}
		const draws = 200000
		counts := map[int]int{}
		for range draws {
			counts[tab.Sample(r)]++
		}
		chisq.Check(t, "alias", counts, probs, draws)
	}
}
