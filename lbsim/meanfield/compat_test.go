package meanfield

import (
	"math"
	"testing"
)

// Complete compatibility is full flexibility: the drift is JSQ(d)'s at the total
// rate, exactly, at every state.
func TestCompleteCompatibilityIsJSQd(t *testing.T) {
	f, err := CompleteCompatibilityJSQdDrift([]float64{0.2, 0.3, 0.4}, 2)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := JSQdDrift(0.9, 2)
	q := []float64{0.95, 0.8, 0.5, 0.2, 0.05, 0}
	a, b := make([]float64, len(q)), make([]float64, len(q))
	f(0, q, a)
	g(0, q, b)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-15 {
			t.Fatalf("level %d: %g vs JSQ(2) %g", i+1, a[i], b[i])
		}
	}
	for _, bad := range [][]float64{nil, {0, 0}, {0.5, -0.1}, {math.NaN()}} {
		if _, err := CompleteCompatibilityJSQdDrift(bad, 2); err == nil {
			t.Errorf("typeRates %v accepted", bad)
		}
	}
}
