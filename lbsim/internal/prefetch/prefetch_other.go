//go:build !amd64 && !arm64

package prefetch

import "unsafe"

// Line does nothing where no assembly version exists.
func Line(unsafe.Pointer) {}
