package exact

import (
	"context"
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim"
)

// chain is the truncated CTMC of one Problem at one cap: its state space and
// the sparse generator in the form the solver needs.
//
// A state is the vector of queue lengths L (each in 0..k) and the policy state s
// (in 0..ps-1). Its index is s*size + sum_j L_j*stride[j] with stride[j] =
// (k+1)^j and size = (k+1)^n, so server 0 is the fastest-varying digit.
//
// Departures are structural (server j moves from L_j to L_j-1 at rate mu_j and
// leaves the policy state alone), so they are not stored: the solver finds the
// departures into state x at x + stride[j]. Arrival transitions depend on the
// policy and are stored transposed (compressed sparse rows by target state):
// the arrivals into state t come from inSrc[inPtr[t]:inPtr[t+1]] at rates
// inRate[...], and inServer records the server the task joined, or -1 when the
// task was lost at the cap and only the policy state changed. Transitions from
// a state to itself (a lost task that leaves the policy state unchanged) are
// dropped: they do not affect the stationary distribution.
type chain struct {
	n, k   int // servers and cap
	ps     int // policy states
	size   int // (k+1)^n
	states int // size*ps
	stride []int
	mu     []float64

	out      []float64 // total rate out of each state, self-loops excluded
	inPtr    []int
	inSrc    []int32
	inRate   []float64
	inServer []int8

	lambdaTotal float64 // lambda*N, the offered arrival rate
}

// origin is one place where tasks appear and the rate at which they do.
type origin struct {
	server int // -1 when the policy ignores origins
	rate   float64
}

// stateCount returns ps*(k+1)^n, or -1 if that exceeds limit.
func stateCount(n, k, ps, limit int) int {
	c := ps
	if c > limit {
		return -1
	}
	for range n {
		if c > limit/(k+1) {
			return -1
		}
		c *= k + 1
	}
	if c > limit {
		return -1
	}
	return c
}

// maxCap returns the largest cap k >= 0 with ps*(k+1)^n <= limit (0 if even k=1
// does not fit).
func maxCap(n, ps, limit int) int {
	if stateCount(n, 1, ps, limit) < 0 {
		return 0
	}
	// Start from the floating-point estimate and correct it exactly.
	k := int(math.Pow(float64(limit)/float64(ps), 1/float64(n))) - 1
	k = max(k, 1)
	for k > 1 && stateCount(n, k, ps, limit) < 0 {
		k--
	}
	for stateCount(n, k+1, ps, limit) >= 0 {
		k++
	}
	return k
}

// arrival is one merged outgoing arrival transition of a state.
type arrival struct {
	target int
	server int // -1 for a lost task
	rate   float64
}

// builder calls the policy and validates what it returns.
type builder struct {
	sys     lbsim.System
	pol     lbsim.ExactRouter
	origins []origin
	c       *chain
	scratch []int
	choices []lbsim.Choice
	arr     []arrival
}

// arrivals returns the merged arrival transitions out of state idx (lengths l,
// policy state s), self-loops excluded, in b.arr.
func (b *builder) arrivals(idx int, l []int, s int) ([]arrival, error) {
	c := b.c
	b.arr = b.arr[:0]
	for _, o := range b.origins {
		copy(b.scratch, l) // the policy gets a copy it may not keep or change
		b.choices = b.pol.Route(b.sys, b.scratch, s, o.server, b.choices[:0])
		if err := b.check(l, s, o.server); err != nil {
			return nil, err
		}
		for _, ch := range b.choices {
			if ch.P == 0 {
				continue
			}
			t := idx + (ch.Next-s)*c.size
			server := ch.Server
			if l[ch.Server] < c.k {
				t += c.stride[ch.Server]
			} else {
				server = -1 // lost at the cap
			}
			if t == idx {
				continue
			}
			r := o.rate * ch.P
			merged := false
			for i := range b.arr {
				if b.arr[i].target == t {
					b.arr[i].rate += r
					merged = true
					break
				}
			}
			if !merged {
				b.arr = append(b.arr, arrival{target: t, server: server, rate: r})
			}
		}
	}
	return b.arr, nil
}

// routeSumTol is how far the probabilities returned by one Route call may sum
// from 1.
const routeSumTol = 1e-9

// check validates b.choices, just returned by Route for lengths l, policy state
// s and origin o.
func (b *builder) check(l []int, s, o int) error {
	where := func() string {
		return fmt.Sprintf("policy %q: Route(lengths=%v, pstate=%d, origin=%d)", policyName(b.pol), l, s, o)
	}
	sum := 0.0
	for _, ch := range b.choices {
		if ch.Server < 0 || ch.Server >= b.c.n {
			return fmt.Errorf("%s returned server %d, want 0..%d", where(), ch.Server, b.c.n-1)
		}
		if ch.Next < 0 || ch.Next >= b.c.ps {
			return fmt.Errorf("%s returned next policy state %d, want 0..%d", where(), ch.Next, b.c.ps-1)
		}
		if !(ch.P >= 0) || math.IsInf(ch.P, 0) {
			return fmt.Errorf("%s returned probability %v for server %d, want a finite value >= 0", where(), ch.P, ch.Server)
		}
		sum += ch.P
	}
	if math.Abs(sum-1) > routeSumTol {
		return fmt.Errorf("%s returned probabilities summing to %v, want 1 (within %g)", where(), sum, routeSumTol)
	}
	return nil
}

// buildChain enumerates the states of the chain with cap k and builds its
// generator. It calls Route twice per state and origin: once to count the
// arrivals into each state, once to store them.
func buildChain(ctx context.Context, sys lbsim.System, lambda float64, pol lbsim.ExactRouter, ps, k int, origins []origin) (c *chain, err error) {
	n := sys.N
	c = &chain{n: n, k: k, ps: ps, stride: make([]int, n), mu: make([]float64, n), lambdaTotal: lambda * float64(n)}
	c.size = 1
	for j := range n {
		c.stride[j] = c.size
		c.size *= k + 1
		c.mu[j] = sys.Rate(j)
	}
	c.states = c.size * ps
	b := &builder{sys: sys, pol: pol, origins: origins, c: c, scratch: make([]int, n)}

	l := make([]int, n)
	s := 0
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("policy %q: Route(lengths=%v, pstate=%d) panicked: %v", policyName(pol), l, s, r)
		}
	}()

	c.out = make([]float64, c.states)
	count := make([]int, c.states+1)
	// Pass 1: out rates and the number of arrivals into each state.
	for idx := range c.states {
		if idx&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s = idx / c.size
		arr, err := b.arrivals(idx, l, s)
		if err != nil {
			return nil, err
		}
		out := 0.0
		for _, a := range arr {
			count[a.target+1]++
			out += a.rate
		}
		for j, lj := range l {
			if lj > 0 {
				out += c.mu[j]
			}
		}
		c.out[idx] = out
		next(l, k)
	}
	for i := 1; i <= c.states; i++ {
		count[i] += count[i-1]
	}
	nnz := count[c.states]
	c.inPtr = count
	c.inSrc = make([]int32, nnz)
	c.inRate = make([]float64, nnz)
	c.inServer = make([]int8, nnz)
	fill := make([]int, c.states)
	copy(fill, c.inPtr[:c.states])
	clear(l)
	// Pass 2: store them.
	for idx := range c.states {
		if idx&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s = idx / c.size
		arr, err := b.arrivals(idx, l, s)
		if err != nil {
			return nil, err
		}
		for _, a := range arr {
			f := fill[a.target]
			if f >= c.inPtr[a.target+1] {
				return nil, fmt.Errorf("policy %q: Route is not deterministic (two calls with the same arguments gave different transitions)", policyName(pol))
			}
			c.inSrc[f] = int32(idx)
			c.inRate[f] = a.rate
			c.inServer[f] = int8(a.server)
			fill[a.target] = f + 1
		}
		next(l, k)
	}
	for t := range c.states {
		if fill[t] != c.inPtr[t+1] {
			return nil, fmt.Errorf("policy %q: Route is not deterministic (two calls with the same arguments gave different transitions)", policyName(pol))
		}
	}
	return c, nil
}

// next advances the queue lengths l to those of the next state index (server 0
// is the fastest digit); it wraps to all zeros after (k,...,k).
func next(l []int, k int) {
	for j := range l {
		if l[j] < k {
			l[j]++
			return
		}
		l[j] = 0
	}
}

// nextTotal is next that also maintains the total sum of l.
func nextTotal(l []int, k int, total *int) {
	for j := range l {
		if l[j] < k {
			l[j]++
			*total++
			return
		}
		*total -= k
		l[j] = 0
	}
}

// policyName returns p.Name(), or p's type if Name panics (a nil pointer, say).
func policyName(p lbsim.Policy) (name string) {
	defer func() {
		if r := recover(); r != nil {
			name = fmt.Sprintf("%T", p)
		}
	}()
	return p.Name()
}
