package admission

import (
	"fmt"
	"math"
)

// PolicyRevenue returns the long-run revenue rate of the randomized policy
// that admits an arrival in state k with probability p[k] (states at and
// beyond len(p) admit none): the chain is then a birth-death chain with
// birth rates lambda p(k).
func (sys System) PolicyRevenue(r Revenue, p []float64) (float64, error) {
	if err := sys.Check(); err != nil {
		return math.NaN(), err
	}
	s, lambda := sys.Servers, sys.Lambda()
	sq := math.Sqrt(float64(s))
	acc := newSums()
	lw := 0.0
	acc.add(lw, r.At(float64(-s)/sq))
	for k, pk := range p {
		if math.IsNaN(pk) || pk < 0 || pk > 1 {
			return math.NaN(), fmt.Errorf("p[%d] = %v: must be a probability", k, pk)
		}
		if pk == 0 {
			break
		}
		lw += math.Log(lambda * pk / float64(min(k+1, s)))
		acc.add(lw, r.At(float64(k+1-s)/sq))
	}
	return acc.n / acc.z, nil
}
