// Package csma optimises product-form networks online, after Sanders, Borst
// and van Leeuwaarden ("Online optimization of product-form networks",
// Valuetools 2012), with CSMA random-access networks as the built-in
// instance: exactly on small state spaces, and by the online gradient
// algorithm driving a simulated network.
//
// # Product-form families (family.go)
//
// A Family is pi_theta(x) ∝ base(x) exp(theta · phi(x)) on a finite state
// space. log Z(theta) is convex with gradient E_theta[phi] and Hessian
// Cov_theta(phi), so the derivative of any stationary mean is a covariance:
// ∂/∂theta_j E[f] = Cov(f, phi_j). Dense takes the states as a list of
// statistics phi(x) and log base weights; Moments computes log Z, the mean
// and the covariance exactly by a log-sum-exp over the states.
//
// Two objectives (objective.go). Targets gamma: maximise the concave L(theta)
// = gamma·theta - log Z(theta), gradient gamma - E[phi]; its maximiser has
// E[phi] = gamma and exists iff gamma is in the interior of the convex hull
// of the phi(x) (the capacity region). SolveTargets is Newton's method on
// log Z with backtracking from theta = 0 (quadratic convergence: 4 to 7
// steps to 1e-12 on the test graphs). Log utility with weight V: maximise F(theta) = V Σ_i log s_i +
// H(pi_theta), s = E[phi], H the entropy relative to the base. The entropy
// is what makes the problem well posed: the supremum of Σ log s_i alone is on
// the boundary of the capacity region, at infinite theta (one node: log s
// grows with theta forever). F is concave in pi, its gradient in theta is
// Cov(theta) (V/s - theta), so the maximiser is the unique solution of theta
// = V/s(theta) (Jiang and Walrand's formulation of adaptive CSMA; as V → ∞
// it tends to the proportionally fair point of the region). SolveUtility is
// Newton's method on theta - V/s(theta), whose Jacobian I + V diag(1/s²) Cov
// is nonsingular. Both stop only once theta is resolved (the next step below
// ThetaTol), and an optimum beyond |theta_i| = MaxTheta is an error
// (ErrBeyondMaxTheta), never a clipped value.
//
// # CSMA (indepsets.go, capacity.go, spectral.go, network.go)
//
// Nodes of a conflict graph (Conflict: path:N, ring:N, grid:RxC, torus:L,
// complete:N or an edge-list file; any lbsim/graph graph in Go) share a
// medium: node i, when none of its neighbours is active, activates at rate
// exp(theta_i), and an active node deactivates at rate 1. The states are the
// independent sets and pi_theta(x) ∝ exp(Σ_{i in x} theta_i); the activity
// (throughput) of node i is s_i = P(i active). IndependentSets enumerates
// them (depth-first, bit sets, graphs of at most 64 nodes) and is a Family
// with phi the indicator vector. Tests: Fibonacci and Lucas counts for
// paths and rings, 63 and 1234 for the 3x3 and 4x4 grids; moments against
// closed forms (one node: s = e^θ/(1+e^θ); K_n: s_i = e^θ_i/(1+Σ e^θ_j),
// Cov_ij = -s_i s_j; the path of 3) to 1e-12; SolveTargets against theta_i =
// log(gamma_i/(1-Σ gamma)) on K_n.
//
// The capacity region is the independent-set polytope; CheckTargets decides
// whether targets are inside it: gamma_i > 0 and gamma_i + gamma_j < 1 on
// every edge always (and that suffices for bipartite graphs: paths, even
// rings, grids), and otherwise, for up to MaxLPSets independent sets, a
// linear program over the sets (gonum's simplex) that finds the mixture
// with the largest smallest weight: interior iff that weight is positive.
// The test includes targets that pass every edge inequality but not the
// odd-cycle inequality of the 5-ring (Σ s <= 2) or the triangle (Σ s <= 1).
//
// The chain is reversible, so the spectral gap of its generator is the
// second eigenvalue of the symmetric matrix with off-diagonal entries
// sqrt(e^theta_i) (SpectralGap, gonum EigenSym, up to MaxGapStates states):
// the relaxation time 1/gap and the bound (log 2 + log(1/pi_min)/2)/gap on
// the time to come within 1/4 in total variation from any start. Tested
// against the two-state chain (gap 1 + e^θ) and against the eigenvalues of
// the nonsymmetric generator.
//
// Network simulates the chain (a Process: any reversible Markov process
// with a product-form law can drive the online algorithm). A transition
// costs O(degree · log n): one 64-bit draw gives the exponential holding
// time of rate A + F (A active nodes, F the summed rates of the free ones)
// from its low 40 bits and the kind of transition from its top 24; a
// deactivation picks a uniform active node from a list, an activation a
// free node in proportion to exp(theta_i) from a Fenwick tree over the free
// nodes (lbsim/internal/fenwick, integer weights, no drift), and only the
// neighbours of the flipped node change eligibility. Activity is measured
// per node from its activation and deactivation times. Second moments
// E[x_i x_j] (for the utility's covariances) add O(n) per transition: at
// each activation of j the accumulated active times of all nodes are kept,
// and at its deactivation their increase is the time each node spent active
// together with j. Tests: simulated activities and second moments on a
// path of 4, a 5-ring and the 3x3 grid within 4 half-widths (batch means)
// of the exact values.
//
// # The online algorithm (online.go)
//
// The network runs with the current theta; after window m, of length T_m =
// T_0 m^p (Schedule), theta moves by a_m times the gradient estimated from
// that window's measurements: gamma - ŝ for targets, Ĉov (V/ŝ - theta) for
// the utility (a node never active in the window contributes the limit V
// on its own coordinate). Step schedules (Step, ParseStep): constant A, A/m
// or A/m^P. The process is not restarted between windows: each window starts
// from the state left by the previous theta, so the estimates are biased
// (by about the relaxation time over T_m) as well as noisy (variance about
// relaxation time over T_m). Constant windows and constant steps therefore
// hover around the optimum at a distance set by the bias and the noise;
// decreasing steps with Σ a_m = ∞ average the noise out, and growing windows
// remove the bias: that is the paper's condition for convergence to the
// global optimum (unique, by concavity). A theta leaving [-MaxTheta,
// MaxTheta] stops the run with ErrDiverged, which is what targets outside
// the capacity region produce. Online can be run window by window, and its
// objective, theta and process can be changed between calls, so that the
// algorithm tracks targets or a conflict graph that change mid-run.
//
// Run (run.go) runs independent replications in parallel on the streams
// mc.Source(seed, r) and reports the final theta and the activities
// measured over the last tenth of the windows (means and 95% half-widths),
// the events, and for graphs with at most MaxExactSets independent sets the
// exact optimum, the error of theta and the mixing figures at the optimum.
// Test: from theta = 0 with steps 5/m^0.7 and windows 20 m^0.5, 400 windows
// end within 0.1 of the exact optimum for targets on a path of 4 and the
// log utility on a 5-ring.
//
// # Model
//
// Model registers `lbsim csma` (sweeps: "model": "csma") with the keys
// conflict, targets or utility (with utility_weight), windows,
// window_length, window_growth, step, theta0 and theta_trace (a CSV of
// theta and the measured activities after every window, written
// atomically to a path that must not exist), and the figures theta,
// activity, events and, with the exact reference, exact_theta, theta_error,
// exact_activity, spectral_gap and relaxation_time.
package csma
