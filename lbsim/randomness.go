package lbsim

import (
	"math"
	"math/rand/v2"
	"sync"
)

// WalkSampleBits returns the entropy, in bits, of the walkers' moves at one
// arrival of WalkJSQd on a k-regular graph: d*steps*log2(k-1) for the
// non-backtracking walk (0 when k <= 2: a cycle is walked deterministically)
// and d*steps*log2(k) for the simple walk. Tie-breaking, which depends on the
// state, is not included; CountDraws measures everything a policy draws.
// It returns NaN for d < 1, steps < 1 or k < 1.
func WalkSampleBits(walk Walk, k, d, steps int) float64 {
	if d < 1 || steps < 1 || k < 1 {
		return math.NaN()
	}
	choices := float64(k)
	if walk == NonBacktracking {
		choices = max(float64(k-1), 1)
	}
	return float64(d*steps) * math.Log2(choices)
}

// IIDSampleBits returns the entropy, in bits, of the d servers that JSQ(d)
// samples uniformly among n: log2(n^d) with replacement, log2(n (n-1) ...
// (n-d+1)) without (an ordered sample; the order is what a sampler draws).
// It returns NaN unless 1 <= d and (with replacement or d <= n).
func IIDSampleBits(n, d int, s Sampling) float64 {
	if d < 1 || n < 1 || s != WithReplacement && d > n {
		return math.NaN()
	}
	bits := 0.0
	for i := range d {
		if s == WithReplacement {
			bits += math.Log2(float64(n))
		} else {
			bits += math.Log2(float64(n - i))
		}
	}
	return bits
}

// A DrawCounter is a Policy that dispatches exactly like the policy it wraps
// and counts the 64-bit words that policy draws from the replication's
// random stream. The wrapped policy draws through a counting source that
// forwards every call to the stream, so a run with the counter gives the same
// results, to the bit, as a run without it (the engine's own draws, for event
// times and departures, are not counted). The exceptions are JSQ, JSQ(2)
// without replacement, JSQ(2) and JSQ(3) with replacement and two local
// choices (neighbour-jsqd with d = 2), which the per-server engine dispatches
// inline from its own draws (loopArrivals): wrapped, they go through their
// Dispatch, with the same law but other draws. Make one with CountDraws, run a
// scenario with it, then read Words and Dispatches: their ratio is the
// randomness a policy really consumes per task, next to the entropy figures
// of WalkSampleBits and IIDSampleBits.
type DrawCounter struct {
	wrapped

	mu       sync.Mutex
	children []*countingPolicy
}

// CountDraws wraps p in a DrawCounter. Runs that use the counter each add to
// its counts; use a fresh counter per measurement.
func CountDraws(p Policy) *DrawCounter { return &DrawCounter{wrapped: wrapped{p}} }

// Name and Uses (from wrapped) forward to the wrapped policy, so the engine
// serves it as it would unwrapped, bar the inline dispatch rules. (A
// DrawCounter is not an OccupancyRouter: it runs on the per-server or
// general engine.)

// Prepare prepares the wrapped policy for one replication, with its own
// counts.
func (c *DrawCounter) Prepare(sys System) (Policy, error) {
	p, err := c.prepareInner(sys)
	if err != nil {
		return nil, err
	}
	cp := &countingPolicy{wrapped: wrapped{p}}
	cp.rnd = rand.New(&cp.src)
	c.mu.Lock()
	c.children = append(c.children, cp)
	c.mu.Unlock()
	return cp, nil
}

// Dispatch is never called by the engines, which dispatch with the value
// Prepare returns; called directly it dispatches with the wrapped policy,
// uncounted.
func (c *DrawCounter) Dispatch(s *State, origin int, r *rand.Rand) int {
	return c.inner.Dispatch(s, origin, r)
}

// Words returns the number of 64-bit words the wrapped policy drew.
func (c *DrawCounter) Words() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, cp := range c.children {
		n += cp.src.words
	}
	return n
}

// Dispatches returns the number of tasks dispatched.
func (c *DrawCounter) Dispatches() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, cp := range c.children {
		n += cp.dispatches
	}
	return n
}

// BitsPerDispatch returns 64*Words()/Dispatches(), the random bits drawn per
// task (NaN before any dispatch).
func (c *DrawCounter) BitsPerDispatch() float64 {
	d := c.Dispatches()
	if d == 0 {
		return math.NaN()
	}
	return 64 * float64(c.Words()) / float64(d)
}

// countingSource forwards to the replication's stream and counts the words.
type countingSource struct {
	r     *rand.Rand
	words int64
}

func (s *countingSource) Uint64() uint64 {
	s.words++
	return s.r.Uint64()
}

type countingPolicy struct {
	wrapped
	src        countingSource
	rnd        *rand.Rand
	dispatches int64
}

func (c *countingPolicy) Dispatch(s *State, origin int, r *rand.Rand) int {
	c.src.r = r
	c.dispatches++
	return c.inner.Dispatch(s, origin, c.rnd)
}
