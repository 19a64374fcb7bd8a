package admission

import (
	"math"
	"testing"
)

// eta_L <= eta* <= eta_U for the built-in families and a smooth Go revenue
// over a grid of beta; at beta = 0 the linear bounds are the stated
// quadratics (1e-9).
func TestEtaBounds(t *testing.T) {
	revenues := []Revenue{Linear{A: 1, B: 1}, Linear{A: 0.2, B: 3}, Linear{A: 4, B: 0.5},
		Exponential{A: 1, B: 1}, Exponential{A: 3, B: 0.3},
		Func(func(x float64) float64 {
			if x <= 0 {
				return 1 / (1 + x*x)
			}
			return math.Exp(-x * x)
		})}
	for _, beta := range []float64{-2, -1, -0.3, 0, 0.3, 1, 2} {
		l := Limit{Beta: beta}
		for _, r := range revenues {
			lo, hi, err := l.EtaBounds(r)
			if err != nil {
				t.Fatal(err)
			}
			opt, err := l.OptimalEta(r)
			if err != nil {
				t.Fatal(err)
			}
			if !(lo <= opt.Eta+1e-9 && opt.Eta <= hi+1e-9) || math.IsInf(hi, 0) {
				t.Errorf("beta=%v %v: bounds [%v, %v] miss eta* = %v", beta, r, lo, hi, opt.Eta)
			}
			if opt.Eta > 0 && !(lo > 0) {
				t.Errorf("beta=%v %v: lower bound %v is trivial for eta* = %v", beta, r, lo, opt.Eta)
			}
		}
	}
	p := normPDF(0)
	for _, ab := range [][2]float64{{1, 1}, {0.2, 3}, {4, 0.5}} {
		a, b := ab[0], ab[1]
		lo, hi, _ := Limit{}.EtaBounds(Linear{A: a, B: b})
		wantHi := 2 * a * p / b
		// the root of b p eta^2 + b eta/2 - a p = 0
		wantLo := (-b/2 + math.Sqrt(b*b/4+4*b*p*a*p)) / (2 * b * p)
		if math.Abs(hi-wantHi) > 1e-9 || math.Abs(lo-wantLo) > 1e-9 {
			t.Errorf("a=%v b=%v beta=0: bounds [%v, %v], want [%v, %v]", a, b, lo, hi, wantLo, wantHi)
		}
	}
}
