package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/lbsim/notebooks/lbsim/mc"
	"github.com/lbsim/notebooks/lbsim/param"
)

// ErdosRenyi returns a G(n, p) random graph: each of the n(n-1)/2 pairs is an
// edge independently with probability p.
//
// It uses geometric skipping (Batagelj and Brandes 2005) over the pairs (v, w),
// w < v, in row order, so it costs O(n + M) time. The CSR is built directly in
// two passes over the same random streams (re-seeded from stored seeds): the
// first counts degrees, the second writes the lists, which come out sorted.
// Beyond the graph itself (4 bytes per directed entry) it needs O(n) words.
//
// The pairs are cut into square tiles of about 1024 x 1024 pairs (fewer, larger
// tiles for sparse graphs), each with its own random stream derived from two
// numbers drawn from rng, and the tiles are generated in parallel; tiling keeps
// the scattered writes of the second pass cache- and TLB-friendly. The tiling
// depends only on n and p, so the graph depends only on (n, p) and the state of
// rng, not on GOMAXPROCS. Once the interrupt context of package param is
// done (SIGINT on the command line) it stops with an error wrapping
// context.Canceled.
func ErdosRenyi(n int, p float64, rng *rand.Rand) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: ErdosRenyi: n = %d out of range [0, %d]", n, MaxVertices)
	}
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("graph: ErdosRenyi: p = %v out of range [0, 1]", p)
	}
	if p == 1 && float64(n)*float64(n-1) > MaxMaterialize {
		return nil, fmt.Errorf("graph: ErdosRenyi: p = 1 with n = %d gives %v directed entries, more than %d (use Complete)", n, float64(n)*float64(n-1), MaxMaterialize)
	}
	return erdosRenyi(n, p, rng)
}

// ErdosRenyiMeanDegree returns G(n, p) with p = d/(n-1), so that the expected
// degree is d (0 <= d <= n-1).
func ErdosRenyiMeanDegree(n int, d float64, rng *rand.Rand) (*Graph, error) {
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("graph: ErdosRenyiMeanDegree: n = %d out of range [0, %d]", n, MaxVertices)
	}
	if n <= 1 {
		if d != 0 {
			return nil, fmt.Errorf("graph: ErdosRenyiMeanDegree: mean degree d = %v out of range [0, 0] for n = %d", d, n)
		}
		return Empty(n)
	}
	if !(d >= 0 && d <= float64(n-1)) {
		return nil, fmt.Errorf("graph: ErdosRenyiMeanDegree: mean degree d = %v out of range [0, %d]", d, n-1)
	}
	return ErdosRenyi(n, d/float64(n-1), rng)
}

// Tiling. The lower triangle of pairs (v, w), w < v, is cut into tiles of
// erTile x erTile vertices; tile (I, J), J <= I, holds the pairs with v in
// block I and w in block J and has its own random stream. Generating tile by
// tile keeps the write heads of the second pass on at most 2*erTile lists, so
// the scattered writes of the transpose half stay within the caches and the TLB
// (writing row by row touches a different page for nearly every edge and is
// several times slower).
var erTile = 1024 // a variable only so that tests can force many tiles

func erdosRenyi(n int, p float64, rng *rand.Rand) (*Graph, error) {
	s1, s2 := rng.Uint64(), rng.Uint64()
	g := &Graph{n: n, off: make([]uint64, n+1)}
	if p == 0 || n < 2 {
		return g, nil
	}
	// Block count: at most one per erTile vertices, and few enough that the
	// per-vertex segment counters (4*(nb+1) bytes per vertex) stay below about
	// an eighth of the expected adjacency (4*d bytes per vertex).
	d := p * float64(n-1)
	nb := min((n+erTile-1)/erTile, int(d/8))
	nb = max(nb, 1)
	bs := (n + nb - 1) / nb
	// c = 1/(-log(1-p)): floor(E*c) with E ~ Exp(1) is geometric: the number
	// of pairs skipped before the next edge. p == 1 gives c = 0.
	c := -1 / math.Log1p(-p)
	if p == 1 {
		c = 0
	}
	t := &erTiles{n: n, nb: nb, bs: bs, c: c, s1: s1, s2: s2}
	// Segment (v, s), stored at cnt[s*n+v]: for v in block bv, s = J <= bv
	// holds v's lower neighbours from tile (bv, J); s = I+1 >= bv+1 its upper
	// neighbours from tile (I, bv). Segments in index order give the sorted
	// list. Segment-major storage keeps a tile's counters contiguous.
	t.cnt = make([]uint32, n*(nb+1))
	ntiles := nb * (nb + 1) / 2
	// Each tile checks for an interrupt first (param.Interrupted: 10^9
	// entries take seconds); once one is seen the others are skipped.
	var stop atomic.Pointer[error]
	tile := func(adj []uint32) func(k int) {
		return func(k int) {
			if stop.Load() != nil {
				return
			}
			if err := param.Interrupted(); err != nil {
				stop.CompareAndSwap(nil, &err)
				return
			}
			t.run(k, adj)
		}
	}
	parallel(ntiles, tile(nil))
	if err := stop.Load(); err != nil {
		return nil, *err
	}
	off := g.off
	var s uint64
	run := make([]uint32, n) // running length of each list
	for seg := 0; seg <= nb; seg++ {
		col := t.cnt[seg*n : (seg+1)*n]
		for v, x := range col {
			col[v] = run[v]
			run[v] += x
		}
	}
	for v := 0; v < n; v++ {
		off[v] = s
		s += uint64(run[v])
	}
	run = nil
	off[n] = s
	adj := make([]uint32, s)
	pretouch(adj)
	t.off = off
	parallel(ntiles, tile(adj))
	if err := stop.Load(); err != nil {
		return nil, *err
	}
	g.adj = adj
	return g, nil
}

type erTiles struct {
	n, nb, bs int
	c         float64
	s1, s2    uint64
	cnt       []uint32 // segment counts, then positions within each list
	off       []uint64
}

// run generates tile k (row-major over I, then J <= I). With adj nil it counts
// segment sizes, otherwise it writes the lists, advancing the positions.
func (t *erTiles) run(k int, adj []uint32) {
	I := int((math.Sqrt(8*float64(k)+1) - 1) / 2)
	for I*(I+1)/2 > k {
		I--
	}
	for (I+1)*(I+2)/2 <= k {
		I++
	}
	J := k - I*(I+1)/2
	r := rand.New(rand.NewPCG(mc.SplitMix(t.s1+uint64(k)*0x9e3779b97f4a7c15), mc.SplitMix(t.s2^uint64(k))))
	v0, v1 := I*t.bs, min((I+1)*t.bs, t.n)
	w0, w1 := J*t.bs, min((J+1)*t.bs, t.n)
	diag := I == J
	width := int64(w1 - w0)
	rowLen := func(v int) int64 {
		if diag {
			return int64(v - w0)
		}
		return width
	}
	lowSeg, upSeg := J*t.n, (I+1)*t.n
	cnt, off, c := t.cnt, t.off, t.c
	v, w := v0, int64(-1)
	l := rowLen(v)
	for {
		s := r.ExpFloat64() * c
		if s > 1<<62 {
			s = 1 << 62
		}
		w += 1 + int64(s)
		for w >= l {
			w -= l
			v++
			if v >= v1 {
				return
			}
			l = rowLen(v)
		}
		x := w0 + int(w)
		a, b := lowSeg+v, upSeg+x
		if adj == nil {
			cnt[a]++
			cnt[b]++
		} else {
			adj[off[v]+uint64(cnt[a])] = uint32(x)
			cnt[a]++
			adj[off[x]+uint64(cnt[b])] = uint32(v)
			cnt[b]++
		}
	}
}

// pretouch writes one word per 4 KiB page of a freshly allocated slice, in
// order and in parallel chunks. The kernel maps fresh pages on first touch;
// faulting them in sequentially is much cheaper than in the scattered order of
// the fill pass (about 2x faster overall for a 1.5 GB graph).
func pretouch(a []uint32) {
	const page = 1024 // uint32s per 4 KiB
	const chunk = 1 << 24
	parallel((len(a)+chunk-1)/chunk, func(i int) {
		b := a[i*chunk : min((i+1)*chunk, len(a))]
		for j := 0; j < len(b); j += page {
			b[j] = 0
		}
	})
}

// parallel runs f(0..k-1) on up to GOMAXPROCS goroutines.
func parallel(k int, f func(i int)) {
	workers := min(k, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := 0; i < k; i++ {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= k {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}
