// Package admission computes optimal admission control for an M/M/s queue
// in the QED (Halfin-Whitt) regime, after Sanders, Borst, Janssen and van
// Leeuwaarden ("Optimal admission control for many-server systems with
// QED-driven revenues"): exactly for finite s, in the limit s -> ∞, and by
// simulation.
//
// # Model
//
// A System has s unit-rate servers and Poisson arrivals at rate lambda =
// s - beta sqrt(s); beta may be zero or negative, admission control keeps
// the system stable. In state k (tasks present) an arrival is admitted with
// probability p(k); the threshold policy with tau >= 0 waiting places
// admits iff k < s + tau. Revenue accrues at rate r((k-s)/sqrt(s)) for a
// Revenue r on the QED scale (Linear, Exponential, ParseRevenue, or any
// Func), unimodal with its maximum at 0 (CheckRevenue).
//
// # Exact solution (exact.go)
//
// Under a threshold the chain is birth-death on {0, ..., s+tau}: pi(k) ∝
// lambda^k/k! for k <= s and pi(s+j) = pi(s) rho^j, rho = lambda/s. R_s(tau)
// = Σ pi(k) r((k-s)/sqrt(s)) is computed in log space with an online
// log-sum-exp: log-weights relative to state s, summed from s downwards
// (stopping once they fall 750 below the largest, where they underflow),
// then the queue states one by one, which yields the whole curve R_s(0..T)
// in O(s + T) (O(sqrt(s) + T) for beta of order 1: the early stop) for s up to 1e6 and
// beyond. Adding state s+tau+1 moves R strictly towards r((tau+1)/sqrt(s)),
// so R_s increases iff r((tau+1)/sqrt(s)) > R_s(tau); since r is
// nonincreasing above 0 this happens for an initial run of tau only, and
// tau*_s = min{tau : r((tau+1)/sqrt(s)) <= R_s(tau)} (OptimalThreshold).
// Tests: a dense solve of the generator (s <= 30, 1e-10), Erlang B at tau =
// 0 and Erlang C as tau -> ∞ (beta > 0, s up to 1e6, 1e-12 relative).
//
// # Thresholds are optimal among all policies (policy.go)
//
// This is a proof, checked numerically (and solved as a decision problem in
// mdp.go, below). Let c_k be the stationary weights of full admission (c_{k+1} =
// c_k lambda/mu(k+1), mu(k) = min(k, s)) on {0, ..., K}. A randomized
// stationary policy p has the birth-death law x_k ∝ c_k u_k with u_0 = 1,
// u_k = Π_{j<k} p(j), so 1 = u_0 >= u_1 >= ... >= u_K >= 0 (u_{K+1} = 0).
// Writing u_k = Σ_{L>=k} (u_L - u_{L+1}) and exchanging the sums,
//
//	Σ_k r_k c_k u_k / Σ_k c_k u_k = Σ_L theta_L R(L),
//	theta_L = (u_L - u_{L+1}) C_L / Σ_k c_k u_k >= 0,  C_L = Σ_{k<=L} c_k,
//
// where R(L) = Σ_{k<=L} r_k c_k / C_L is the revenue of the level policy
// "admit iff k < L", and Σ_L theta_L = 1 (take r = 1). So the revenue of
// any policy is a convex combination of level revenues and no policy beats
// the best level. For unimodal r the best level is at least s (adding a
// state k+1 <= s adds the largest revenue so far, r_{k+1} >= R(k)) and it
// is s + tau*_s. The same identity is the statement that the occupation-
// measure LP (maximise Σ r_k x_k over x >= 0, Σ x_k = 1, mu(k+1) x_{k+1} <=
// lambda x_k) has the normalised level indicators as its vertices. Tests
// check the identity to 1e-12 and that no policy beats tau*_s on 500
// random policies per system, s = 10, 25, 50.
//
// # Every policy, as a decision problem (mdp.go)
//
// AdmissionMDP states the admission problem on a truncated state space as a
// Markov decision process over every stationary policy (single or batch
// arrivals). Relative value iteration brackets the optimal long-run revenue
// (Odoni's bounds: a lower and an upper bound, not an estimate), and the
// occupation-measure LP, solved with gonum's simplex in variables scaled by
// the full-admission weights c_k (unscaled, pi(0) ~ 1e-21 at s = 50 falls
// below the simplex's tolerances), gives the optimum for s <= 100. Tests
// compare both with enumeration of the deterministic policies of small
// problems and with R_s(tau*_s) for s = 20..100, to 1e-12.
//
// # QED limit (limit.go)
//
// Let x = (k-s)/sqrt(s) and eta = tau/sqrt(s) fixed. Below s, pi is the
// Poisson(lambda) law restricted to k <= s; by the local central limit
// theorem lambda^k e^{-lambda}/k! ≈ phi((k-lambda)/sqrt(lambda))/sqrt(lambda)
// and (k-lambda)/sqrt(lambda) = x + beta + O(1/sqrt(s)), so sqrt(s) pi(k)
// ≈ phi(x+beta) (up to the common normalisation): the birth-death chain
// below s is the Ornstein-Uhlenbeck process of Halfin and Whitt. Above s,
// pi(s + y sqrt(s)) = pi(s) rho^(y sqrt(s)) and rho^(y sqrt(s)) = (1 -
// beta/sqrt(s))^(y sqrt(s)) -> exp(-beta y): the queue is a Brownian motion
// with drift -beta reflected at 0 and at eta. Matching at k = s (sqrt(s)
// pi(s) ≈ phi(beta)) gives the limiting density f/Z(eta) of x:
//
//	f(x) = phi(x+beta) (x <= 0),  f(x) = phi(beta) exp(-beta x) (0 < x <= eta),
//	Z(eta) = Phi(beta) + phi(beta) (1 - exp(-beta eta))/beta   (phi(0) eta if beta = 0),
//
// and R(eta) = N(eta)/Z(eta), N(eta) = ∫ r f over (-∞, eta]. Differentiating,
// R'(eta) = f(eta) (r(eta) - R(eta))/Z(eta): the fundamental equation is
// r(eta) = R(eta), the continuous form of the discrete rule above. With
// G(eta) = r(eta) Z(eta) - N(eta), G' = r'(eta) Z(eta) <= 0 and G(0) >= 0,
// so r - R changes sign once and eta* is its root; OptimalEta brackets it
// by doubling and bisects to 1e-10. Tests: the scaled exact law is within
// 2e-3 of f/Z at s = 1e6; |R_s(tau) - R(tau/sqrt(s))| <= 1.5/sqrt(s) at s =
// 1e4, 1e5, 1e6 and falls at least 8-fold over that range (rate
// 1/sqrt(s)); eta* matches a golden-section maximisation of R.
//
// # Explicit forms
//
// Linear (r = 1 + a x below 0, 1 - b x above): N(eta) = (1 - a beta)
// Phi(beta) - a phi(beta) + phi(beta) (E1 - b E2) with E1 = (1 -
// e^{-beta eta})/beta and E2 = (1 - e^{-beta eta}(1 + beta eta))/beta^2.
// r(eta) Z = N reduces to the explicit equation (LinearEquation)
//
//	b eta Phi(beta) + b phi(beta) (e^{-beta eta} - 1 + beta eta)/beta^2 = a (beta Phi(beta) + phi(beta)),
//
// whose left side increases in eta; at beta = 0 it is the quadratic b
// eta/2 + b phi(0) eta^2/2 = a phi(0), eta* = (-1 + sqrt(1 + 8 (a/b)
// phi(0)^2))/(2 phi(0)) (LinearEtaBetaZero), and R(eta*) = 1 - b eta*
// always. For beta != 0 it has the form c1 e^{-beta eta} + c2 eta = c3,
// solved by the Lambert W function: eta* = a beta/b + phi/(beta g) +
// W_k(z)/beta with g = beta Phi + phi, z = -(phi/g) e^{-phi/g - a
// beta^2/b}, the branch W_0 for beta > 0 and W_{-1} for beta < 0
// (explicit.go: LinearEta, LambertW; it matches the root to 1e-9).
// Asymptotics (derived from the explicit equation): as beta -> +∞,
// eta* = (a/b) beta + phi(beta)/beta^2 + ...; as beta -> -∞, Phi(beta) ~
// phi/|beta| and g ~ phi/beta^2 turn the equation into b(e^y - 1) = a for
// y = |beta| eta, so eta* ~ log(1 + a/b)/|beta| (the tests find the error of
// |beta| eta* below 2/beta^2 for beta <= -8). Exponential (r = e^{a x} below 0, e^{-b x} above): N(eta) =
// e^{a^2/2 - a beta} Phi(beta - a) + phi(beta) (1 - e^{-(b+beta) eta})/(b +
// beta), so the fundamental equation is e^{-b eta} Z(eta) = N(eta) in
// closed form. Both closed forms agree with quadrature to 1e-12.
//
// Observed convergence (linear a = b = 1, beta = 0.5, eta* = 0.8490643438,
// R(eta*) = 0.1509356562): tau*_s/sqrt(s) = 0.84, 0.8475, 0.848 at s = 1e4,
// 1e5, 1e6 and R_s(tau*_s) - R(eta*) = 1.3e-3, 4.2e-4, 1.3e-4, a
// 1/sqrt(s) rate. The tests bound |tau*_s/sqrt(s) - eta*| by (1.5 +
// 1.5/b)/sqrt(s) and |R_s(tau*) - R(eta*)| by 1/sqrt(s).
//
// # Bounds (bounds.go)
//
// For any unimodal r, eta_L <= eta* <= eta_U (Limit.EtaBounds): eta_U is
// where r falls to R(0), the revenue of pure loss, and eta_L solves the
// fundamental equation as if every queue level earned r(0); both follow
// from G(eta) = r(eta) Z_- - N_- + ∫_0^eta (r(eta) - r(x)) f(x) dx. For
// linear revenue at beta = 0 they drop or double the quadratic term of the
// explicit equation.
//
// # Simulation and model
//
// Simulate runs the controlled chain event by event with replications on
// the streams mc.Stream(seed, r) and a 95% confidence interval
// (mc.MeanCI95). Model registers `lbsim admission` (sweeps: "model":
// "admission") with the figures optimal_threshold, threshold_scaled,
// revenue, eta_limit, revenue_limit, eta_lower_bound, eta_upper_bound,
// revenue_curve (with thresholds) and
// simulated_revenue (with simulate).
package admission
