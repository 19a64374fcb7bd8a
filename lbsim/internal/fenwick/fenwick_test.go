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

// Reset gives new rates with every server idle; Pick maps the integers
// below Total onto the busy servers in order, each getting a run of
// integers equal to its scaled rate.
func TestResetPick(t *testing.T) {
	b := New([]float64{1, 1, 1, 1})
	b.SetBusy(2)
	b.Reset([]float64{2, 0.5, 4, 1})
	if b.Total() != 0 || b.Rate() != 0 {
		t.Fatalf("after Reset: total %d, rate %v; want all idle", b.Total(), b.Rate())
	}
	b.SetBusy(0)
	b.SetBusy(2)
	b.SetBusy(3)
	if math.Abs(b.Rate()-7) > 1e-12 || math.Abs(float64(b.Total())/b.Scale()-7) > 1e-12 {
		t.Fatalf("rate %v, total/scale %v; want 7", b.Rate(), float64(b.Total())/b.Scale())
	}
	w0 := uint64(2 * b.Scale())
	w2 := uint64(4 * b.Scale())
	for u, want := range map[uint64]int{0: 0, w0 - 1: 0, w0: 2, w0 + w2 - 1: 2, w0 + w2: 3, b.Total() - 1: 3} {
		if got := b.Pick(u); got != want {
			t.Errorf("Pick(%d) = %d, want %d", u, got, want)
		}
	}
}
