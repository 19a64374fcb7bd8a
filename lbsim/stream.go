package lbsim

import "math/rand/v2"

// Stream returns the random stream for a root seed and a path of indices (for
// example a sweep point and a replication). Streams for different paths are
// statistically independent PCG generators; the same seed and path always give
// the same stream, whatever runs in parallel.
func Stream(seed uint64, path ...uint64) *rand.Rand { return rand.New(streamSource(seed, path...)) }

// streamSource is the generator behind Stream(seed, path...). The engines keep
// it next to the *rand.Rand built on it and draw their own numbers from it
// directly, without an interface call per draw.
func streamSource(seed uint64, path ...uint64) *rand.PCG {
	h1 := splitmix(seed ^ 0x6a09e667f3bcc909)
	h2 := splitmix(seed ^ 0xbb67ae8584caa73b)
	for _, p := range path {
		h1 = splitmix(h1 ^ splitmix(p+0x3c6ef372fe94f82b))
		h2 = splitmix(h2 ^ splitmix(p+0xa54ff53a5f1d36f1))
	}
	return rand.NewPCG(h1, h2)
}

// splitmix is the SplitMix64 finaliser, a bijective 64-bit mixer.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
