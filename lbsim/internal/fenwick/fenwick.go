// Package fenwick samples a busy server with probability proportional to its
// service rate in O(log N) per draw or update: a Fenwick (binary indexed)
// tree over integer-scaled rates, for the heterogeneous departures of the
// per-server engine.
package fenwick

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// BusyRates samples a busy server with probability proportional to its service
// rate in O(log N), for heterogeneous departures. Rates are held as integers
// (mu_j scaled so the total fits in 62 bits; relative rounding below 2^-30 for
// N < 2^31), so the running total never drifts however many updates it sees.
type BusyRates struct {
	tree  []uint64 // Fenwick tree over the busy servers' scaled rates
	w     []uint64 // scaled rate of each server
	total uint64   // sum over busy servers
	scale float64  // scaled units per unit of rate
	top   int      // largest power of two <= len(w)
}

// New returns the sampler for servers with the given positive service rates,
// none of them busy.
func New(rates []float64) *BusyRates {
	n := len(rates)
	maxMu := 0.0
	for _, mu := range rates {
		maxMu = math.Max(maxMu, mu)
	}
	// Every weight < 2^(62 - bits(n)), so the total of n weights < 2^62.
	scale := math.Ldexp(1, 62-bits.Len(uint(n))) / maxMu
	b := &BusyRates{tree: make([]uint64, n+1), w: make([]uint64, n), scale: scale}
	for j, mu := range rates {
		b.w[j] = max(1, uint64(mu*scale))
	}
	b.top = 1 << (bits.Len(uint(n)) - 1)
	return b
}

// Rate returns the total service rate of the busy servers.
func (b *BusyRates) Rate() float64 { return float64(b.total) / b.scale }

// SetBusy marks server j, which is idle, as busy.
func (b *BusyRates) SetBusy(j int) { b.add(j, b.w[j]); b.total += b.w[j] }

// SetIdle marks server j, which is busy, as idle.
func (b *BusyRates) SetIdle(j int) { b.add(j, -b.w[j]); b.total -= b.w[j] }

func (b *BusyRates) add(j int, delta uint64) {
	for i := j + 1; i < len(b.tree); i += i & -i {
		b.tree[i] += delta // wraps for negative deltas, as intended
	}
}

// Sample returns a busy server chosen with probability proportional to its
// rate; at least one server must be busy.
func (b *BusyRates) Sample(r *rand.Rand) int {
	u := r.Uint64N(b.total)
	pos := 0
	for step := b.top; step > 0; step >>= 1 {
		if next := pos + step; next < len(b.tree) && b.tree[next] <= u {
			pos = next
			u -= b.tree[next]
		}
	}
	return pos
}
