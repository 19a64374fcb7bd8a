// Package redundancy solves and simulates redundancy-d with
// cancel-on-complete, the model behind the comparison of uniform and
// non-uniform pair sampling of Cardinaels, Borst and van Leeuwaarden (2022).
//
// # Model
//
// N servers; server j serves at rate mu_j (exponential; default 1). Tasks
// arrive in a Poisson stream of total rate Lambda = lambda*N. Each task
// draws a set S of servers from a distribution (package pairs: uniform
// d-sets, the edges of a graph, weighted pairs); a task of class c (set S_c)
// arrives at rate lambda_c = Lambda*P(S = S_c). The task is replicated to
// every server of S; each server serves its replicas in arrival order
// (FCFS); when the first replica of a task completes, its other replicas are
// removed at once, waiting or in service.
//
// # Product form
//
// With exponential service the state is the sequence c_1..c_n of the
// classes of the tasks present, in arrival order, and (Gardner et al.,
// "Queueing with redundant requests: exact analysis", Queueing Systems
// 2016; Bonald and Comte, "The multi-source model and its application to
// redundancy", Performance Evaluation 2017)
//
//	pi(c_1..c_n) = pi(empty) * prod_{i=1..n} lambda_{c_i} / mu(S_{c_1} u ... u S_{c_i}),
//
// where mu(A) is the total rate of the servers in A. Task i is in service at
// the servers of its set that no earlier task holds, so it leaves at rate
// mu(S_{c_i} minus the earlier sets), and the departures out of a state sum
// to mu of the union of all sets; this balances the arrival into it (partial
// balance), which also makes the product form hold for the chain truncated
// at any number of tasks. The system is stable if and only if, for every
// set A of servers, the classes whose sets lie within A arrive at less than
// mu(A): Lambda*P(S subset of A) < mu(A) (LoadRatio computes the largest
// ratio, by enumeration for uniform d-sets and by parametric minimum cuts for
// explicit pairs).
//
// # Exact solution
//
// Exact aggregates the sequences by the union U of their sets, a bitmask
// over N <= MaxExactServers servers: f_n(U), the sum of the products over
// sequences of length n with union U, obeys
//
//	f_n(U') = sum_{U, c: U u S_c = U'} f_{n-1}(U) lambda_c / mu(U'),
//
// a linear map T on the reachable unions that only moves to supersets
// (upper triangular, diagonal r(U) = Lambda*P(S subset of U)/mu(U) < 1 when
// stable). So the normalising constant is Z = h(empty) with h = (I-T)^{-1} 1,
// one back-substitution from the full union down; E[N] = (h2(empty) -
// h(empty))/Z with h2 = (I-T)^{-1} h; the distribution of the union, and with
// it P(server j busy), is e_empty (I-T)^{-1}/Z, a forward substitution. The
// distribution P(N = n) is computed level by level until the mass beyond
// level n, which is exactly f_n.(h-1)/Z, falls below a tolerance. The number
// of replicas at a server is not kept by the aggregation, so only q_1 (the
// mean fraction of busy servers) of the occupancy is exact.
//
// Writing f_n(U) = Lambda^n g_n(U), P(N = n) = Lambda^n G_n / sum_m Lambda^m
// G_m with G_n = sum_U g_n(U), and LightTraffic divides the power series to
// get E[N] = a_1 Lambda + a_2 Lambda^2 + ....; for unit rates and pairs
// a_1 = 1/2 and a_2 = sum_{c,c'} p_c p_c' / |S_c u S_c'| - 1/4, smaller for
// uniform pairs than for a ring of 4 servers (7/72 against 5/48).
//
// # Simulation
//
// Simulate runs the Markov chain itself, event by event: each server holds
// its replicas in an intrusive doubly linked FCFS list (a cancelled replica
// is unlinked in O(1)); the busy servers are kept in an array with each
// server's position, so a completing server is drawn uniformly in O(1). With
// unequal rates the chain is uniformised over the busy servers: the total
// rate is Lambda + (busy servers)*max mu, and a drawn server j completes with
// probability mu_j/max mu (else nothing happens, which leaves every time
// average exact). Measurements are time averages over [warmup, horizon];
// replications run in parallel, each from its own stream mc.Stream(seed, r),
// so results do not depend on the number of workers.
package redundancy
