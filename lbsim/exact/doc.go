// Package exact computes the exact stationary distribution of a small load
// balancing system, truncated at a per-server queue cap, and the performance
// measures that follow from it. It serves as a reference for the simulators
// of package lbsim.
//
// # Model
//
// N single-server FIFO queues; server j serves at rate mu_j
// (lbsim.System.Rate). Tasks arrive in a Poisson stream of total rate
// lambda*N. A policy that uses origins (lbsim.Needs.Origin, declared by its
// Uses) sees each task appear at an origin server, uniformly at random or in
// proportion to System.OriginWeights; other policies are asked once per state
// with origin -1. The policy's lbsim.ExactRouter.Route gives the distribution
// of the server the task joins and of the policy's next internal state. Queue
// lengths count the task in service.
//
// The Markov state is the vector of the N queue lengths together with the
// policy's internal state, 0..PolicyStates-1 for an lbsim.StatefulRouter (a
// round-robin pointer, say) and always 0 otherwise. The transitions are
//
//   - arrival: for every origin o with rate r_o and every choice (j, next, p)
//     of Route(lengths, pstate, o), rate r_o*p to lengths+e_j with policy state
//     next;
//   - departure: for every busy server j, rate mu_j to lengths-e_j, policy
//     state unchanged.
//
// # Truncation
//
// Each queue holds at most Cap = K tasks: a task routed to a full queue is
// lost (the routing decision still happens, so the policy state still moves to
// next). The truncated chain is finite, with PolicyStates*(K+1)^N states, and
// has a unique stationary distribution for any lambda. Its truncation mass,
// the stationary probability that some queue is full, bounds how far it is
// from the untruncated system: the loss probability is at most the
// truncation mass. With Problem.Cap = 0, Solve picks K itself: it starts at 8
// and raises K, predicting the next cap from the geometric decay of the
// truncation mass, until the mass is below Problem.Tol; each solve starts from
// the previous solution. If the state limit stops it first, the result is
// returned with Solution.CapLimited set as long as the mass is within
// Problem.MaxTruncationMass, and an error is returned otherwise.
//
// # Method
//
// The generator is stored sparsely by target state (compressed sparse rows of
// the transposed generator), for the policy-dependent arrival transitions
// only: departures follow from the state index and are generated on the fly.
// States are indexed in mixed radix, pstate*(K+1)^N + sum_j L_j*(K+1)^j.
//
// The balance equations pi Q = 0, sum pi = 1 are solved iteratively. One basic
// iteration is
//
//  1. an aggregation-disaggregation step for the partition of the states by
//     the total number of tasks, then for the partition by the length of each
//     server in turn. Every transition moves a state at most one class up or
//     down in any of these partitions, so each lumped chain is a birth-death
//     chain, solved exactly by detailed balance; pi is rescaled within each
//     class to the solved class masses. This fixes the slow, long-range modes
//     (mass moving between levels) that make plain relaxation crawl at high
//     load;
//  2. a forward and a backward Gauss-Seidel sweep of the balance equations,
//     which fix the distribution within classes.
//
// Anderson acceleration (depth 3) combines the last few iterates to speed up
// what remains (for example the slow cycling of a round-robin pointer); an
// accelerated iterate with a negative entry is discarded for the plain one,
// so every iterate is a probability vector. For random routing the answer
// is product form and one iteration finds it.
//
// The iteration stops when both ||pi Q||_1 <= Tol*(lambda*N + sum mu_j) and
// the flows across every cut between adjacent classes of those partitions
// balance to relative accuracy sqrt(Tol). The first test is the usual residual,
// dominated by the bulk of the distribution; the second is scale free and
// keeps the tail, hence the truncation mass, accurate. Solution.Residual and
// Solution.CutImbalance report the final values.
//
// Cost: memory is about 100 bytes per state (the distribution, the vectors of
// the acceleration, the out rates) plus 13 bytes per stored transition;
// building calls Route twice per state and origin. For N = 4, lambda = 0.9 and
// JSQ the automatic cap reaches the default state limit at K = 36 (1.9 million
// states) with a truncation mass of 2.3e-7, in a few seconds.
//
// The measures in Solution follow from the distribution: the occupancy q_i =
// E[#servers with at least i tasks]/N, the per-server queue-length marginals,
// the accepted arrival rate and the loss probability, the mean sojourn time by
// Little's law, and the probability that an accepted task joins a busy server
// (by PASTA, summed over the routing distribution).
package exact
