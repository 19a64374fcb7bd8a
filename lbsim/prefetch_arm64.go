package lbsim

// prefetch asks the CPU to bring the cache line of *p into the cache without
// waiting for it (PRFM PLDL1KEEP, prefetch_arm64.s); see prefetch_amd64.go.
//
//go:noescape
func prefetch(p *int32)
