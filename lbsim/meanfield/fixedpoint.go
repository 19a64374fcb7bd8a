package meanfield

import (
	"fmt"
	"math"
)

// checkLambdaD validates the load and the number of choices.
func checkLambdaD(lambda float64, d int) error {
	if math.IsNaN(lambda) || lambda <= 0 || lambda >= 1 {
		return fmt.Errorf("lambda = %v: must be in (0, 1)", lambda)
	}
	if d < 1 {
		return fmt.Errorf("d = %d: must be at least 1", d)
	}
	return nil
}

// jsqdExponent returns (d^i - 1)/(d - 1), which is i for d = 1.
func jsqdExponent(d, i int) float64 {
	if d == 1 {
		return float64(i)
	}
	return (math.Pow(float64(d), float64(i)) - 1) / float64(d-1)
}

// JSQdFixedPoint returns the fixed point q_i = lambda^((d^i-1)/(d-1)),
// i = 1, 2, ..., of the JSQ(d) mean-field ODE, up to the last level with
// q_i >= tol (tol in (0, 1); 1e-12 if 0), and the mass sum_{i beyond} q_i it
// leaves out, which is the truncation error of the mean number of tasks.
func JSQdFixedPoint(lambda float64, d int, tol float64) (q []float64, neglected float64, err error) {
	if err := checkLambdaD(lambda, d); err != nil {
		return nil, 0, err
	}
	if tol == 0 {
		tol = 1e-12
	}
	if math.IsNaN(tol) || tol <= 0 || tol >= 1 {
		return nil, 0, fmt.Errorf("tol = %v: must be in (0, 1)", tol)
	}
	for i := 1; ; i++ {
		qi := math.Pow(lambda, jsqdExponent(d, i))
		if qi < tol {
			// Sum the tail until its terms no longer change the total.
			for k := i; qi > 0 && k < i+10000; k++ {
				neglected += qi
				qi = math.Pow(lambda, jsqdExponent(d, k+1))
				if qi < neglected*1e-17 {
					break
				}
			}
			return q, neglected, nil
		}
		q = append(q, qi)
	}
}

// JSQdMeanSojourn returns T_d(lambda) = sum_{i>=1} lambda^((d^i-d)/(d-1)), the
// mean time in system in the mean-field limit (by Little's law, the mean
// number of tasks per server sum_i q_i divided by lambda), summed until the
// terms fall below 1e-16 of the total.
func JSQdMeanSojourn(lambda float64, d int) (float64, error) {
	if err := checkLambdaD(lambda, d); err != nil {
		return 0, err
	}
	if d == 1 {
		return 1 / (1 - lambda), nil
	}
	total := 0.0
	for i := 1; i < 200; i++ {
		term := math.Pow(lambda, (math.Pow(float64(d), float64(i))-float64(d))/float64(d-1))
		total += term
		if term < 1e-16*total {
			break
		}
	}
	return total, nil
}

// JSQFixedPoint returns the fluid fixed point of JSQ (and of JSQ(d(N)) with
// d(N) -> infinity): q_1 = lambda, q_i = 0 for i >= 2.
func JSQFixedPoint(lambda float64) ([]float64, error) {
	if err := checkLambdaD(lambda, 1); err != nil {
		return nil, err
	}
	return []float64{lambda}, nil
}
