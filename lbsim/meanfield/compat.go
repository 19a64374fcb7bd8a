package meanfield

import (
	"fmt"
	"math"
)

// CompleteCompatibilityJSQdDrift returns the mean-field drift of
// compatibility-constrained JSQ(d) (Rutten and Mukherjee) when the bipartite
// compatibility graph between the N servers and the task types is complete:
// tasks of type t arrive at rate typeRates[t] per server (so lambda =
// sum_t typeRates[t]) and sample d servers uniformly among those compatible
// with t, which here are all of them. Every type then sees the same JSQ(d)
// choice, so the occupancy follows JSQdDrift(lambda, d): this is the fully
// flexible system that proportionally sparse graphs are compared with. The
// types only add up; the function exists so that notebooks state the model
// they compare against, with the per-type rates validated.
func CompleteCompatibilityJSQdDrift(typeRates []float64, d int) (System, error) {
	if len(typeRates) == 0 {
		return nil, fmt.Errorf("typeRates: empty; give the arrival rate per server of each task type")
	}
	lambda := 0.0
	for t, r := range typeRates {
		if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 {
			return nil, fmt.Errorf("typeRates[%d] = %v: must be a finite rate >= 0", t, r)
		}
		lambda += r
	}
	if lambda <= 0 {
		return nil, fmt.Errorf("typeRates: all zero; the total must be > 0")
	}
	return JSQdDrift(lambda, d)
}
