package meanfield

import (
	"math"
	"testing"
)

// Published values (MODELS.md section 1; Mitzenmacher 2001, Table 1), given to
// four decimals, hence the tolerance 5e-5.
func TestJSQdMeanSojournPublished(t *testing.T) {
	for _, c := range []struct {
		lambda float64
		d      int
		want   float64
	}{{0.9, 2, 2.6141}, {0.9, 3, 2.0279}, {0.5, 2, 1.2657}, {0.9, 1, 10}} {
		got, err := JSQdMeanSojourn(c.lambda, c.d)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 5e-5 {
			t.Errorf("T_%d(%v) = %.5f, want %.4f", c.d, c.lambda, got, c.want)
		}
	}
}

// The fixed point is a zero of the mean-field drift, and Little's law links it
// to T_d: sum_i q_i = lambda T_d.
func TestJSQdFixedPointIsStationary(t *testing.T) {
	for _, d := range []int{1, 2, 3, 5} {
		lambda := 0.9
		q, neglected, err := JSQdFixedPoint(lambda, d, 1e-300)
		if err != nil {
			t.Fatal(err)
		}
		at := func(i int) float64 {
			switch {
			case i == 0:
				return 1
			case i <= len(q):
				return q[i-1]
			}
			return 0
		}
		sum := 0.0
		for i := 1; i <= len(q); i++ {
			drift := lambda*(math.Pow(at(i-1), float64(d))-math.Pow(at(i), float64(d))) - (at(i) - at(i+1))
			if math.Abs(drift) > 1e-12 {
				t.Errorf("d=%d: drift at level %d = %g", d, i, drift)
			}
			sum += q[i-1]
		}
		T, _ := JSQdMeanSojourn(lambda, d)
		if math.Abs(sum+neglected-lambda*T) > 1e-9*lambda*T {
			t.Errorf("d=%d: sum q_i = %.12f (+%.3g neglected), lambda T_d = %.12f", d, sum, neglected, lambda*T)
		}
	}
}

func TestBadInput(t *testing.T) {
	if _, _, err := JSQdFixedPoint(1, 2, 0); err == nil {
		t.Error("lambda = 1 accepted")
	}
	if _, _, err := JSQdFixedPoint(0.5, 0, 0); err == nil {
		t.Error("d = 0 accepted")
	}
	if _, err := JSQdMeanSojourn(math.NaN(), 2); err == nil {
		t.Error("NaN accepted")
	}
}
