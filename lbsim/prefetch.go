package lbsim

import (
	"unsafe"

	pf "github.com/lbsim/notebooks/lbsim/internal/prefetch"
)

// prefetch asks the CPU to bring the cache line of *p into the cache without
// waiting for it (package internal/prefetch). Unlike a load, it never stalls
// the loop, and it cannot fault.
func prefetch(p *int32) { pf.Line(unsafe.Pointer(p)) }
