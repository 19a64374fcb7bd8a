package lbsim

import (
	"math"
	"slices"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// walk replays the log: piece(dt, lengths) for every stretch of time dt
// during which the tagged lengths stay the same, and arrival(j, l) for every
// arrival at tagged server j, which held l tasks before it.
func (l *TagLog) walk(piece func(dt float64, lengths []int), arrival func(j, before int)) {
	lengths := slices.Clone(l.Initial)
	t := l.Start
	for _, e := range l.Events {
		if e.Time > t {
			piece(e.Time-t, lengths)
			t = e.Time
		}
		j := int(e.Server)
		if e.Arrival {
			if arrival != nil {
				arrival(j, lengths[j])
			}
			lengths[j]++
		} else {
			lengths[j]--
		}
	}
	if l.End > t {
		piece(l.End-t, lengths)
	}
}

// Joint returns the time-average joint law of the lengths of tagged servers
// a and b over [Start, End]: p[x][y] is the fraction of the time during which
// a held x tasks and b held y (rows and columns up to the longest length
// seen). It returns nil for a log of zero length or a server out of range.
func (l *TagLog) Joint(a, b int) [][]float64 {
	if a < 0 || b < 0 || a >= l.Servers || b >= l.Servers || !(l.End > l.Start) {
		return nil
	}
	var p [][]float64
	l.walk(func(dt float64, n []int) {
		x, y := n[a], n[b]
		for len(p) <= x {
			p = append(p, nil)
		}
		for len(p[x]) <= y {
			p[x] = append(p[x], 0)
		}
		p[x][y] += dt
	}, nil)
	width := 0
	for _, row := range p {
		width = max(width, len(row))
	}
	span := l.End - l.Start
	for x := range p {
		row := make([]float64, width)
		for y, v := range p[x] {
			row[y] = v / span
		}
		p[x] = row
	}
	return p
}

// JointCorrelation returns the correlation coefficient of X and Y under the
// joint law p[x][y] = P(X = x, Y = y) (NaN if either is constant).
func JointCorrelation(p [][]float64) float64 {
	var m, mx, my, mxx, myy, mxy float64
	for x, row := range p {
		for y, v := range row {
			fx, fy := float64(x), float64(y)
			m += v
			mx += v * fx
			my += v * fy
			mxx += v * fx * fx
			myy += v * fy * fy
			mxy += v * fx * fy
		}
	}
	mx, my, mxx, myy, mxy = mx/m, my/m, mxx/m, myy/m, mxy/m
	vx, vy := mxx-mx*mx, myy-my*my
	if !(vx > 0 && vy > 0) {
		return math.NaN()
	}
	return (mxy - mx*my) / math.Sqrt(vx*vy)
}

// PairCorrelation returns the correlation coefficient of the lengths of two
// distinct tagged servers, estimated from all pairs at once: the tagged
// servers are exchangeable under an exchangeable policy, so the time averages
// of L_i, L_i^2 and L_i L_j are pooled over i and over the pairs i != j
// (through (sum_i L_i)^2). NaN with fewer than 2 tagged servers or a constant
// length.
func (l *TagLog) PairCorrelation() float64 {
	k := l.Servers
	if k < 2 || !(l.End > l.Start) {
		return math.NaN()
	}
	var s1, s2, cross float64 // time integrals of sum L_i, sum L_i^2, (sum L_i)^2 - sum L_i^2
	l.walk(func(dt float64, n []int) {
		var a, b float64
		for _, x := range n {
			fx := float64(x)
			a += fx
			b += fx * fx
		}
		s1 += dt * a
		s2 += dt * b
		cross += dt * (a*a - b)
	}, nil)
	span := l.End - l.Start
	kf := float64(k)
	mean, second := s1/(span*kf), s2/(span*kf)
	prod := cross / (span * kf * (kf - 1))
	v := second - mean*mean
	if !(v > 0) {
		return math.NaN()
	}
	return (prod - mean*mean) / v
}

// Gaps returns the times between successive arrivals that find a tagged
// queue holding n tasks, measured on that queue's own clock of time spent at
// length n, pooled over the tagged servers, and exposure, the total time they
// spent at length n. If a queue with n tasks receives tasks as a Poisson
// stream of rate lambda_n, whatever else happens (the ansatz's claim in the
// limit), these gaps are independent exponentials of rate lambda_n (the
// time-change theorem for point processes), whose maximum-likelihood estimate
// is len(gaps)/exposure. The clock of each server starts at Start, so the
// first gap is complete; the stretch after the last arrival is censored and
// counts only in exposure.
func (l *TagLog) Gaps(n int) (gaps []float64, exposure float64) {
	exposure = l.eachGap(n, func(_ int, g float64) { gaps = append(gaps, g) })
	return gaps, exposure
}

// eachGap replays the log and calls visit(j, g) for every gap g at length n
// of tagged server j (see Gaps), in time order; it returns the exposure.
func (l *TagLog) eachGap(n int, visit func(j int, g float64)) (exposure float64) {
	clock := make([]float64, l.Servers) // time at length n since the last such arrival
	l.walk(func(dt float64, lengths []int) {
		for j, x := range lengths {
			if x == n {
				clock[j] += dt
				exposure += dt
			}
		}
	}, func(j, before int) {
		if before == n {
			visit(j, clock[j])
			clock[j] = 0
		}
	})
	return exposure
}

// KSExponential returns the Kolmogorov-Smirnov distance between the empirical
// law of x and the exponential law of the given rate: sup_t |F_x(t) - (1 -
// exp(-rate t))|. For m independent draws of that law it is below
// 1.358/sqrt(m) with probability 0.95 (m large). NaN for an empty x.
func KSExponential(x []float64, rate float64) float64 {
	return mc.KSDistance(x, func(v float64) float64 { return -math.Expm1(-rate * v) })
}

// PooledGaps returns the gaps at length n (see TagLog.Gaps) of every log, in
// order, and the maximum-likelihood rate of the arrivals that find a tagged
// queue at length n: the number of gaps over the total exposure (NaN without
// exposure).
func PooledGaps(logs []*TagLog, n int) (gaps []float64, rate float64) {
	exposure := 0.0
	for _, l := range logs {
		g, e := l.Gaps(n)
		gaps = append(gaps, g...)
		exposure += e
	}
	if !(exposure > 0) {
		return gaps, math.NaN()
	}
	return gaps, float64(len(gaps)) / exposure
}

// PairJoint returns the time-average joint law of the lengths of two distinct
// tagged servers, pooled over the ordered pairs i != j: p[x][y] is the mean,
// over the pairs, of the fraction of the time during which i held x tasks and
// j held y. The tagged servers are exchangeable under an exchangeable policy,
// so this estimates the same law as Joint(0, 1) from every pair at once; it
// is symmetric. It is computed from the number c_x of tagged servers at each
// length (the ordered pairs at (x, y) number c_x c_y, less c_x when x = y), so
// its cost per event grows with the lengths held, not with the pairs. It
// returns nil with fewer than 2 tagged servers or a log of zero length.
func (l *TagLog) PairJoint() [][]float64 {
	k := l.Servers
	if k < 2 || !(l.End > l.Start) {
		return nil
	}
	var p [][]float64
	var count []int
	l.walk(func(dt float64, n []int) {
		clear(count)
		for _, x := range n {
			for len(count) <= x {
				count = append(count, 0)
			}
			count[x]++
		}
		for len(p) < len(count) {
			p = append(p, nil)
		}
		for x := range p {
			for len(p[x]) < len(count) {
				p[x] = append(p[x], 0)
			}
		}
		for x, cx := range count {
			if cx == 0 {
				continue
			}
			for y, cy := range count {
				pairs := cx * cy
				if x == y {
					pairs -= cx
				}
				p[x][y] += dt * float64(pairs)
			}
		}
	}, nil)
	norm := (l.End - l.Start) * float64(k*(k-1))
	for x := range p {
		row := make([]float64, len(p))
		for y, v := range p[x] {
			row[y] = v / norm
		}
		p[x] = row
	}
	return p
}

// IndependenceTV returns the total-variation distance between the joint law
// p[x][y] = P(X = x, Y = y) and the product of its marginals,
// (1/2) sum_{x,y} |p[x][y] - P(X = x) P(Y = y)|: 0 exactly when X and Y are
// independent, at most 1. Rows may have different lengths (missing entries
// are 0); p is normalised by its total mass. NaN for an empty or zero p.
func IndependenceTV(p [][]float64) float64 {
	var total float64
	var px, py []float64
	for x, row := range p {
		for len(px) <= x {
			px = append(px, 0)
		}
		for y, v := range row {
			for len(py) <= y {
				py = append(py, 0)
			}
			px[x] += v
			py[y] += v
			total += v
		}
	}
	if !(total > 0) {
		return math.NaN()
	}
	var tv float64
	for x := range px {
		for y := range py {
			v := 0.0
			if y < len(p[x]) {
				v = p[x][y]
			}
			tv += math.Abs(v/total - px[x]*py[y]/(total*total))
		}
	}
	return tv / 2
}

// GapSerialCorrelation returns the lag-1 correlation of the gaps at length n
// (see Gaps) of the same tagged server, pooled over the tagged servers: the
// correlation coefficient of the pairs (g_k, g_{k+1}) of successive gaps of
// one server, with the pooled mean of the gaps that enter as first and as
// second members. If the arrivals at a queue of length n are a Poisson stream
// of rate lambda_n whatever else happens, the gaps are independent and the
// correlation is 0 (within about 1/sqrt(pairs)). It also returns the number
// of pairs; NaN with fewer than 2 pairs or constant gaps.
func (l *TagLog) GapSerialCorrelation(n int) (rho float64, pairs int) {
	last := make([]float64, l.Servers) // the server's previous gap, or -1
	for j := range last {
		last[j] = -1
	}
	var sx, sy, sxx, syy, sxy float64
	l.eachGap(n, func(j int, g float64) {
		if x := last[j]; x >= 0 {
			sx += x
			sy += g
			sxx += x * x
			syy += g * g
			sxy += x * g
			pairs++
		}
		last[j] = g
	})
	if pairs < 2 {
		return math.NaN(), pairs
	}
	m := float64(pairs)
	vx, vy := sxx/m-(sx/m)*(sx/m), syy/m-(sy/m)*(sy/m)
	if !(vx > 0 && vy > 0) {
		return math.NaN(), pairs
	}
	return (sxy/m - (sx/m)*(sy/m)) / math.Sqrt(vx*vy), pairs
}
