// Package trickle simulates the Trickle algorithm (RFC 6206) for code
// maintenance in wireless sensor networks and its generalisation with a
// listen-only period, the model of Meyfroyt, Borst, Boxma and Denteneer
// ("Data dissemination performance in large-scale sensor networks",
// SIGMETRICS 2014), and states what is known in closed form about its
// message count and inter-broadcast times.
//
// # Model
//
// n nodes; a node hears every transmission of its neighbours in a hearing
// graph (the single cell: everybody hears everybody; or a grid, a torus, a
// random geometric graph or an edge-list file, see Lattice and package
// graph). Node i's intervals have length tau and start at a_i + m*tau, with
// a_i uniform in [0, tau) drawn once per replication (unsynchronized), or
// a_i = 0 (Sync). With the doubling of RFC 6206 (Imin > 0) a node's first
// interval has length Imin and each next one twice the last, up to tau.
// At the start of each interval a node resets its counter c to 0 and picks
// a time t uniform in [eta*I, I] of its interval of length I (eta is the
// listen-only fraction; 0 is the original Trickle). Each transmission it
// hears increments c; at t it transmits if c < k (the redundancy constant).
//
// Measured: the transmissions per interval length tau in [Warmup,
// Horizon) in the whole network (messages_per_interval) and per node, with
// 95% confidence half-widths over replications (each redraws the phases);
// per-node rates (their quantiles over nodes: in a multi-cell network they
// differ); the times between consecutive transmissions in the whole
// network (inter-broadcast times), their mean and quantiles.
//
// # What is derived, what is measured
//
// Derived here (and checked by the tests against the simulation):
//
//   - Synchronized single cell: in every interval the first min(n, k)
//     chosen times transmit and the others hear k transmissions first, so
//     there are exactly min(n, k) transmissions per interval
//     (SyncMessages). The gaps are spacings of uniform order statistics
//     within an interval, (1-eta) Beta(1, n), and across the boundary
//     1 - (1-eta)(U_(k) - U'_(1)) (SyncGapCDF, exact).
//   - One node (n = 1): one transmission per interval, gaps triangular on
//     [eta, 2-eta] (SingleNodeGapCDF, exact).
//   - No gap exceeds 2 tau: every interval of every node holds a
//     transmission heard by that node or its own.
//   - Unsynchronized single cell with k = 1: after a transmission every node
//     whose interval began earlier is silenced, so the next one comes from a
//     node whose interval starts after it: with the other phases taken as
//     independent uniforms, P(G > eta + x) = (1 - x^2/(2(1-eta)))^(n-1)
//     (UnsyncK1GapSurvival) and the count is 1/E[G] (UnsyncK1Messages),
//     asymptotically 1/(eta + sqrt(pi(1-eta)/(2n))) (UnsyncK1Asymptote): it
//     grows like sqrt(2n/pi) without listen-only period and is bounded by
//     1/eta with one; the gaps are at least eta. This independence
//     approximation is not exact at small n; the simulation measures its
//     error.
//   - Synchronized multi-cell network with k = 1: the transmitters of an
//     interval are the greedy packing of the nodes in the random order of
//     their times (a node transmits iff no neighbour transmitted before);
//     on dense random geometric graphs this is random sequential adsorption
//     of disks of diameter r (SyncK1GeometricDensity, a continuum
//     approximation).
//
// Approximated (Approximate, printed by lbsim trickle as
// approx_messages_per_interval): the count on any hearing graph, from a fixed
// point over the degree classes with independent neighbours, a pair step
// (a node's own last transmission silenced its neighbours) and a correction,
// by each class's clustering coefficient, towards the single cell's figure;
// unsynchronized within 5% of simulation for eta <= 1/4 and 10% at
// eta = 1/2, low by up to about 23% at eta = 3/4; synchronized within 20%
// (see Approximate).
//
// Measured only: the growth law with k >= 2 and eta = 0 (fitted exponents),
// the count as a function of eta and k at finite n, the multi-cell counts of
// unsynchronized networks (against the single-cell approximation per
// neighbourhood), the transient of the doubling.
//
// # Simulation
//
// Every node has exactly one pending event: its next interval start or its
// transmission decision. Events sit in a calendar, a ring of buckets of
// width tau/(8n) (tau/(2n) above 2^18 nodes) linked through the nodes; a
// bucket with several events is sorted by (time, node) when it comes up
// (simultaneous interval starts of synchronized nodes by a bitmap of ids),
// so events are processed in exact time order at O(1) expected cost each. In a single cell the counters cost
// O(1) per transmission: the network keeps one transmission count and a
// node keeps the count at its interval start, so it has heard the
// difference. In a multi-cell network a transmission increments the
// counters of the transmitter's neighbours: O(degree). A replication holds
// BytesPerNode bytes per node besides the hearing graph. Replication r
// draws from mc.Source(seed, r): the phases in node order, then one uniform
// per interval start in event order, so results do not depend on the
// number of cores.
package trickle
