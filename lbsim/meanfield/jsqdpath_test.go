package meanfield

import (
	"context"
	"math"
	"testing"
)

// From the fixed point the path stays there; from an empty system and from
// five tasks per server it approaches it by t = 200, keeping 1 >= q_1 >= q_2 >= ... and
// conserving work: d/dt sum_i q_i = lambda - q_1 (checked by the trapezoid rule).
func TestJSQdPath(t *testing.T) {
	const lambda = 0.9
	fp, _, err := JSQdFixedPoint(lambda, 2, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	times := make([]float64, 4001)
	for k := range times {
		times[k] = 0.05 * float64(k)
	}
	at := func(q []float64, i int) float64 {
		if i < len(q) {
			return q[i]
		}
		return 0
	}
	for _, start := range []struct {
		name string
		q0   []float64
		tol  float64 // distance to the fixed point at t = 200
	}{{"fixed point", fp, 1e-8}, {"empty", nil, 1e-6}, {"five tasks", []float64{1, 1, 1, 1, 1}, 1e-6}} {
		p, err := JSQdPath(context.Background(), lambda, 2, start.q0, times)
		if err != nil {
			t.Fatalf("%s: %v", start.name, err)
		}
		if len(p.Y) != len(times) || p.Levels < len(start.q0) {
			t.Fatalf("%s: %d rows, %d levels", start.name, len(p.Y), p.Levels)
		}
		if p.OrderViolation > 1e-8 {
			t.Errorf("%s: order violation %g", start.name, p.OrderViolation)
		}
		last := p.Y[len(p.Y)-1]
		d := 0.0
		for i := range p.Levels {
			d = math.Max(d, math.Abs(last[i]-at(fp, i)))
		}
		if d > start.tol {
			t.Errorf("%s: distance to the fixed point at t = 200 is %g, want <= %g", start.name, d, start.tol)
		}
		sum := func(q []float64) float64 {
			s := 0.0
			for _, v := range q {
				s += v
			}
			return s
		}
		for k := 1; k < len(times); k++ {
			h := times[k] - times[k-1]
			lhs := sum(p.Y[k]) - sum(p.Y[k-1])
			rhs := h * (lambda - (p.Y[k][0]+p.Y[k-1][0])/2)
			if math.Abs(lhs-rhs) > 1e-3*h {
				t.Fatalf("%s: work balance off at t = %g: %g against %g", start.name, times[k], lhs, rhs)
			}
		}
	}
	if _, err := JSQdPath(context.Background(), 1.2, 2, nil, times); err == nil {
		t.Error("lambda = 1.2: no error")
	}
}
