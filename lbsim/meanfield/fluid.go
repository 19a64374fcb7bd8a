package meanfield

import "math"

// The fluid limits of JSQ and JIQ route arrivals by a rule that switches when
// a level of the occupancy becomes full (q_i = 1), so their drifts are only
// piecewise smooth. They are written here as Systems whose value is the exact
// piecewise drift, which the adaptive integrator follows by shrinking its steps
// at the switching times (the step that straddles a switch is rejected until
// it is short); no smoothing is applied.
//
// The boundary. Suppose the levels 1..m are full (q_1 = ... = q_m = 1) and
// q_{m+1} < 1: every server holds at least m tasks, a fraction 1 - q_{m+1}
// exactly m. Departures from those servers, at rate q_m - q_{m+1} =
// 1 - q_{m+1}, turn them into servers of length m - 1, the new minimum. Under
// JSQ (and JIQ when m = 1) the next arrivals go to exactly these servers, so in
// the fluid limit a fraction p = min(1, (1 - q_{m+1})/lambda) of the arrival
// stream is spent refilling them and holds q_m at 1, and only the rest,
// lambda (1 - p) = max(0, lambda - (1 - q_{m+1})), goes further. If lambda
// < 1 - q_{m+1} the refill cannot keep up: q_m leaves 1 at the rate
// lambda - (1 - q_{m+1}) < 0, and the level m then receives all arrivals. In
// either case
//
//	dq_m/dt = min(0, lambda - (q_m - q_{m+1})),
//
// and the overflow max(0, lambda - (q_m - q_{m+1})) is routed by the policy's
// rule for busy servers. This is the projection of the unconstrained drift on
// the set q_m <= 1 (Mukherjee, Borst, van Leeuwaarden and Whiting 2018;
// Eschenfeldt and Gamarnik 2018 for the JSQ fluid limit).
//
// A level that an integration step carries slightly above 1 counts as full
// (its departures are computed from the actual q values, so it stays within
// the integration tolerance of 1; Path.OrderViolation reports it).

// JSQDrift returns the fluid limit of join-the-shortest-queue, which is also
// that of JSQ(d(N)) with d(N) -> infinity. Arrivals cascade up the full
// levels: with flow a = lambda entering level 1, each level i in turn
//
//   - if full (q_i >= 1) absorbs a_i = min(a, q_i - q_{i+1}), the rate at
//     which its departures open slots at the minimum length, so
//     dq_i/dt = a_i - (q_i - q_{i+1}) = min(0, a - (q_i - q_{i+1})), and
//     passes a - a_i on to level i + 1;
//   - if not full (q_i < 1) takes all of a: dq_i/dt = a - (q_i - q_{i+1}),
//     and all levels above receive nothing: dq_j/dt = -(q_j - q_{j+1}).
//
// With m full levels this is: dq_i/dt = 0 for i < m; dq_m/dt =
// min(0, lambda - (1 - q_{m+1})); dq_{m+1}/dt = max(0, lambda - (1 - q_{m+1}))
// - (q_{m+1} - q_{m+2}); dq_j/dt = -(q_j - q_{j+1}) for j > m + 1. In
// particular with q_1 < 1 all arrivals go to idle servers: dq_1/dt = lambda -
// (q_1 - q_2), and the higher levels only drain. The total arrival rate is
// conserved, so d/dt sum_i q_i = lambda - q_1 (unless the top level K is full
// and overflows, which the truncation loses). For lambda < 1 the fixed point
// is (lambda, 0, 0, ...).
func JSQDrift(lambda float64) (System, error) {
	if err := checkDriftLambda(lambda, 1); err != nil {
		return nil, err
	}
	return func(_ float64, q, dq []float64) {
		K := len(q)
		a := lambda
		for i := 0; i < K; i++ {
			next := 0.0
			if i+1 < K {
				next = q[i+1]
			}
			dep := q[i] - next
			switch {
			case a == 0:
				dq[i] = -dep
			case q[i] >= 1:
				dq[i] = math.Min(0, a-dep)
				a = math.Max(0, a-dep)
			default:
				dq[i] = a - dep
				a = 0
			}
		}
	}, nil
}

// JIQDrift returns the fluid limit of join-the-idle-queue: a task goes to an
// idle server if there is one, else to a uniformly random server. With
// q_1 < 1 all arrivals find idle servers:
//
//	dq_1/dt = lambda - (q_1 - q_2),   dq_i/dt = -(q_i - q_{i+1}), i >= 2.
//
// At q_1 = 1 the arrivals refill the servers that empty, at rate 1 - q_2, so
// dq_1/dt = min(0, lambda - (1 - q_2)), and the excess
// e = max(0, lambda - (1 - q_2)) is spread uniformly over the (all busy)
// servers, a server of length exactly i being hit with probability
// q_i - q_{i+1}:
//
//	dq_{i+1}/dt = e (q_i - q_{i+1}) - (q_{i+1} - q_{i+2}),   i >= 1.
//
// For lambda < 1 the fixed point is (lambda, 0, 0, ...): JIQ is optimal in the
// fluid limit.
func JIQDrift(lambda float64) (System, error) {
	return JIQdDrift(lambda, 1)
}

// JIQdDrift returns the fluid limit of JIQ(d): a task goes to an idle server
// if there is one, else to the shortest of d servers sampled uniformly (ties
// at random; with or without replacement, the same in the limit). Below
// q_1 = 1 it is JIQDrift; at q_1 = 1 the excess e = max(0, lambda - (1 -
// q_2)) is routed by JSQ(d) among servers that all hold at least one task:
//
//	dq_i/dt = e (q_{i-1}^d - q_i^d) - (q_i - q_{i+1}),   i >= 2.
//
// d = 1 is JIQDrift. For lambda < 1 the fixed point is (lambda, 0, 0, ...).
func JIQdDrift(lambda float64, d int) (System, error) {
	if err := checkDriftLambda(lambda, d); err != nil {
		return nil, err
	}
	return func(_ float64, q, dq []float64) {
		K := len(q)
		next := func(i int) float64 {
			if i+1 < K {
				return q[i+1]
			}
			return 0
		}
		dep := q[0] - next(0)
		e := 0.0
		if q[0] >= 1 {
			dq[0] = math.Min(0, lambda-dep)
			e = math.Max(0, lambda-dep)
		} else {
			dq[0] = lambda - dep
		}
		pPrev := ipow(q[0], d)
		for i := 1; i < K; i++ {
			p := ipow(q[i], d)
			dq[i] = e*(pPrev-p) - (q[i] - next(i))
			pPrev = p
		}
	}, nil
}
