//go:build amd64 || arm64

package prefetch

import "unsafe"

// Line prefetches the cache line of *p (prefetch_amd64.s, prefetch_arm64.s).
//
//go:noescape
func Line(p unsafe.Pointer)
