package fenwick

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/internal/chisq"
)

// After any sequence of updates, Rate is the total rate of the busy servers
// and Sample draws a busy server in proportion to its rate.
func TestBusyRates(t *testing.T) {
	rates := []float64{1, 2, 0.5, 4, 1, 3, 0.25}
	b := New(rates)
	r := rand.New(rand.NewPCG(3, 4))
	busy := make([]bool, len(rates))
	for step := range 20000 {
		j := r.IntN(len(rates))
		if busy[j] {
			b.SetIdle(j)
		} else {
			b.SetBusy(j)
		}
		busy[j] = !busy[j]
		want := 0.0
		for k, on := range busy {
			if on {
				want += rates[k]
			}
		}
		if math.Abs(b.Rate()-want) > 1e-9*want {
			t.Fatalf("step %d: Rate = %v, want %v", step, b.Rate(), want)
		}
	}
	// Make servers 0, 3, 4 and 6 the busy ones.
	for j, on := range busy {
		if want := j == 0 || j == 3 || j == 4 || j == 6; on != want {
			if on {
				b.SetIdle(j)
			} else {
				b.SetBusy(j)
			}
		}
	}
	probs := map[int]float64{0: 1 / 6.25, 3: 4 / 6.25, 4: 1 / 6.25, 6: 0.25 / 6.25}
	const draws = 200000
	counts := map[int]int{}
	for range draws {
		counts[b.Sample(r)]++
	}
	chisq.Check(t, "busy rates", counts, probs, draws)
}
