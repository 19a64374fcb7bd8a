// Package prefetch asks the CPU to bring a cache line into the cache without
// waiting for it: the engines issue it for the queue lengths and ring slots
// they will read a few events later. Go has no prefetch intrinsic outside
// the runtime, hence the two-instruction assembly functions (PREFETCHT0 on
// amd64, PRFM PLDL1KEEP on arm64); elsewhere Line does nothing, and the
// engines are then correct, only slower at large N. Unlike a load, a
// prefetch never stalls and cannot fault.
package prefetch
