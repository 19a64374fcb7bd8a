package redundancy

import (
	"fmt"

	"github.com/lbsim/notebooks/lbsim/pairs"
)

// The light-traffic law: not only E[N] but the whole distribution of the
// number of tasks N as a power series in the total arrival rate Lambda.
// With f_n(U) = Lambda^n g_n(U) and G_n = sum_U g_n(U) (G_0 = 1),
//
//	P(N = n) = G_n Lambda^n / sum_m G_m Lambda^m,
//	P(N >= n) = sum_{m >= n} G_m Lambda^m / sum_m G_m Lambda^m
//	          = G_n Lambda^n + (G_{n+1} - G_1 G_n) Lambda^{n+1} + O(Lambda^{n+2}),
//
// so in light traffic one pair distribution has a smaller P(N >= n) than
// another, at every n, when its series is lexicographically smaller at
// every n: for n >= 2 when its G_n is smaller, and for n = 1, where
// G_1 = 1/2 for every pair distribution with unit rates (a lone task is
// served by both servers of its pair), when its G_2 - G_1^2 is.

// LightTrafficLaw returns G_0..G_k: P(N = n) = G_n Lambda^n (1 + O(Lambda))
// in the total arrival rate Lambda = lambda*N (rates nil: all 1). G_n is the
// sum over the sequences c_1..c_n of classes of prod_i p_{c_i} /
// mu(S_{c_1} u ... u S_{c_i}), computed level by level on the unions.
func LightTrafficLaw(dist *pairs.Dist, rates []float64, k int) ([]float64, error) {
	s, err := lightSystem(dist, rates, k, "levels")
	if err != nil {
		return nil, err
	}
	return s.levelSums(k), nil
}

// levelSums is G_0..G_k.
func (s *system) levelSums(k int) []float64 {
	gs := make([]float64, k+1)
	f := make([]float64, len(s.unions))
	g := make([]float64, len(s.unions))
	f[0] = 1
	gs[0] = 1
	for n := 1; n <= k; n++ {
		s.level(f, g, 1)
		f, g = g, f
		for _, x := range f {
			gs[n] += x
		}
	}
	return gs
}

// TailSeries returns t_0..t_K, K = len(G) - 1, the coefficients of
// P(N >= n) = sum_m t_m Lambda^m + O(Lambda^{K+1}) from G_0..G_K
// (LightTrafficLaw): the series sum_{m >= n} G_m x^m divided by
// sum_m G_m x^m. t_m is 0 for m < n and t_n = G_n. For n = 0 it is 1, 0, 0...
func TailSeries(G []float64, n int) ([]float64, error) {
	if len(G) == 0 || G[0] != 1 {
		return nil, fmt.Errorf("redundancy: TailSeries needs G_0 = 1, got %v", G)
	}
	if n < 0 || n >= len(G) {
		return nil, fmt.Errorf("redundancy: TailSeries: n = %d outside 0..%d", n, len(G)-1)
	}
	K := len(G) - 1
	t := make([]float64, K+1)
	// t = A / G with A_m = G_m for m >= n, 0 below: t_m = A_m - sum_{j=1..m} G_j t_{m-j}.
	for m := 0; m <= K; m++ {
		if m >= n {
			t[m] = G[m]
		}
		for j := 1; j <= m; j++ {
			t[m] -= G[j] * t[m-j]
		}
	}
	return t, nil
}

// TwoTaskA2 is the second light-traffic coefficient of E[N] with unit rates
// and pairs, from the two-task states of the product form directly:
// a_2 = sum_{c,c'} p_c p_c' / |S_c u S_c'| - 1/4 (LightTraffic computes it
// by dividing power series; the two agree).
func TwoTaskA2(dist *pairs.Dist) (float64, error) {
	if dist == nil {
		return 0, fmt.Errorf("redundancy: TwoTaskA2: no pair distribution")
	}
	if dist.D() != 2 {
		return 0, fmt.Errorf("redundancy: TwoTaskA2 is for pairs, not sets of %d", dist.D())
	}
	sets, err := dist.Sets()
	if err != nil {
		return 0, err
	}
	s := 0.0
	for _, a := range sets {
		for _, b := range sets {
			u := 4
			for _, i := range a.Servers {
				for _, j := range b.Servers {
					if i == j {
						u--
					}
				}
			}
			s += a.P * b.P / float64(u)
		}
	}
	return s - 0.25, nil
}
