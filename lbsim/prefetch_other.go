//go:build !amd64 && !arm64

package lbsim

// prefetch is a no-op where no assembly version exists: the engine is then
// correct, only slower at large N (see lookahead).
func prefetch(*int32) {}
