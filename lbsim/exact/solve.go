package exact

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// stats are the quantities one pass over the states gathers from a normalized
// distribution pi: the residual, the aggregate masses and flows the
// aggregation steps and the convergence test need, and the performance
// measures.
type stats struct {
	residual float64 // ||pi Q||_1

	server     [][]float64 // server[j][l] = P(L_j = l)
	upServer   [][]float64 // upServer[j][l]: rate of accepted tasks joining server j at length l
	level      []float64   // level[m] = P(sum_j L_j = m)
	upLevel    []float64   // upLevel[m]: rate of accepted tasks from states at level m
	downLevel  []float64   // downLevel[m]: rate of departures from states at level m
	accepted   float64     // accepted arrival rate
	busyJoin   float64     // rate of accepted tasks joining a busy server
	truncation float64     // P(some L_j = k)
	meanTotal  float64     // E[sum_j L_j]
}

func newStats(n, k int) *stats {
	st := &stats{
		server:    make([][]float64, n),
		upServer:  make([][]float64, n),
		level:     make([]float64, n*k+1),
		upLevel:   make([]float64, n*k+1),
		downLevel: make([]float64, n*k+1),
	}
	for j := range n {
		st.server[j] = make([]float64, k+1)
		st.upServer[j] = make([]float64, k+1)
	}
	return st
}

func (st *stats) reset() {
	st.residual, st.accepted, st.busyJoin, st.truncation, st.meanTotal = 0, 0, 0, 0, 0
	for j := range st.server {
		clear(st.server[j])
		clear(st.upServer[j])
	}
	clear(st.level)
	clear(st.upLevel)
	clear(st.downLevel)
}

// cutFloor is the flow below which cut balances are not checked: such flows
// are at the edge of the floating-point range and carry no relative precision.
const cutFloor = 1e-250

// cutImbalance returns the largest relative imbalance of the flows across the
// cuts between adjacent aggregates (total tasks m and m+1; server j holding l
// and l+1 tasks). In a stationary distribution every one balances exactly.
// Unlike the residual, which is dominated by the bulk of the distribution, it
// is as sensitive in the tail as in the bulk.
func (st *stats) cutImbalance(mu []float64) float64 {
	worst := 0.0
	check := func(up, down float64) {
		if m := max(up, down); m > cutFloor {
			worst = max(worst, math.Abs(up-down)/m)
		}
	}
	for a := 0; a+1 < len(st.level); a++ {
		check(st.upLevel[a], st.downLevel[a+1])
	}
	for j, dist := range st.server {
		for a := 0; a+1 < len(dist); a++ {
			check(st.upServer[j][a], mu[j]*dist[a+1])
		}
	}
	return worst
}

// gather fills st from the normalized distribution pi.
func (c *chain) gather(pi []float64, st *stats) {
	st.reset()
	l := make([]int, c.n)
	total := 0
	for t := range c.states {
		in := 0.0
		for e := c.inPtr[t]; e < c.inPtr[t+1]; e++ {
			f := pi[c.inSrc[e]] * c.inRate[e]
			in += f
			if j := int(c.inServer[e]); j >= 0 {
				// The task joined server j, which had l[j]-1 tasks, in a state
				// at level total-1.
				st.accepted += f
				st.upServer[j][l[j]-1] += f
				st.upLevel[total-1] += f
				if l[j] >= 2 {
					st.busyJoin += f
				}
			}
		}
		p := pi[t]
		dep := 0.0
		atCap := false
		for j, lj := range l {
			if lj < c.k {
				in += pi[t+c.stride[j]] * c.mu[j]
			} else {
				atCap = true
			}
			if lj > 0 {
				dep += c.mu[j]
			}
			st.server[j][lj] += p
		}
		st.residual += math.Abs(in - c.out[t]*p)
		st.level[total] += p
		st.downLevel[total] += p * dep
		st.meanTotal += p * float64(total)
		if atCap {
			st.truncation += p
		}
		nextTotal(l, c.k, &total)
	}
}

// gatherServer computes the marginal distribution of L_j under pi (mass) and
// the flow of accepted tasks joining server j at each length (up).
func (c *chain) gatherServer(pi []float64, j int, mass, up []float64) {
	clear(mass)
	clear(up)
	// States come in runs of stride[j] with the same L_j, cycling through 0..k.
	s := c.stride[j]
	for base := 0; base < c.states; base += s * (c.k + 1) {
		for lj := 0; lj <= c.k; lj++ {
			lo := base + lj*s
			mass[lj] += floats.Sum(pi[lo : lo+s])
			if lj == 0 {
				continue
			}
			acc := 0.0
			for e := c.inPtr[lo]; e < c.inPtr[lo+s]; e++ {
				if int(c.inServer[e]) == j {
					acc += pi[c.inSrc[e]] * c.inRate[e]
				}
			}
			up[lj-1] += acc
		}
	}
}

// sweep does one Gauss-Seidel sweep of the balance equations
// pi(x) * out(x) = sum_y pi(y) q(y,x) in increasing (forward) or decreasing
// state order, updating pi in place. pi is left unnormalized.
func (c *chain) sweep(pi []float64, forward bool) {
	l := make([]int, c.n)
	update := func(t int) {
		in := 0.0
		for e := c.inPtr[t]; e < c.inPtr[t+1]; e++ {
			in += pi[c.inSrc[e]] * c.inRate[e]
		}
		for j, lj := range l {
			if lj < c.k {
				in += pi[t+c.stride[j]] * c.mu[j]
			}
		}
		if o := c.out[t]; o > 0 {
			pi[t] = in / o
		}
	}
	if forward {
		for t := range c.states {
			update(t)
			next(l, c.k)
		}
		return
	}
	for j := range l {
		l[j] = c.k
	}
	for t := c.states - 1; t >= 0; t-- {
		update(t)
		prev(l, c.k)
	}
}

// prev steps the queue lengths l back to those of the previous state index.
func prev(l []int, k int) {
	for j := range l {
		if l[j] > 0 {
			l[j]--
			return
		}
		l[j] = k
	}
}

// aggregateFactors computes in f the factors that make the masses mass[a] of
// the aggregates a = 0, 1, ... equal to the stationary distribution of the
// aggregated chain. That chain is a birth-death chain: every transition moves
// a state at most one aggregate up (an accepted arrival; up[a] is the flow
// from aggregate a) or down (a departure; down[a] is the flow out of a), so by
// detailed balance f[a+1] = f[a] * up[a]/down[a+1]. An aggregate with no mass
// gets factor 0. It returns false if the factors are unusable.
func aggregateFactors(mass, up, down, f []float64) bool {
	f[0] = 1
	for a := 1; a < len(mass); a++ {
		if down[a] > 0 && mass[a] > 0 {
			f[a] = f[a-1] * up[a-1] / down[a]
		} else {
			f[a] = 0
		}
	}
	norm := floats.Dot(f, mass)
	if !(norm > 0) || math.IsInf(norm, 0) || math.IsNaN(norm) {
		return false
	}
	floats.Scale(1/norm, f)
	return true
}

// scaleByServer multiplies pi(x) by f[L_j(x)].
func (c *chain) scaleByServer(pi []float64, j int, f []float64) {
	s := c.stride[j]
	for base := 0; base < c.states; base += s * (c.k + 1) {
		for lj := 0; lj <= c.k; lj++ {
			floats.Scale(f[lj], pi[base+lj*s:base+(lj+1)*s])
		}
	}
}

// scaleByLevel multiplies pi(x) by f[sum_j L_j(x)].
func (c *chain) scaleByLevel(pi []float64, f []float64) {
	l := make([]int, c.n)
	total := 0
	for t := range pi {
		pi[t] *= f[total]
		nextTotal(l, c.k, &total)
	}
}

// relax applies the basic iteration to g, whose statistics are st: an
// aggregation-disaggregation step for the partition by total number of tasks
// and then for the partition by the length of each server in turn, followed by
// a forward and a backward Gauss-Seidel sweep. It normalizes g.
func (c *chain) relax(g []float64, st *stats, f, mass, up, down []float64) error {
	if aggregateFactors(st.level, st.upLevel, st.downLevel, f) {
		c.scaleByLevel(g, f)
	}
	for j := range c.n {
		c.gatherServer(g, j, mass, up)
		for l := 1; l <= c.k; l++ {
			down[l] = c.mu[j] * mass[l]
		}
		if aggregateFactors(mass, up, down, f[:c.k+1]) {
			c.scaleByServer(g, j, f[:c.k+1])
		}
	}
	c.sweep(g, true)
	c.sweep(g, false)
	return normalize(g)
}

// normalize scales v to sum 1.
func normalize(v []float64) error {
	s := floats.Sum(v)
	if !(s > 0) || math.IsInf(s, 0) {
		return fmt.Errorf("iteration broke down (total mass %v)", s)
	}
	floats.Scale(1/s, v)
	return nil
}

// solveResult reports how the iteration ended.
type solveResult struct {
	st         *stats
	iterations int
	cut        float64 // the final cutImbalance
}

// andersonDepth is the number of previous iterates Anderson acceleration
// combines (0 disables it). Three is about as fast as more on the chains
// tried (JSQ, JSQ(d), round robin, random routing; N = 3, 4; lambda = 0.9) and
// costs 2*3+3 vectors of the state-space size. A variable so tests can compare.
var andersonDepth = 3

// stagnation is the number of iterations without halving the residual after
// which solve gives up.
const stagnation = 200

// solve iterates from pi (any nonnegative vector with positive mass) until the
// residual ||pi Q||_1 is at most target and every cut balances to relative
// accuracy cutTol, and leaves the normalized stationary distribution in pi.
//
// The basic iteration (relax) combines aggregation-disaggregation steps, which
// fix the slow long-range modes (mass moving between levels of the total and
// of each queue) exactly for birth-death lumpings, with Gauss-Seidel sweeps,
// which fix the distribution within aggregates. Anderson acceleration
// combines the last few iterates to speed up the remaining slow modes (those
// of policies with internal state, for example); an accelerated iterate with a
// negative entry is replaced by the plain one.
func (c *chain) solve(ctx context.Context, pi []float64, target, cutTol float64, maxIter int) (solveResult, error) {
	st := newStats(c.n, c.k)
	f := make([]float64, c.n*c.k+1)
	mass, up, down := make([]float64, c.k+1), make([]float64, c.k+1), make([]float64, c.k+1)
	if err := normalize(pi); err != nil {
		return solveResult{}, err
	}
	g := make([]float64, len(pi))
	aa := newAnderson(andersonDepth, len(pi))
	best, bestIt := math.Inf(1), 0
	for it := 0; ; it++ {
		c.gather(pi, st)
		cut := st.cutImbalance(c.mu)
		if math.IsNaN(st.residual) || math.IsNaN(cut) {
			return solveResult{}, fmt.Errorf("iteration broke down (NaN) after %d iterations", it)
		}
		if st.residual <= target && cut <= cutTol {
			return solveResult{st: st, iterations: it, cut: cut}, nil
		}
		// Stagnation: the residual has a floating-point floor, which a very
		// small Tol may be below.
		if st.residual < best/2 {
			best, bestIt = st.residual, it
		} else if it-bestIt >= stagnation {
			return solveResult{}, fmt.Errorf("no progress after %d iterations: residual %.3g (target %.3g), not halved in the last %d; Tol is probably below the rounding floor, raise it",
				it, st.residual, target, stagnation)
		}
		if it >= maxIter {
			return solveResult{}, fmt.Errorf("no convergence after %d iterations: residual %.3g (target %.3g), cut imbalance %.3g (target %.3g); raise MaxIterations or Tol",
				it, st.residual, target, cut, cutTol)
		}
		if err := ctx.Err(); err != nil {
			return solveResult{}, err
		}
		copy(g, pi)
		if err := c.relax(g, st, f, mass, up, down); err != nil {
			return solveResult{}, err
		}
		aa.step(pi, g)
	}
}
