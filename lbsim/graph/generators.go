package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lbsim/notebooks/lbsim/param"
)

// RandomRegular returns a random simple k-regular graph on n vertices (n*k
// even, 0 <= k < n).
//
// It uses the configuration (pairing) model: n*k stubs are shuffled and paired
// consecutively, which makes a multigraph whose self-loops and multi-edges
// (about (k-1)/2 and (k-1)^2/4 of them on average) are then removed by random
// edge switches: a bad edge {u, v} and a uniformly random edge {x, y} are
// replaced by {u, x} and {v, y} when neither is a loop or already present. The
// number of bad edges strictly decreases, so the repair takes O(k^2) expected
// work per bad edge; the whole generation costs O(n k) time and 8 bytes per
// directed entry at peak. The result is asymptotically uniform over k-regular
// graphs (exact uniformity would require rejecting every non-simple pairing,
// which succeeds with probability about exp(-(k^2-1)/4)); the repair only
// touches O(k^2) edges.
func RandomRegular(n, k int, rng *rand.Rand) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: RandomRegular: n = %d out of range [0, %d]", n, MaxVertices)
	}
	if k < 0 || (k >= n && n > 0) || (n == 0 && k != 0) {
		return nil, fmt.Errorf("graph: RandomRegular: degree k = %d out of range [0, %d]", k, max(n-1, 0))
	}
	if n*k%2 != 0 {
		return nil, fmt.Errorf("graph: RandomRegular: n*k = %d*%d must be even", n, k)
	}
	if float64(n)*float64(k) > math.MaxInt32*2 {
		return nil, fmt.Errorf("graph: RandomRegular: n*k = %d*%d too large", n, k)
	}
	nk := n * k
	slots := make([]uint32, nk)
	stubs := make([]uint32, nk)
	for try := 0; try < 20; try++ {
		for i := range stubs {
			stubs[i] = uint32(i / k)
		}
		for i := nk - 1; i > 0; i-- {
			j := rng.IntN(i + 1)
			stubs[i], stubs[j] = stubs[j], stubs[i]
		}
		next := make([]uint32, n)
		for i := 0; i+1 < nk; i += 2 {
			u, v := stubs[i], stubs[i+1]
			slots[int(u)*k+int(next[u])] = v
			next[u]++
			slots[int(v)*k+int(next[v])] = u
			next[v]++
		}
		if repairRegular(n, k, slots, rng, 200*nk+100000) {
			off := make([]uint64, n+1)
			for v := 0; v < n; v++ {
				slices.Sort(slots[v*k : (v+1)*k])
				off[v+1] = uint64((v + 1) * k)
			}
			return &Graph{n: n, off: off, adj: slots}, nil
		}
	}
	return nil, fmt.Errorf("graph: RandomRegular: repair of the pairing failed repeatedly for n = %d, k = %d", n, k)
}

// repairRegular removes loops and multi-edges from the k-slot adjacency by
// random switches. It reports false if it gives up after budget attempts.
func repairRegular(n, k int, s []uint32, rng *rand.Rand, budget int) bool {
	row := func(u uint32) []uint32 { return s[int(u)*k : int(u+1)*k] }
	has := func(u, x uint32) bool { return slices.Contains(row(u), x) }
	replace := func(u, old, nw uint32) {
		r := row(u)
		r[slices.Index(r, old)] = nw
	}
	// badSlot returns a neighbour of u that is u itself or repeated.
	badSlot := func(u uint32) (uint32, bool) {
		r := row(u)
		for i, x := range r {
			if x == u || slices.Contains(r[i+1:], x) {
				return x, true
			}
		}
		return 0, false
	}
	var queue []uint32
	for u := 0; u < n; u++ {
		if _, bad := badSlot(uint32(u)); bad {
			queue = append(queue, uint32(u))
		}
	}
	nk := n * k
	for _, u := range queue {
		for {
			v, bad := badSlot(u)
			if !bad {
				break
			}
			for {
				if budget--; budget < 0 {
					return false
				}
				t := rng.IntN(nk)
				x, y := uint32(t/k), s[t]
				if u == x || v == y || (u == v && x == y) || (u == y && v == x) {
					continue
				}
				if has(u, x) || has(v, y) {
					continue
				}
				replace(u, v, x)
				replace(v, u, y)
				replace(x, y, u)
				replace(y, x, v)
				break
			}
		}
	}
	return true
}

// Ring returns the ring lattice (circulant graph) on n vertices in which every
// vertex is joined to its k nearest neighbours on each side: v ~ v±1, ...,
// v±k (mod n). It needs 0 <= k and 2k < n, so every vertex has degree 2k. The
// graph is implicit (see Shape): Circulant(n, [1..k]).
func Ring(n, k int) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: Ring: n = %d out of range [0, %d]", n, MaxVertices)
	}
	if k < 0 || (n > 0 && 2*k >= n) || (n == 0 && k != 0) {
		return nil, fmt.Errorf("graph: Ring: k = %d out of range [0, %d] for n = %d (need 2k < n)", k, max((n-1)/2, 0), n)
	}
	shifts := make([]int, k)
	for j := range shifts {
		shifts[j] = j + 1
	}
	return &Graph{n: n, shape: &implicit{shape: Shape{Shifts: shifts}}}, nil
}

// Torus returns the L x L torus grid with 4-neighbour adjacency: vertex
// x + L*y is joined to (x±1, y) and (x, y±1) mod L. It needs L >= 3 (smaller L
// would create loops or double edges). The graph is implicit (see Shape).
func Torus(L int) (*Graph, error) {
	if L < 3 || float64(L)*float64(L) > MaxVertices {
		return nil, fmt.Errorf("graph: Torus: side L = %d out of range [3, %d]", L, int(math.Sqrt(MaxVertices)))
	}
	return &Graph{n: L * L, shape: &implicit{shape: Shape{Side: L}}}, nil
}

// Point is a position in the unit square [0, 1)^2.
type Point struct{ X, Y float64 }

// TorusDist returns the distance between p and q on the unit torus.
func TorusDist(p, q Point) float64 {
	dx, dy := math.Abs(p.X-q.X), math.Abs(p.Y-q.Y)
	dx, dy = min(dx, 1-dx), min(dy, 1-dy)
	return math.Sqrt(dx*dx + dy*dy)
}

// RandomGeometric returns the random geometric graph on the unit torus: n
// points uniform in [0, 1)^2 (returned; vertex i is at pts[i]), two joined
// when their torus distance is at most r (0 <= r <= sqrt(2)/2).
//
// Points are bucketed in a grid of cells of side >= r, and each point is
// compared with the points of its own and the 8 adjacent cells, so the cost
// is O(n + M) expected (the candidate pairs are about 9/(pi) ~ 3 times the
// edges). Lists are built in two passes (count, fill) and then sorted.
// When r > 1/3 the grid has fewer than 3 cells per side and all pairs are
// compared, which is still O(M) since M is then a constant fraction of n^2.
// Once the interrupt context of package param is done (SIGINT on the command
// line) it stops with an error wrapping context.Canceled.
func RandomGeometric(n int, r float64, rng *rand.Rand) (*Graph, []Point, error) {
	if n < 0 || n > MaxVertices {
		return nil, nil, fmt.Errorf("graph: RandomGeometric: n = %d out of range [0, %d]", n, MaxVertices)
	}
	if !(r >= 0 && r <= math.Sqrt2/2) {
		return nil, nil, fmt.Errorf("graph: RandomGeometric: radius r = %v out of range [0, %v]", r, math.Sqrt2/2)
	}
	pts := make([]Point, n)
	for i := range pts {
		pts[i] = Point{rng.Float64(), rng.Float64()}
	}
	G := 1
	if r > 0 {
		G = int(math.Min(1/r, math.Sqrt(float64(n))+1))
	}
	if G < 3 {
		G = 1
	}
	cellOf := func(p Point) int {
		cx, cy := min(int(p.X*float64(G)), G-1), min(int(p.Y*float64(G)), G-1)
		return cx + G*cy
	}
	// Counting sort of the points by cell.
	start := make([]int, G*G+1)
	for _, p := range pts {
		start[cellOf(p)+1]++
	}
	for c := 0; c < G*G; c++ {
		start[c+1] += start[c]
	}
	order := make([]uint32, n)
	pos := slices.Clone(start[:G*G])
	for i, p := range pts {
		c := cellOf(p)
		order[pos[c]] = uint32(i)
		pos[c]++
	}
	r2 := r * r
	near := func(p, q Point) bool {
		dx, dy := math.Abs(p.X-q.X), math.Abs(p.Y-q.Y)
		dx, dy = min(dx, 1-dx), min(dy, 1-dy)
		return dx*dx+dy*dy <= r2
	}
	// visit calls f(i, j) for every pair i != j within distance r, once per
	// ordered pair, scanning cell neighbourhoods. It checks for an interrupt
	// (param.Interrupted: 10^8 entries take seconds) after each row of
	// cells and returns its error.
	visit := func(f func(i, j uint32)) error {
		for cy := 0; cy < G; cy++ {
			if err := param.Interrupted(); err != nil {
				return err
			}
			for cx := 0; cx < G; cx++ {
				own := order[start[cx+G*cy]:start[cx+G*cy+1]]
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						if G == 1 && (dx != 0 || dy != 0) {
							continue
						}
						c := (cx+dx+G)%G + G*((cy+dy+G)%G)
						other := order[start[c]:start[c+1]]
						for _, i := range own {
							p := pts[i]
							for _, j := range other {
								if i != j && near(p, pts[j]) {
									f(i, j)
								}
							}
						}
					}
				}
			}
		}
		return nil
	}
	off := make([]uint64, n+1)
	if err := visit(func(i, _ uint32) { off[i+1]++ }); err != nil {
		return nil, nil, err
	}
	for v := 0; v < n; v++ {
		off[v+1] += off[v]
	}
	adj := make([]uint32, off[n])
	fill := slices.Clone(off[:n])
	if err := visit(func(i, j uint32) {
		adj[fill[i]] = j
		fill[i]++
	}); err != nil {
		return nil, nil, err
	}
	for v := 0; v < n; v++ {
		if v%(1<<16) == 0 {
			if err := param.Interrupted(); err != nil {
				return nil, nil, err
			}
		}
		slices.Sort(adj[off[v]:off[v+1]])
	}
	return &Graph{n: n, off: off, adj: adj}, pts, nil
}

// CompleteSplit returns the complete split graph on n vertices: a clique on
// the m = round(c*n) vertices 0..m-1, each joined to every vertex of the
// independent set m..n-1 (0 <= c <= 1). Clique vertices have degree n-1, the
// others degree m.
func CompleteSplit(n int, c float64) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: CompleteSplit: n = %d out of range [0, %d]", n, MaxVertices)
	}
	if !(c >= 0 && c <= 1) {
		return nil, fmt.Errorf("graph: CompleteSplit: clique fraction c = %v out of range [0, 1]", c)
	}
	m := int(math.Round(c * float64(n)))
	entries := float64(m)*float64(n-1) + float64(n-m)*float64(m)
	if entries > MaxMaterialize {
		return nil, fmt.Errorf("graph: CompleteSplit: %v directed entries exceed %d", entries, MaxMaterialize)
	}
	off := make([]uint64, n+1)
	adj := make([]uint32, 0, int(entries))
	for v := 0; v < n; v++ {
		if v < m {
			for u := 0; u < n; u++ {
				if u != v {
					adj = append(adj, uint32(u))
				}
			}
		} else {
			for u := 0; u < m; u++ {
				adj = append(adj, uint32(u))
			}
		}
		off[v+1] = uint64(len(adj))
	}
	return &Graph{n: n, off: off, adj: adj}, nil
}

// CliquePendant returns a clique on the vertices 0..m-1 plus n-m pendant
// vertices: vertex v >= m is joined only to clique vertex (v-m) mod m
// (round-robin). It needs 1 <= m <= n (or n = m = 0).
func CliquePendant(n, m int) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: CliquePendant: n = %d out of range [0, %d]", n, MaxVertices)
	}
	if m > n || m < 0 || (m == 0 && n > 0) {
		return nil, fmt.Errorf("graph: CliquePendant: clique size m = %d out of range [1, %d]", m, n)
	}
	if float64(m)*float64(m) > MaxMaterialize {
		return nil, fmt.Errorf("graph: CliquePendant: clique size m = %d too large", m)
	}
	off := make([]uint64, n+1)
	adj := make([]uint32, 0, m*(m-1)+2*(n-m))
	for v := 0; v < n; v++ {
		if v < m {
			for u := 0; u < m; u++ {
				if u != v {
					adj = append(adj, uint32(u))
				}
			}
			for u := m + v; u < n; u += m {
				adj = append(adj, uint32(u))
			}
		} else {
			adj = append(adj, uint32((v-m)%m))
		}
		off[v+1] = uint64(len(adj))
	}
	return &Graph{n: n, off: off, adj: adj}, nil
}

// CompleteMultipartite returns the complete graph on n vertices minus the
// edges inside consecutive blocks of m vertices: vertex v is joined to every u
// with u/m != v/m (parts {0..m-1}, {m..2m-1}, ...; the last one is smaller
// when m does not divide n). Every vertex of a full part has degree n-m, so
// the minimum degree is n-m when m <= n. m = 1 gives the complete graph
// (materialized), m = 2 the complete graph minus a perfect matching (n even),
// m = n the empty graph. It needs 1 <= m <= n (or n = 0) and n(n-1) entries
// at most MaxMaterialize.
func CompleteMultipartite(n, m int) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: CompleteMultipartite: n = %d out of range [0, %d]", n, MaxVertices)
	}
	if n > 0 && (m < 1 || m > n) {
		return nil, fmt.Errorf("graph: CompleteMultipartite: part size m = %d out of range [1, %d]", m, n)
	}
	if n == 0 {
		return &Graph{n: 0, off: make([]uint64, 1)}, nil
	}
	entries := 0.0
	for start := 0; start < n; start += m {
		size := float64(min(m, n-start))
		entries += size * (float64(n) - size)
	}
	if entries > MaxMaterialize {
		return nil, fmt.Errorf("graph: CompleteMultipartite: %v directed entries exceed %d", entries, MaxMaterialize)
	}
	off := make([]uint64, n+1)
	adj := make([]uint32, 0, int(entries))
	for v := 0; v < n; v++ {
		lo := v / m * m
		hi := min(lo+m, n)
		for u := 0; u < lo; u++ {
			adj = append(adj, uint32(u))
		}
		for u := hi; u < n; u++ {
			adj = append(adj, uint32(u))
		}
		off[v+1] = uint64(len(adj))
	}
	return &Graph{n: n, off: off, adj: adj}, nil
}
