// Package meanfield holds the large-N limits of the load-balancing models that
// package lbsim simulates, so that simulations and theory can be put side by side.
//
// The occupancy process q_i(t), the fraction of the N servers with at least i
// tasks, converges as N grows to the solution of an ODE (the mean-field or
// fluid limit), and its stationary distribution to the ODE's fixed point. For
// the power-of-d policy with Poisson arrivals of rate lambda*N and unit-rate
// exponential servers (Vvedenskaya, Dobrushin and Karpelevich 1996;
// Mitzenmacher 2001) the ODE is
//
//	dq_i/dt = lambda (q_{i-1}^d - q_i^d) - (q_i - q_{i+1}),   q_0 = 1,
//
// with the fixed point q_i = lambda^((d^i - 1)/(d - 1)), doubly exponential in i
// for d >= 2 against the geometric lambda^i of d = 1 (M/M/1). The mean time in
// system in the limit is T_d(lambda) = sum_{i>=1} lambda^((d^i - d)/(d - 1)).
// For JSQ the fluid fixed point is q_1 = lambda, q_i = 0 for i >= 2.
//
// Fixed points are truncated at the first level whose value falls below a
// tolerance, and the functions report the neglected mass.
//
// # Transients
//
// JSQdDrift, RandomDrift (d = 1) and JSQdWithoutReplacementDrift give the
// right-hand side of the ODE for the occupancy truncated at level K (state
// q_1..q_K, q_{K+1} = 0), which is exactly a buffer of K tasks per server; the
// stationary point then differs from the untruncated one by O(lambda q_K^d).
// Levels picks K as the smallest level whose fixed-point tail sum_{i>K} q_i
// is below a tolerance, plus a margin of 3, and at least 3 above the highest
// loaded level of the start, and reports that tail. Trajectory integrates a
// drift from a start q0 (padded or cut to K levels) on a time grid and reports
// how far the numerical solution strays from 1 >= q_1 >= ... >= q_K >= 0,
// which the exact flow preserves (the system is cooperative: each q_i's drift
// is non-decreasing in the other levels).
//
// Sampling d servers without replacement gives the same ODE in the limit
// N -> infinity. At finite N the exact occupancy drift replaces q_i^d by
// P_i = prod_{k<d} (N q_i - k)/(N - k), the probability that d distinct
// samples all hold at least i tasks; JSQdWithoutReplacementDrift provides it
// (factors clamped at zero between lattice points) so that a simulation at,
// say, N = 100 can be set beside the ODE with the O(1/N) sampling effect
// included. It is the drift at the mean, not the mean of the N-server chain.
// This is why `lbsim meanfield` defaults its sampling key to with (the limit
// N -> infinity, which needs no N) while `lbsim run` defaults to without
// (a simulation has an N, and the policy of Mukherjee et al. samples distinct
// servers): the two defaults describe the same policy on either side of the
// limit, and `lbsim meanfield --sampling without --servers N` is the drift
// to set beside a simulation at that N.
//
// The transient of random routing (d = 1) is the M/M/1 transient, for which
// only the stationary point lambda^i is elementary; it relaxes at rate
// (1 - sqrt(lambda))^2, so at lambda = 0.9 it takes t of several thousand to
// settle to 1e-6 where JSQ(2) takes t ~ 200.
//
// # JSQ and JIQ fluid limits
//
// JSQDrift (JSQ, and JSQ(d(N)) with d(N) -> infinity), JIQDrift and
// JIQdDrift route arrivals by a rule that switches when a level becomes full
// (q_i = 1): servers emptied at the boundary are refilled by a fraction
// p = min(1, (q_m - q_{m+1})/lambda) of the arrivals and only the excess
// moves on, which is the projection of the drift onto q_m <= 1 (fluid.go
// derives it). The drifts are the exact piecewise functions; the adaptive
// integrator shortens its steps at the switching times, and a path may
// overshoot 1 by about the integration tolerance (4e-8 at the Trajectory
// defaults; Path.OrderViolation reports it). The total arrival rate is
// conserved, so d/dt sum_i q_i = lambda - q_1; the tests check this along
// the solution to 1e-7. For lambda < 1 all three have the fixed point
// (lambda, 0, 0, ...).
//
// # Heterogeneous servers
//
// HeterogeneousJSQdDrift is JSQ(d) with replacement over classes of servers
// with fractions gamma_c and rates mu_c, on the flat state q[c*K + i - 1] =
// q_{c,i} (fraction of all servers that are of class c with at least i
// tasks). At its fixed point sum_c mu_c q_{c,1} = lambda.
//
// # Fixed points and metrics
//
// FixedPoint solves drift(q) = 0 for any System by damped Newton with a
// central finite-difference Jacobian (gonum diff/fd) and LU solves (gonum
// mat), falling back to integration to stationarity followed by a Newton
// polish; it reports the residual max_i |drift_i(q)|. It reproduces the
// JSQ(d) closed form to about 1e-15. MeanTasks, MeanSojourn (Little's law)
// and WaitProbability (q_1^d) evaluate an occupancy vector.
//
// # Refined mean field
//
// JSQdRefined gives the 1/N correction of Gast and Van Houdt ("A refined
// mean field approximation", 2017) for JSQ(d): the stationary mean occupancy
// of N servers is E[q_i(N)] = pi_i + c_i/N + O(1/N^2), with c computed from
// the drift's first and second derivatives at the fixed point pi (a Lyapunov
// equation for the covariance W of the sqrt(N)-scaled fluctuations, then a
// linear solve with the Jacobian, both with gonum mat). Sampling without
// replacement adds the 1/N term of its drift. At lambda = 0.9, d = 2 and
// N = 10 the mean number of tasks per server is 2.3527 in the mean field,
// 2.7513 refined and 2.80 simulated, and the tests check the refined error
// against exact solutions (N = 2..4, error falling like 1/N^2) and
// simulations (N = 10..50). JSQ and JIQ have no 1/N term at fixed load: a
// task waits only when all N servers are busy (see JSQdRefined).
//
// # Diffusion limit
//
// SimulateJSQDiffusion simulates the Halfin-Whitt diffusion limit of JSQ
// (Eschenfeldt and Gamarnik 2018), seeded, returning time averages,
// histograms and a sampled path. Two reflection schemes: SchemeProjection
// (plain Euler-Maruyama with projection, the default; O(sqrt(dt)) bias, about
// 0.13 low on E[Qbar_2] at beta = 1, dt = 0.01) and SchemeBridge (Lepingle's
// exact reflection of the Brownian path within a step; bias about 0.2 dt, so
// E[Qbar_2] = 0.815 at dt = 0.01 against the extrapolated 0.813).
// E[Qbar_1] = -beta holds exactly in both. JSQDiffusionStationary gives the
// stationary means with confidence intervals and a bias bound; the method
// Result.DiffusionScaled of package lbsim turns a simulation into the same
// scaled quantities, and HalfinWhittLambda gives the per-server load
// 1 - beta/sqrt(N).
//
// The limit objects with their numerical error: JSQDiffusionLawLimit
// solves the stationary law deterministically (a lattice Markov chain with
// the diffusion's local drift, variance and reflection, solved exactly by
// linear level reduction and extrapolated in the spacing h; E[Qbar_2] =
// 0.8140596 with error 4e-6 at beta = 1), JSQDiffusionEulerLimit estimates
// it by the Euler scheme at several steps extrapolated in dt (Richardson)
// with a Monte Carlo standard error, and JSQDiffusionProcess gives the mean
// path from a scaled initial condition and the stationary autocovariances.
// Banerjee and Mukherjee (2019) note that no closed form of the stationary
// law is known.
//
// # The integrator
//
// Integrate is an explicit adaptive Runge-Kutta solver for y' = f(t, y): the
// Dormand-Prince 5(4) pair with first-same-as-last (six evaluations per
// step), the error of the embedded fourth-order solution measured in the RMS
// norm of err_i / (AbsTol + RelTol max(|y_i|, |ynew_i|)), and the step-size
// controller of Hairer, Norsett and Wanner's DOPRI5 (safety factor 0.9,
// ratio of new to old step in [0.2, 10], PI stabilisation with beta = 0.04,
// no growth right after a rejection, their heuristic for the first step).
// Values on the requested time grid come from the method's fourth-order
// continuous extension, so grid points never shorten steps: a grid of 1001
// points gives bit-for-bit the same steps as a grid of its two end points.
// After setup it does not allocate.
//
// Accuracy: the tolerances bound the local error per step; the global error
// on the tests (linear 2x2 systems against the matrix exponential, the
// logistic equation against its closed form, RelTol 1e-6 to 1e-12) stays
// below 10 RelTol relative to the size of the solution (measured between 0.06
// and 7.2 RelTol). At RelTol 1e-10 it needs 4x fewer evaluations than
// fixed-step RK4 of the same end-point error. The occupancy ODEs are not
// stiff (Jacobian eigenvalues O(1)), but on long horizons near the fixed
// point the step is limited by the stability region of the explicit method,
// to roughly 0.3-0.9, so the cost grows linearly with the horizon (JSQ(2),
// lambda = 0.9, K = 20 to t = 100: 271 steps, under 0.5 ms).
//
// Gonum (v0.17.0) has no ODE solver: gonum.org/v1/gonum/integrate and
// integrate/quad do quadrature of sampled data and of functions of one
// variable only, diff/fd computes finite-difference derivatives, and no
// package mentions Runge-Kutta. The tests use gonum's mat.Dense.Exp (matrix
// exponential) as the reference for linear systems.
package meanfield
