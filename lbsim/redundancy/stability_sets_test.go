package redundancy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/pairs"
)

// Brute force over the sets of servers against LoadRatio's minimum cuts, on
// uniform pairs, a ring, a weighted K4 with a known worst set and random
// weighted pairs with unequal rates; and the limit on the servers.
func TestLoadRatioBySets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w6, _ := pairs.Weighted(4, []int32{0, 0, 0, 1, 1, 2}, []int32{1, 2, 3, 2, 3, 3}, []float64{6, 1, 1, 1, 1, 1})
	cases := []struct {
		name  string
		d     *pairs.Dist
		rates []float64
	}{
		{"uniform5", mustUniform(t, 5, 2), nil},
		{"ring6", mustRing(t, 6), []float64{1, 2, 1, 0.5, 1, 3}},
		{"weighted K4", w6, nil},
	}
	for k := 0; k < 5; k++ {
		n := 5 + k
		var u, v []int32
		var w []float64
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if j == i+1 || rng.Float64() < 0.5 {
					u, v, w = append(u, int32(i)), append(v, int32(j)), append(w, rng.ExpFloat64())
				}
			}
		}
		d, err := pairs.Weighted(n, u, v, w)
		if err != nil {
			t.Fatal(err)
		}
		rates := make([]float64, n)
		for j := range rates {
			rates[j] = 0.5 + rng.Float64()
		}
		cases = append(cases, struct {
			name  string
			d     *pairs.Dist
			rates []float64
		}{"random", d, rates})
	}
	for _, c := range cases {
		cut, _, err := LoadRatio(c.d, 0.7, c.rates)
		if err != nil {
			t.Fatal(err)
		}
		brute, worst, err := LoadRatioBySets(c.d, 0.7, c.rates)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(cut-brute) > 1e-12*brute {
			t.Errorf("%s: minimum cuts %v, all sets %v (worst %v)", c.name, cut, brute, worst)
		}
	}
	if r, worst, _ := LoadRatioBySets(w6, 1, nil); math.Abs(r-12.0/11) > 1e-15 || len(worst) != 2 {
		t.Errorf("weighted K4: ratio %v on %v, want 12/11 on {0, 1}", r, worst)
	}
	if _, _, err := LoadRatioBySets(mustUniform(t, 17, 2), 0.5, nil); err == nil {
		t.Error("17 servers: want an error")
	}
}
