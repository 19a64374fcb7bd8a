package flows

import (
	"math/rand/v2"
	"runtime"
)

// The dispatcher's state for stickiness, in bytes. The simulator keeps
// flows in a slice (it never looks a flow up by name), but a dispatcher
// sees packets carrying a flow identifier and must look it up: sticky needs
// a hash map from the flow's 64-bit hash to its server (int32) for every
// flow in progress away from its hashed server (Result.TableSize: the others
// are found by the hash alone), bins an array of B servers (int32, 4 bytes
// a bin: the simulator's own binSrv). FlowTableBytes measures the map.

// BinBytes is the state of a bin: its server, an int32.
const BinBytes = 4

// FlowTableBytes measures the heap bytes per entry of a Go
// map[uint64]int32 holding entries flows (random 64-bit keys, the map grown
// by insertion as a dispatcher's would be, not presized): the live heap
// after a GC with the map, minus the live heap without it, over entries.
// Below 10^6 entries it builds ceil(10^6/entries) such maps and divides by
// all their entries, so that the heap's other noise (a few KB) stays below
// 1%. It allocates about 40 bytes an entry (at least 40 MB); entries below
// 1 are taken as 1. Go's maps (Swiss tables since Go 1.24) store groups of
// 8 slots, each slot a key and a value (16 bytes here, the int32 padded)
// and a control byte, and grow by doubling at 7/8 full: 19.4 to 38.9 bytes
// an entry, by where the count falls in the doubling.
func FlowTableBytes(entries int) float64 {
	entries = max(entries, 1)
	copies := max(1, (1_000_000+entries-1)/entries)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	maps := make([]map[uint64]int32, copies)
	src := rand.NewPCG(1, 2)
	for c := range maps {
		m := make(map[uint64]int32)
		for i := range entries {
			m[src.Uint64()] = int32(i)
		}
		maps[c] = m
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(maps)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(entries*copies)
}
