// Package compat holds bipartite compatibility graphs between servers and task
// types, their generators, and a measure of proportional sparsity: the model of
// Rutten and Mukherjee, "Load balancing under strict compatibility constraints"
// (SIGMETRICS 2021; Math. of OR 48(1), 2023).
//
// # The model
//
// N single-server queues and M task types. A fixed bipartite graph G says which
// servers can serve which types: N(w) is the set of servers compatible with type
// w. Tasks of type w arrive as a Poisson process of rate lambda*N*p_w, where p_w
// are the relative type rates (equal by default, Graph.WithTypeRates). An
// arriving task samples d servers uniformly at random from N(w) (without
// replacement by default; with replacement as an option) and joins the one with
// the fewest tasks, ties broken uniformly at random: the policy compat-jsqd of
// package lbsim. compat-jsq joins the shortest of all of N(w). On the complete
// bipartite graph compat-jsqd is ordinary JSQ(d), whose occupancy has the
// mean-field fixed point q_i = lambda^((d^i-1)/(d-1)).
//
// # Proportional sparsity
//
// For a set U of servers write u = |U|/N and s_w(U) = |N(w) ∩ U|/|N(w)|, the
// share of type w's compatible servers that lie in U. The graph sequence G_N is
// proportionally sparse when, for every epsilon > 0,
//
//	sup over U of (1/M) #{ w : |s_w(U) - u| >= epsilon }  ->  0   as N -> infinity:
//
// whatever the set of servers (for example those holding at least i tasks),
// almost every type sees about its proportional share of it, so a task samples
// from its neighbourhood as if it sampled from all servers. (This is how we
// state the paper's definition; we weigh types by their arrival rates, which is
// the same for equal rates.) The paper proves that proportionally sparse
// graphs give the same process-level and stationary mean-field limit as the
// complete graph, and that the random graphs in which every server is
// compatible with at most c(N) types drawn uniformly (Sparse) are
// proportionally sparse with high probability when c(N) -> infinity and
// N*c(N)/(M(N) ln N) -> infinity: with M of order N, a server degree of order
// (ln N)*omega(1) instead of M, almost a factor N/ln N fewer edges.
//
// Proportional sparsity is sufficient, not necessary. A block design with equal
// blocks (Blocks) is far from it, yet each block is a JSQ(d) system of N/B
// servers at the same load and reaches the same fixed point; spatial graphs
// (Ring, Torus) are not proportionally sparse either, yet match the fully
// flexible system when the neighbourhoods grow (Rutten and Mukherjee, spatial
// graphs). Blocks with unequal server shares do not: their blocks run at
// different loads. Sparsity estimates the deviation (SparsityReport) so that it
// can be put next to the performance gap.
//
// Stability needs more than lambda < 1 under constraints: every set T of types
// must reach servers of total rate above its arrival rate (a Hall-type
// condition). Skewed blocks can violate it at loads below 1.
//
// # Heterogeneous servers
//
// Servers may serve at different rates (lbsim.Scenario.Rates). As in Zhao,
// Mukherjee and Wu ("Exploiting data locality to improve performance of
// heterogeneous server clusters"), a task still joins the sampled server with
// the fewest tasks, not the smallest length/rate; on the complete graph this is
// the model of meanfield.HeterogeneousJSQdDrift.
//
// # Storage and generators
//
// Graph stores both sides in compressed sparse rows (types to servers and
// servers to types, uint32 ids, 8 bytes per edge); Complete is implicit. The
// generators are Complete, Random (every server c distinct uniform types),
// RandomTypes (every type k distinct uniform servers), Sparse (the paper's
// construction: c uniform draws per server, with replacement, degree <= c),
// Ring and Torus (spatial: servers and types spread evenly, compatible within a
// radius), Blocks (the clustered
// design), FromEdges and FromTypeLists (any graph, given edge by edge or type by
// type) and ReadEdgeList (a file of "type server" lines; WriteEdgeList writes
// one). The random ones draw from the *rand.Rand they are given, so a seed
// fixes the graph.
package compat
