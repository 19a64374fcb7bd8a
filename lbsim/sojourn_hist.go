package lbsim

import "math"

// sojournHist is a streaming histogram of sojourn times with logarithmic
// buckets: the bucket of x > 0 is its float64 exponent and the top
// histMantissaBits bits of its mantissa, so every bucket spans a factor
// 1 + 2^-7 and its midpoint is within 0.4% of any value in it. Adding a value
// is a shift and an increment. Values outside [2^-histExpRange, 2^histExpRange)
// (and zero) are counted in the first or last bucket.
type sojournHist struct {
	counts []int64
	total  int64
}

const (
	histMantissaBits = 7
	histExpRange     = 40
	histBase         = (1023 - histExpRange) << histMantissaBits
	histBuckets      = 2 * histExpRange << histMantissaBits
)

func (h *sojournHist) add(x float64) {
	if h.counts == nil {
		h.counts = make([]int64, histBuckets)
	}
	k := int(math.Float64bits(x)>>(52-histMantissaBits)) - histBase
	if x <= 0 || k < 0 {
		k = 0
	} else if k >= histBuckets {
		k = histBuckets - 1
	}
	h.counts[k]++
	h.total++
}

// merge adds the counts of o.
func (h *sojournHist) merge(o *sojournHist) {
	if o.total == 0 {
		return
	}
	if h.counts == nil {
		h.counts = make([]int64, histBuckets)
	}
	for k, c := range o.counts {
		h.counts[k] += c
	}
	h.total += o.total
}

// bucketMid returns the midpoint of bucket k.
func bucketMid(k int) float64 {
	lo := math.Float64frombits(uint64(k+histBase) << (52 - histMantissaBits))
	hi := math.Float64frombits(uint64(k+1+histBase) << (52 - histMantissaBits))
	return (lo + hi) / 2
}

// quantiles returns, for each level p, the midpoint of the first bucket where
// the cumulative count reaches p * total (nil when empty).
func (h *sojournHist) quantiles(levels []float64) []Quantile {
	if h.total == 0 {
		return nil
	}
	out := make([]Quantile, 0, len(levels))
	k, cum := 0, h.counts[0]
	for _, p := range levels {
		need := int64(math.Ceil(p * float64(h.total)))
		for cum < need && k+1 < len(h.counts) {
			k++
			cum += h.counts[k]
		}
		out = append(out, Quantile{P: p, Value: bucketMid(k)})
	}
	return out
}
