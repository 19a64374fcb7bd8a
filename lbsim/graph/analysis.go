package graph

// DegreeStats summarises the degree sequence. Variance is the population
// variance (1/N) sum (d_v - mean)^2.
type DegreeStats struct {
	Min, Max       int
	Mean, Variance float64
}

// Degrees returns the degree statistics of g (zero for N = 0).
func Degrees(g *Graph) DegreeStats {
	n := g.n
	if n == 0 {
		return DegreeStats{}
	}
	if g.complete {
		return DegreeStats{Min: n - 1, Max: n - 1, Mean: float64(n - 1)}
	}
	st := DegreeStats{Min: g.Degree(0), Max: g.Degree(0)}
	var sum float64
	for v := 0; v < n; v++ {
		d := g.Degree(v)
		st.Min, st.Max = min(st.Min, d), max(st.Max, d)
		sum += float64(d)
	}
	st.Mean = sum / float64(n)
	var ss float64
	for v := 0; v < n; v++ {
		x := float64(g.Degree(v)) - st.Mean
		ss += x * x
	}
	st.Variance = ss / float64(n)
	return st
}

// Components returns the connected components: label[v] is the component of
// v (numbered in order of their smallest vertex) and sizes[c] the size of
// component c. It uses an iterative BFS in O(N + M).
func Components(g *Graph) (label []uint32, sizes []int) {
	n := g.n
	label = make([]uint32, n)
	if g.complete {
		if n > 0 {
			sizes = []int{n}
		}
		return label, sizes
	}
	const none = ^uint32(0)
	for i := range label {
		label[i] = none
	}
	queue := make([]uint32, 0, 64)
	for s := 0; s < n; s++ {
		if label[s] != none {
			continue
		}
		c := uint32(len(sizes))
		label[s] = c
		queue = append(queue[:0], uint32(s))
		for h := 0; h < len(queue); h++ {
			for _, w := range g.Neighbors(int(queue[h])) {
				if label[w] == none {
					label[w] = c
					queue = append(queue, w)
				}
			}
		}
		sizes = append(sizes, len(queue))
	}
	return label, sizes
}

// IsConnected reports whether g has exactly one component (the empty graph is
// not connected).
func IsConnected(g *Graph) bool {
	_, sizes := Components(g)
	return len(sizes) == 1
}

// Girth returns the length of a shortest cycle, or 0 if g is a forest (self
// loops are ignored). It runs a BFS from every vertex, each cut off once it
// cannot improve the best cycle found, so it costs O(N M) in the worst case:
// meant for graphs up to some 10^4 vertices.
func Girth(g *Graph) int {
	n := g.n
	if g.complete {
		if n >= 3 {
			return 3
		}
		return 0
	}
	best := 0
	dist := make([]int32, n)
	parent := make([]uint32, n)
	for i := range dist {
		dist[i] = -1
	}
	var queue, seen []uint32
	for s := 0; s < n; s++ {
		for _, v := range seen {
			dist[v] = -1
		}
		dist[s] = 0
		queue = append(queue[:0], uint32(s))
		seen = append(seen[:0], uint32(s))
	bfs:
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			if best > 0 && 2*int(dist[u]) >= best {
				break
			}
			for _, w := range g.Neighbors(int(u)) {
				if w == u {
					continue
				}
				if dist[w] < 0 {
					dist[w] = dist[u] + 1
					parent[w] = u
					queue = append(queue, w)
					seen = append(seen, w)
				} else if parent[u] != w {
					// Non-tree edge (u != s here: all neighbours of s are
					// new when s is scanned): a closed walk through s of
					// length dist[u]+dist[w]+1, which contains a cycle at
					// most that long; for s on a shortest cycle it is one.
					c := int(dist[u] + dist[w] + 1)
					if best == 0 || c < best {
						best = c
					}
					if best == 3 {
						break bfs
					}
				}
			}
		}
		if best == 3 {
			break
		}
	}
	return best
}
