package compat

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// SparsityOptions tunes Sparsity. The zero value is usable.
type SparsityOptions struct {
	// Epsilon is the deviation counted by SparsityReport.Exceed (default 0.1).
	Epsilon float64
	// RandomSets is the number of random type sets drawn per size (default 2).
	RandomSets int
}

// SparsityReport says how far a graph is from proportional sparsity, over the
// server sets U that Sparsity tried. For a set U, with u = |U|/N, type w sees
// the share s_w(U) = |N(w) ∩ U| / |N(w)| of its compatible servers in U;
// proportional sparsity asks s_w(U) ≈ u for almost all types, for every U.
type SparsityReport struct {
	// Deviation is the largest, over the sets tried, of the rate-weighted mean
	// over types of |s_w(U) - u|: 0 for the complete graph, of the order of
	// sqrt(u(1-u)/degree) (sampling noise) for a random graph whose types
	// have that degree, and up to 2u(1-u) when the types split
	// into those that see all of U and those that see none of it (blocks,
	// spatial graphs). It is the number to compare across graphs.
	Deviation float64
	// Exceed is the largest, over the sets tried, of the rate-weighted
	// fraction of types with |s_w(U) - u| > Epsilon: the quantity the
	// definition of proportional sparsity asks to vanish as N grows.
	Exceed  float64
	Epsilon float64
	// Sets is the number of sets tried; Worst describes the set that attained
	// Deviation and WorstShare is its u.
	Sets       int
	Worst      string
	WorstShare float64
}

// Sparsity estimates how far g is from proportional sparsity. The supremum
// over all server sets U in the definition cannot be computed, so it is
// estimated over sets that expose the structures that break it:
//
//   - U = N(T), the servers reached by a set T of types, for T a range of
//     consecutive type ids (from 0 and from a random start) and a uniformly
//     random set of types, for sizes 1, 2, 4, ... and M/2 .. M/8;
//   - ranges of consecutive server ids (from 0 and from a random start) and
//     uniformly random sets, with u = 1/2, 1/4, 1/8.
//
// The generators number servers and types along their structure (blocks,
// positions on the ring or torus), so ranges of ids are the sets where such
// graphs deviate most. Types weigh by their arrival rates; types without any
// compatible server are left out (Degrees counts them). The cost is
// O(sets * (edges + N)) with about 4*(log2 M + 10) sets. rng draws the random
// starts and sets.
func Sparsity(g *Graph, opt SparsityOptions, rng *rand.Rand) (SparsityReport, error) {
	if opt.Epsilon == 0 {
		opt.Epsilon = 0.1
	}
	if !(opt.Epsilon > 0 && opt.Epsilon < 1) {
		return SparsityReport{}, fmt.Errorf("compat: Sparsity: Epsilon = %v: must be in (0, 1)", opt.Epsilon)
	}
	if opt.RandomSets == 0 {
		opt.RandomSets = 2
	}
	if opt.RandomSets < 0 {
		return SparsityReport{}, fmt.Errorf("compat: Sparsity: RandomSets = %d: must be >= 0", opt.RandomSets)
	}
	rep := SparsityReport{Epsilon: opt.Epsilon}
	if g.complete {
		// Every type sees every server: s_w(U) = u exactly.
		rep.Worst = "complete: every type sees every server"
		return rep, nil
	}
	n, m := g.n, g.m
	weight := make([]float64, m)
	total := 0.0
	for t := range m {
		if g.TypeDegree(t) > 0 {
			weight[t] = g.TypeRate(t)
			total += weight[t]
		}
	}
	if !(total > 0) {
		return SparsityReport{}, fmt.Errorf("compat: Sparsity: no arriving type has a compatible server")
	}
	for t := range weight {
		weight[t] /= total
	}
	set := make([]uint64, (n+63)/64)
	clear := func() {
		for i := range set {
			set[i] = 0
		}
	}
	add := func(j uint32) { set[j>>6] |= 1 << (j & 63) }
	evaluate := func(desc string) {
		size := 0
		for _, w := range set {
			size += bits.OnesCount64(w)
		}
		if size == 0 || size == n {
			return
		}
		rep.Sets++
		u := float64(size) / float64(n)
		dev, exc := 0.0, 0.0
		for t := range m {
			if weight[t] == 0 {
				continue
			}
			in := 0
			nb := g.ServersOf(t)
			for _, j := range nb {
				in += int(set[j>>6] >> (j & 63) & 1)
			}
			d := math.Abs(float64(in)/float64(len(nb)) - u)
			dev += weight[t] * d
			if d > opt.Epsilon {
				exc += weight[t]
			}
		}
		if dev > rep.Deviation {
			rep.Deviation, rep.Worst, rep.WorstShare = dev, desc, u
		}
		rep.Exceed = max(rep.Exceed, exc)
	}
	reach := func(types func(yield func(int) bool), desc string) {
		clear()
		for t := range types {
			for _, j := range g.ServersOf(t) {
				add(j)
			}
		}
		evaluate(desc)
	}
	typeRange := func(start, size int) func(func(int) bool) {
		return func(yield func(int) bool) {
			for i := range size {
				if !yield((start + i) % m) {
					return
				}
			}
		}
	}
	perm := make([]int, m)
	for t := range perm {
		perm[t] = t
	}
	randomTypes := func(size int) func(func(int) bool) {
		// Partial Fisher-Yates: the first size entries of perm.
		for i := range size {
			k := i + rng.IntN(m-i)
			perm[i], perm[k] = perm[k], perm[i]
		}
		return func(yield func(int) bool) {
			for _, t := range perm[:size] {
				if !yield(t) {
					return
				}
			}
		}
	}
	var sizes []int
	for s := 1; s < m; s *= 2 {
		sizes = append(sizes, s)
	}
	for k := 2; k <= 8; k++ {
		if s := m / k; s >= 1 {
			sizes = append(sizes, s)
		}
	}
	for _, s := range sizes {
		reach(typeRange(0, s), fmt.Sprintf("servers of types 0..%d", s-1))
		start := rng.IntN(m)
		reach(typeRange(start, s), fmt.Sprintf("servers of %d consecutive types from %d", s, start))
		for range opt.RandomSets {
			reach(randomTypes(s), fmt.Sprintf("servers of %d random types", s))
		}
	}
	sperm := make([]uint32, n)
	for j := range sperm {
		sperm[j] = uint32(j)
	}
	for _, k := range []int{2, 4, 8} {
		s := n / k
		if s < 1 {
			continue
		}
		for _, start := range []int{0, rng.IntN(n)} {
			clear()
			for i := range s {
				add(uint32((start + i) % n))
			}
			evaluate(fmt.Sprintf("%d consecutive servers from %d", s, start))
		}
		for range opt.RandomSets {
			clear()
			for i := range s {
				r := i + rng.IntN(n-i)
				sperm[i], sperm[r] = sperm[r], sperm[i]
				add(sperm[i])
			}
			evaluate(fmt.Sprintf("%d random servers", s))
		}
	}
	return rep, nil
}
