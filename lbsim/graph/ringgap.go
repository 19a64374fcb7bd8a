package graph

import "math"

// RingGap is the spectral gap lambda_1 - lambda_2 of the ring lattice
// Ring(n, k) (degree 2k), in closed form: its adjacency eigenvalues are
// 2 sum_{j<=k} cos(2 pi j m / n), m = 0..n-1, so the gap is
// 2 sum_{j<=k} (1 - cos(2 pi j / n)), about 4 pi^2 (sum_{j<=k} j^2) / n^2.
// Lanczos (Spectrum beyond DenseLimit) cannot resolve a gap this small.
// It needs 1 <= k and 2k < n (for k >= n/4 the second eigenvalue is not at
// m = 1 and the formula does not apply: then it returns NaN).
func RingGap(n, k int) float64 {
	if k < 1 || 4*k >= n {
		return math.NaN()
	}
	gap := 0.0
	for j := 1; j <= k; j++ {
		gap += 2 * (1 - math.Cos(2*math.Pi*float64(j)/float64(n)))
	}
	return gap
}
