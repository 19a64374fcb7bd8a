package trickle

import "math"

// Inter-broadcast times are kept in a histogram with log-spaced bins from
// gapLow*tau to 2*tau (no gap is longer: every interval of every node holds
// a transmission, see the package documentation), gapPerDecade bins per
// decade, so a quantile is known within a relative 10^(1/gapPerDecade)-1
// (0.1%); shorter gaps fall in bin 0.
const (
	gapLow       = 1e-9
	gapPerDecade = 2000
	gapDecades   = 10 // 1e-9 .. 10 (in units of tau), covering 2
	gapBins      = gapDecades*gapPerDecade + 1
)

type gapHist struct {
	tau    float64
	counts []int64
	n      int64
	sum    float64
}

func newGapHist(tau float64) *gapHist { return &gapHist{tau: tau, counts: make([]int64, gapBins)} }

func (h *gapHist) record(g float64) {
	h.n++
	h.sum += g
	x := g / h.tau / gapLow
	b := 0
	if x >= 1 {
		b = min(1+int(math.Log10(x)*gapPerDecade), gapBins-1)
	}
	h.counts[b]++
}

func (h *gapHist) add(o *gapHist) {
	h.n += o.n
	h.sum += o.sum
	for b, c := range o.counts {
		h.counts[b] += c
	}
}

func (h *gapHist) mean() float64 {
	if h.n == 0 {
		return math.NaN()
	}
	return h.sum / float64(h.n)
}

// edge returns the lower edge of bin b >= 1.
func (h *gapHist) edge(b int) float64 {
	return h.tau * gapLow * math.Pow(10, float64(b-1)/gapPerDecade)
}

// quantile returns the p-quantile, interpolated geometrically within its
// bin (NaN without gaps).
func (h *gapHist) quantile(p float64) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	target := p * float64(h.n)
	var cum int64
	for b, c := range h.counts {
		if c == 0 || float64(cum+c) < target {
			cum += c
			continue
		}
		if b == 0 {
			return 0
		}
		frac := (target - float64(cum)) / float64(c)
		return h.edge(b) * math.Pow(10, frac/gapPerDecade)
	}
	return h.edge(gapBins - 1)
}
