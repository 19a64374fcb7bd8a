package lbsim

import (
	"math"
	"testing"
)

func TestCommonRate(t *testing.T) {
	for _, c := range []struct {
		rates []float64
		mu    float64
		same  bool
	}{
		{nil, 1, true},
		{[]float64{2}, 2, true},
		{[]float64{0.5, 0.5, 0.5}, 0.5, true},
		{[]float64{0.5, 0.5, 1}, 0.5, false},
		{[]float64{3, 1}, 3, false},
		{[]float64{1, math.NaN()}, 1, false},
	} {
		if mu, same := commonRate(c.rates); mu != c.mu || same != c.same {
			t.Errorf("commonRate(%v) = %v, %v; want %v, %v", c.rates, mu, same, c.mu, c.same)
		}
	}
}
