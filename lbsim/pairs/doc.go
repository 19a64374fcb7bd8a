// Package pairs holds the distributions over server sets that tasks sample:
// the pair (or, more generally, the d-set) a task of power-of-two or of a
// redundancy system looks at.
//
// Power-of-two normally samples every pair of servers with equal
// probability. Assignment constraints make the sampling non-uniform: the
// allowed pairs are the edges of a graph, possibly weighted (Cardinaels,
// Borst and van Leeuwaarden 2022). A Dist is one of
//
//   - Uniform(n, d): every d-set of the n servers equally likely (implicit:
//     nothing is stored, a draw is d distinct uniform servers);
//   - FromGraph(g): the edges of a graph (package graph: ring, torus, random
//     regular, Erdos-Renyi, an edge list, ...), each equally likely;
//   - Weighted(n, u, v, w) or ReadEdgeList: edges with weights ("u v w"
//     lines; a missing weight is 1), each drawn with probability w / sum(w).
//
// Explicit distributions draw an edge in O(1) by an alias table. Sets lists
// the sets with their probabilities, which the exact solutions need; for
// Uniform it enumerates the d-sets, so it is meant for small n.
package pairs
