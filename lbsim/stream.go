package lbsim

import (
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// Stream returns the random stream for a root seed and a path of indices (for
// example a sweep point and a replication). It is mc.Stream, kept here for the
// callers of package lbsim: streams for different paths are statistically
// independent PCG generators; the same seed and path always give the same
// stream, whatever runs in parallel.
func Stream(seed uint64, path ...uint64) *rand.Rand { return mc.Stream(seed, path...) }
