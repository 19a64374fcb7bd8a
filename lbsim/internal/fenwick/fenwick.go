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
	b := &BusyRates{tree: make([]uint64, n+1), w: make([]uint64, n)}
	b.top = 1 << (bits.Len(uint(n)) - 1)
	b.Reset(rates)
	return b
}

// Reset gives the servers new positive rates (as many as before) and marks
// them all idle, reusing the memory: for a sampler whose weights change now
// and then (the activation rates of a CSMA network after each update of its
// parameters).
func (b *BusyRates) Reset(rates []float64) {
	n := len(b.w)
	maxMu := 0.0
	for _, mu := range rates[:n] {
		maxMu = math.Max(maxMu, mu)
	}
	// Every weight < 2^(62 - bits(n)), so the total of n weights < 2^62.
	b.scale = math.Ldexp(1, 62-bits.Len(uint(n))) / maxMu
	for j, mu := range rates[:n] {
		b.w[j] = max(1, uint64(mu*b.scale))
	}
	clear(b.tree)
	b.total = 0
}

// Scale returns the scaled units per unit of rate: Total()/Scale() is
// Rate().
func (b *BusyRates) Scale() float64 { return b.scale }

// Total returns the total scaled weight of the busy servers: Pick takes a
// uniform integer below it.
func (b *BusyRates) Total() uint64 { return b.total }

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
func (b *BusyRates) Sample(r *rand.Rand) int { return b.Pick(r.Uint64N(b.total)) }

// Pick returns the busy server that the uniform integer u in [0, Total())
// selects, each with probability proportional to its rate: for callers that
// draw u from their own source.
func (b *BusyRates) Pick(u uint64) int {
	pos := 0
	for step := b.top; step > 0; step >>= 1 {
		if next := pos + step; next < len(b.tree) && b.tree[next] <= u {
			pos = next
			u -= b.tree[next]
		}
	}
	return pos
}
