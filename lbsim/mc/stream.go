package mc

import "math/rand/v2"

// Stream returns the random stream for a root seed and a path of indices (for
// example a sweep point and a replication). Streams for different paths are
// statistically independent PCG generators; the same seed and path always give
// the same stream, whatever runs in parallel.
func Stream(seed uint64, path ...uint64) *rand.Rand { return rand.New(Source(seed, path...)) }

// Source is the generator behind Stream(seed, path...): rand.New(Source(seed,
// path...)) draws exactly the numbers Stream(seed, path...) draws. Engines keep
// it next to the *rand.Rand built on it and draw their own numbers from it
// directly, without an interface call per draw.
func Source(seed uint64, path ...uint64) *rand.PCG {
	h1 := SplitMix(seed ^ 0x6a09e667f3bcc909)
	h2 := SplitMix(seed ^ 0xbb67ae8584caa73b)
	for _, p := range path {
		h1 = SplitMix(h1 ^ SplitMix(p+0x3c6ef372fe94f82b))
		h2 = SplitMix(h2 ^ SplitMix(p+0xa54ff53a5f1d36f1))
	}
	return rand.NewPCG(h1, h2)
}

// SplitMix is the SplitMix64 finaliser, a bijective 64-bit mixer (Steele, Lea
// and Flood, "Fast splittable pseudorandom number generators", 2014).
func SplitMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
