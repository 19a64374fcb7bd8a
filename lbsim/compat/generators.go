package compat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

func checkEdges(what string, e float64) error {
	if e > MaxEdges {
		return fmt.Errorf("compat: %s: %.4g edges, more than %d", what, e, MaxEdges)
	}
	return nil
}

// Random returns the random graph in which every server is compatible with c
// distinct types drawn uniformly at random (independently across servers).
// Every server has degree exactly c; a type's degree is Binomial(N, c/M),
// mean N*c/M. 1 <= c <= types is required.
func Random(servers, types, c int, rng *rand.Rand) (*Graph, error) {
	if err := checkSizes(servers, types); err != nil {
		return nil, err
	}
	if c < 1 || c > types {
		return nil, fmt.Errorf("compat: Random: server degree c = %d: must be in [1, types = %d]", c, types)
	}
	if err := checkEdges("Random", float64(servers)*float64(c)); err != nil {
		return nil, err
	}
	off, adj := distinctLists(servers, types, c, rng)
	return fromServerLists(servers, types, off, adj), nil
}

// RandomTypes is the type-side variant of Random: every type is compatible
// with k distinct servers drawn uniformly at random, so every type has
// degree exactly k and a server's degree is Binomial(M, k/N). 1 <= k <=
// servers is required.
func RandomTypes(servers, types, k int, rng *rand.Rand) (*Graph, error) {
	if err := checkSizes(servers, types); err != nil {
		return nil, err
	}
	if k < 1 || k > servers {
		return nil, fmt.Errorf("compat: RandomTypes: type degree k = %d: must be in [1, servers = %d]", k, servers)
	}
	if err := checkEdges("RandomTypes", float64(types)*float64(k)); err != nil {
		return nil, err
	}
	off, adj := distinctLists(types, servers, k, rng)
	return fromTypeLists(servers, types, off, adj), nil
}

// Sparse is the random construction of Rutten and Mukherjee with server
// degree at most c: every server draws c types independently and uniformly
// at random (with replacement) and is compatible with the distinct types it
// drew. The paper proves the resulting graphs proportionally sparse with high
// probability when c(N) -> infinity and N*c(N)/(M(N) ln N) -> infinity; the
// server degree is then almost surely c(N)(1 - o(1)), a factor of about N/ln N
// below the M of the complete graph when M is of order N. c >= 1 is required.
func Sparse(servers, types, c int, rng *rand.Rand) (*Graph, error) {
	if err := checkSizes(servers, types); err != nil {
		return nil, err
	}
	if c < 1 {
		return nil, fmt.Errorf("compat: Sparse: server degree c = %d: must be at least 1", c)
	}
	if err := checkEdges("Sparse", float64(servers)*float64(c)); err != nil {
		return nil, err
	}
	off := make([]uint64, servers+1)
	adj := make([]uint32, servers*c)
	for j := range servers {
		off[j+1] = off[j] + uint64(c)
		for i := range c {
			adj[j*c+i] = uint32(rng.Uint64N(uint64(types)))
		}
	}
	return fromServerLists(servers, types, off, adj), nil
}

// distinctLists draws, for each of rows rows, k distinct values uniformly from
// [0, cols): rejection against a stamp array while k <= cols/2, otherwise the
// complement of cols-k distinct values.
func distinctLists(rows, cols, k int, rng *rand.Rand) ([]uint64, []uint32) {
	off := make([]uint64, rows+1)
	adj := make([]uint32, 0, rows*k)
	stamp := make([]uint32, cols)
	for v := range rows {
		gen := uint32(v + 1)
		if 2*k <= cols {
			for drawn := 0; drawn < k; {
				x := uint32(rng.Uint64N(uint64(cols)))
				if stamp[x] != gen {
					stamp[x] = gen
					adj = append(adj, x)
					drawn++
				}
			}
		} else {
			for drawn := 0; drawn < cols-k; {
				x := uint32(rng.Uint64N(uint64(cols)))
				if stamp[x] != gen {
					stamp[x] = gen
					drawn++
				}
			}
			for x := range uint32(cols) {
				if stamp[x] != gen {
					adj = append(adj, x)
				}
			}
		}
		off[v+1] = uint64(len(adj))
	}
	return off, adj
}

// Ring places the servers and the types evenly on the unit circle, server j
// at j/N and type t at (t+1/2)/M, and makes a type compatible with every
// server within circular distance radius of it. A type then sees about
// 2*radius*N servers. It is deterministic. 0 < radius <= 1/2 is required.
func Ring(servers, types int, radius float64) (*Graph, error) {
	if err := checkSizes(servers, types); err != nil {
		return nil, err
	}
	if !(radius > 0 && radius <= 0.5) {
		return nil, fmt.Errorf("compat: Ring: radius = %v: must be in (0, 0.5]", radius)
	}
	n := float64(servers)
	if err := checkEdges("Ring", float64(types)*(2*radius*n+1)); err != nil {
		return nil, err
	}
	off := make([]uint64, types+1)
	var adj []uint32
	for t := range types {
		y := (float64(t) + 0.5) / float64(types)
		lo, hi := int(math.Floor((y-radius)*n))-1, int(math.Ceil((y+radius)*n))+1
		hi = min(hi, lo+servers-1) // at most every server once
		for k := lo; k <= hi; k++ {
			j := ((k % servers) + servers) % servers
			d := math.Abs(float64(j)/n - y)
			if min(d, 1-d) <= radius {
				adj = append(adj, uint32(j))
			}
		}
		off[t+1] = uint64(len(adj))
	}
	return fromTypeLists(servers, types, off, adj), nil
}

// Torus places the servers and the types evenly on the unit torus [0,1)^2
// and makes a type compatible with every server within (wrap-around
// Euclidean) distance radius. A type then sees about pi*radius^2*N servers.
// "Evenly" is the rank-1 Kronecker lattice: point k of n is at (k/n,
// frac(k*phi)) with phi the golden ratio, whose density is uniform at every
// scale above 1/sqrt(n) for every n, so no region is overloaded (uniformly
// random positions would leave regions with more types than servers, which
// overload at high load whatever the policy). Ids are given in spatial order
// (row-major by cells of side about radius), so that a range of consecutive
// ids is a region of the torus. It is deterministic. 0 < radius <=
// sqrt(2)/2 is required.
func Torus(servers, types int, radius float64) (*Graph, error) {
	g, _, _, err := torus(servers, types, radius)
	return g, err
}

// torus is Torus, also returning the positions of the servers and types
// (in id order) for the tests.
func torus(servers, types int, radius float64) (*Graph, []point, []point, error) {
	if err := checkSizes(servers, types); err != nil {
		return nil, nil, nil, err
	}
	if !(radius > 0 && radius <= math.Sqrt2/2) {
		return nil, nil, nil, fmt.Errorf("compat: Torus: radius = %v: must be in (0, %.6g]", radius, math.Sqrt2/2)
	}
	area := math.Min(math.Pi*radius*radius, 1)
	if err := checkEdges("Torus", float64(types)*float64(servers)*area*1.05+float64(types)); err != nil {
		return nil, nil, nil, err
	}
	cells := max(1, int(1/radius)) // cells per side, side >= radius
	sp := latticePoints(servers, cells)
	tp := latticePoints(types, cells)
	// Servers of cell c have the consecutive ids start[c]..start[c+1]-1.
	start := make([]int, cells*cells+1)
	for _, p := range sp {
		start[p.cell+1]++
	}
	for c := range cells * cells {
		start[c+1] += start[c]
	}
	wrap := func(d float64) float64 {
		d = math.Abs(d)
		return math.Min(d, 1-d)
	}
	r2 := radius * radius
	off := make([]uint64, types+1)
	var adj []uint32
	for t, p := range tp {
		cx, cy := p.cell%cells, p.cell/cells
		check := func(lo, hi int) {
			for j := lo; j < hi; j++ {
				dx, dy := wrap(sp[j].x-p.x), wrap(sp[j].y-p.y)
				if dx*dx+dy*dy <= r2 {
					adj = append(adj, uint32(j))
				}
			}
		}
		if cells < 3 {
			check(0, servers)
		} else {
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					c := ((cy+dy+cells)%cells)*cells + (cx+dx+cells)%cells
					check(start[c], start[c+1])
				}
			}
		}
		off[t+1] = uint64(len(adj))
	}
	return fromTypeLists(servers, types, off, adj), sp, tp, nil
}

type point struct {
	x, y float64
	cell int
}

// latticePoints returns the n points (k/n, frac(k*phi)) of the Kronecker
// lattice on the unit torus, sorted by cell (row-major, cells x cells), then
// by x.
func latticePoints(n, cells int) []point {
	phi := (math.Sqrt(5) - 1) / 2
	ps := make([]point, n)
	for k := range ps {
		x := float64(k) / float64(n)
		_, y := math.Modf(float64(k) * phi)
		cx, cy := min(int(x*float64(cells)), cells-1), min(int(y*float64(cells)), cells-1)
		ps[k] = point{x: x, y: y, cell: cy*cells + cx}
	}
	slices.SortStableFunc(ps, func(a, b point) int {
		if a.cell != b.cell {
			return a.cell - b.cell
		}
		switch {
		case a.x < b.x:
			return -1
		case a.x > b.x:
			return 1
		}
		return 0
	})
	return ps
}

// BlockSizes splits n items into len(shares) blocks in proportion to shares
// (largest remainder, ties to the earlier block), each block getting at least
// one item. shares must be finite and > 0, and n >= len(shares).
func BlockSizes(n int, shares []float64) ([]int, error) {
	b := len(shares)
	if b < 1 {
		return nil, fmt.Errorf("compat: block shares: none given; want one share per block")
	}
	if n < b {
		return nil, fmt.Errorf("compat: %d blocks need at least %d items, have %d", b, b, n)
	}
	total := 0.0
	for k, s := range shares {
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("compat: block share %d = %v: must be finite and > 0", k, s)
		}
		total += s
	}
	// One item per block first, the rest by largest remainder.
	rest := n - b
	sizes := make([]int, b)
	frac := make([]float64, b)
	used := 0
	for k, s := range shares {
		x := s / total * float64(rest)
		sizes[k] = 1 + int(math.Floor(x))
		frac[k] = x - math.Floor(x)
		used += sizes[k]
	}
	order := make([]int, b)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case frac[i] > frac[j]:
			return -1
		case frac[i] < frac[j]:
			return 1
		}
		return 0
	})
	for i := 0; used < n; i++ {
		sizes[order[i%b]]++
		used++
	}
	return sizes, nil
}

// Blocks is the clustered design: the servers are split into len(shares)
// blocks of consecutive ids with sizes in proportion to shares (BlockSizes),
// the types into as many blocks of equal size (type t in block floor(t*B/M)),
// and a type is compatible with every server of its own block and no other.
// It is not proportionally sparse: the servers of one block are all that the
// types of that block see and none of what the others see. With equal shares
// and equal type rates each block is an independent JSQ(d) system of N/B
// servers at the same load, so at fixed B it still reaches the JSQ(d) fixed
// point as N grows (proportional sparsity is sufficient, not necessary);
// with unequal shares the blocks run at different loads, and the occupancy
// stays away from the fixed point. types >= len(shares) is required.
func Blocks(servers, types int, shares []float64) (*Graph, error) {
	if err := checkSizes(servers, types); err != nil {
		return nil, err
	}
	sizes, err := BlockSizes(servers, shares)
	if err != nil {
		return nil, err
	}
	b := len(shares)
	if types < b {
		return nil, fmt.Errorf("compat: Blocks: types = %d: must be at least the number of blocks (%d)", types, b)
	}
	first := make([]int, b+1)
	for k, s := range sizes {
		first[k+1] = first[k] + s
	}
	e := 0.0
	for t := range types {
		e += float64(sizes[t*b/types])
	}
	if err := checkEdges("Blocks", e); err != nil {
		return nil, err
	}
	off := make([]uint64, types+1)
	adj := make([]uint32, 0, int(e))
	for t := range types {
		k := t * b / types
		for j := first[k]; j < first[k+1]; j++ {
			adj = append(adj, uint32(j))
		}
		off[t+1] = uint64(len(adj))
	}
	return fromTypeLists(servers, types, off, adj), nil
}

// TypeBlock returns the block of type t in a graph made by Blocks with b
// blocks and types types.
func TypeBlock(t, types, b int) int { return t * b / types }
