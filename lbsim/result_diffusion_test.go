package lbsim

import (
	"math"
	"testing"
)

func TestDiffusionScaled(t *testing.T) {
	res := &Result{Scenario: Scenario{Servers: 100}, PerReplication: []ReplicationResult{
		{Occupancy: []float64{0.9, 0.01}}, {Occupancy: []float64{0.92, 0.03}}, {Occupancy: []float64{0.94}}}}
	q1, ci1, q2, ci2 := res.DiffusionScaled()
	if math.Abs(q1+0.8) > 1e-12 || math.Abs(q2-0.4/3) > 1e-12 || !(ci1 > 0) || !(ci2 > 0) {
		t.Errorf("DiffusionScaled = %v ± %v, %v ± %v; want -0.8, 0.1333", q1, ci1, q2, ci2)
	}
	for _, r := range []*Result{{Scenario: Scenario{Servers: 100}}, {PerReplication: res.PerReplication}} {
		if q1, ci1, q2, ci2 := r.DiffusionScaled(); !math.IsNaN(q1) || !math.IsNaN(ci1) || !math.IsNaN(q2) || !math.IsNaN(ci2) {
			t.Errorf("DiffusionScaled of an empty result = %v, %v, %v, %v; want NaN", q1, ci1, q2, ci2)
		}
	}
}
