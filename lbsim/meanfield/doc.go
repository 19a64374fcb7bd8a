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
package meanfield
