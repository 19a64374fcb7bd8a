package lbsim

// prefetch asks the CPU to bring the cache line of *p into the cache without
// waiting for it (PREFETCHT0, prefetch_amd64.s). Unlike a load, it never
// stalls the loop, and it cannot fault. Go has no prefetch intrinsic outside
// the runtime, hence the two-instruction assembly function.
//
//go:noescape
func prefetch(p *int32)
