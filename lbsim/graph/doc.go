// Package graph provides compact immutable graphs for load-balancing
// simulations, and generators and analysis tools for them.
//
// # Representation
//
// A Graph is undirected and stored in compressed sparse row (CSR) form with
// uint32 vertex ids: Offsets() has N+1 uint64 entries and Adjacency() holds
// every neighbour list, sorted and without duplicates, one after the other.
// Each edge appears in both lists, so a graph costs 4 bytes per directed entry
// (8 per edge) plus 8 bytes per vertex. Neighbors(v) is a read-only sub-slice
// (no allocation), which is what a dispatch policy reads in its inner loop;
// HasEdge is a binary search. Graphs never change after construction and may
// be shared by any number of goroutines.
//
// Complete(n) is implicit: a flag, no lists, any n up to 2^32-1. Degree,
// HasEdge, Edges and the analysis functions handle it in closed form, but
// Neighbors panics on it (returning n-1 ids per call would hide an O(n) cost in
// what callers expect to be O(degree)): code that accepts any graph checks
// IsComplete and then uses a structure for the clique (for load balancing, the
// O(1) JSQ structure). Materialize expands a small clique explicitly.
//
// Ring, Circulant and Torus are implicit too (see Shape): neighbour i of v is
// computed (NeighborAt), and Degree, Edges and HasEdge need no lists; a policy
// that knows the Shape (two local choices in the per-server engine) never
// makes them. The CSR lists are made once, on the first call that needs them
// (Neighbors, Offsets, Adjacency, Validate, Equal, the analysis functions),
// and equal those of the same edges stored explicitly.
//
// ErdosRenyiImplicit(n, p, key) is an implicit G(n, p) (topology
// er-implicit): the pair {u, v} is an edge iff a keyed hash of the pair falls
// below p (PairHash), so HasEdge is O(1) and the graph costs nothing however
// dense. Neighbour JSQ reads it through PairHash only, searching the shortest
// servers of the whole system for the origin's neighbours instead of scanning
// the neighbourhood; anything that asks for the lists makes them by testing
// all n(n-1)/2 pairs.
//
// Builder turns an edge list into a Graph (dedupe, sort, drop self-loops unless
// KeepSelfLoops); ReadEdgeList and WriteEdgeList read and write the text form
// "u v" per line with '#' comments (ReadEdgeList refuses a self-loop, naming
// its line). ToGonum, FromGonum and WriteDOT connect to
// gonum (gonum.org/v1/gonum/graph), so its generators (graph/graphs/gen) and
// algorithms can be used too.
//
// # Generators and their costs
//
// Random generators take a *rand.Rand (math/rand/v2) and are reproducible: the
// same generator state gives the same graph, independently of GOMAXPROCS.
// Parameters out of range are errors naming the parameter and its range.
//
//   - ErdosRenyi(n, p) and ErdosRenyiMeanDegree(n, d): G(n, p) by geometric
//     skipping (Batagelj-Brandes): the gap to the next edge in a linear order
//     of the pairs is geometric, drawn as floor(E / -log(1-p)) with E
//     exponential (ziggurat), so the cost is O(n + M) whatever p. The pairs
//     w < v are cut into square tiles of about 1024 x 1024 vertices, each with
//     its own stream derived from rng and generated in parallel. The CSR is
//     written directly, without an edge list: pass 1 counts the entries of
//     every (vertex, tile) segment, a prefix sum turns the counts into
//     positions, and pass 2 replays the same streams and writes both
//     directions of each edge, in sorted order with no sorting. Tiles keep the
//     scattered writes of the transposed half within 2048 lists at a time,
//     which keeps them in the caches and the TLB. Extra memory is the segment
//     counters, at most an eighth of the adjacency. At N = 10^5, mean degree
//     sqrt(N) ln N (1.8e8 edges, 3.6e8 directed entries, a 1.46 GB CSR) it
//     takes 3 to 10 s on 2 shared cores (2e7 to 6e7 edges/s, depending on
//     load), with 4.1 bytes allocated per directed entry in all.
//   - RandomRegular(n, k): pairing (configuration) model plus a repair phase
//     of random edge switches that removes self-loops and multi-edges; O(nk)
//     time, 8 bytes per directed entry at peak; asymptotically (not exactly)
//     uniform. N = 10^6, k = 10 takes under a second.
//   - Ring(n, k): circulant graph, v joined to v±1..v±k mod n (degree 2k);
//     Circulant(n, shifts): v joined to v±s mod n for each shift s. Implicit.
//   - Torus(L): L x L grid with wrap-around, 4 neighbours each. Implicit.
//   - RandomGeometric(n, r): n uniform points on the unit torus, joined within
//     distance r; points are bucketed in cells of side >= r so only the 9
//     neighbouring cells are scanned: O(n + M) expected.
//   - CompleteSplit(n, c): clique of round(c n) vertices joined to an
//     independent set of the rest.
//   - CliquePendant(n, m): clique of m vertices, the other n-m vertices each
//     hanging off one clique vertex, round-robin.
//   - CompleteMultipartite(n, m): the complete graph minus the edges inside
//     consecutive blocks of m vertices (minimum degree n-m; m = 2: the
//     complete graph minus a perfect matching).
//
// # Analysis
//
// Degrees (min, max, mean, variance), Components and IsConnected (iterative
// BFS, O(N + M)), Girth (BFS from every vertex, O(N M), for small graphs), and
// Spectrum: the largest, second largest and smallest adjacency eigenvalues.
// Up to DenseLimit = 2000 vertices Spectrum is exact (gonum mat.EigenSym,
// AdjacencyEigenvalues gives the full spectrum); beyond it uses
// SpectrumLanczos: Lanczos with full reorthogonalisation, first for lambda_1
// and its vector v1 (exactly the constant vector for regular graphs), then in
// the orthogonal complement of v1 for lambda_2. Extreme isolated eigenvalues
// are found to rounding; lambda_2 at the edge of a continuous bulk (random
// regular or Erdos-Renyi graphs) converges like 1/steps^2 and is a slight
// underestimate: with the default 80 steps, 5e-4 below the exact value for a
// random 3-regular graph on 2000 vertices. See SpectrumLanczos.
package graph
