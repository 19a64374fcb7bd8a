package flows

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxSizeValues bounds the values of a pmf flow-size law.
const MaxSizeValues = 1 << 20

// MaxFlowSize bounds a flow's number of packets.
const MaxFlowSize = 1 << 30

// ParseSizeLaw reads a flow-size law: "geometric", "fixed", or
// "pmf:K1=W1,K2=W2,..." (any discrete law: packet counts K >= 1, each with a
// weight W > 0, normalised to probabilities). For pmf it returns the values
// and their probabilities.
func ParseSizeLaw(spec string) (SizeLaw, []int, []float64, error) {
	spec = strings.TrimSpace(spec)
	switch spec {
	case "geometric":
		return Geometric, nil, nil, nil
	case "fixed":
		return Fixed, nil, nil, nil
	}
	body, ok := strings.CutPrefix(spec, "pmf:")
	if !ok {
		return 0, nil, nil, fmt.Errorf("must be geometric, fixed or pmf:K=W,K=W,... (packet counts K >= 1 with weights W > 0)")
	}
	var values []int
	var probs []float64
	seen := map[int]bool{}
	total := 0.0
	for item := range strings.SplitSeq(body, ",") {
		if len(values) == MaxSizeValues {
			return 0, nil, nil, fmt.Errorf("pmf: more than %d values", MaxSizeValues)
		}
		ks, ws, ok := strings.Cut(strings.TrimSpace(item), "=")
		k, kerr := strconv.Atoi(strings.TrimSpace(ks))
		w, werr := strconv.ParseFloat(strings.TrimSpace(ws), 64)
		switch {
		case !ok || kerr != nil || werr != nil:
			return 0, nil, nil, fmt.Errorf("pmf: %q: want K=W (an integer count and a weight)", item)
		case k < 1 || k > MaxFlowSize:
			return 0, nil, nil, fmt.Errorf("pmf: K = %d: must be a packet count in [1, 2^30]", k)
		case !(w > 0) || math.IsInf(w, 0):
			return 0, nil, nil, fmt.Errorf("pmf: weight of K = %d: %v: must be a finite number > 0", k, w)
		case seen[k]:
			return 0, nil, nil, fmt.Errorf("pmf: K = %d given twice", k)
		}
		seen[k] = true
		values, probs = append(values, k), append(probs, w)
		total += w
	}
	for i := range probs {
		probs[i] /= total
	}
	return PMF, values, probs, nil
}

// pmfMean is the mean of a pmf law.
func pmfMean(values []int, probs []float64) float64 {
	m := 0.0
	for i, k := range values {
		m += float64(k) * probs[i]
	}
	return m
}

// sizeSpec is the flow-size law as ParseSizeLaw reads it.
func (o *Options) sizeSpec() string {
	if o.Size != PMF {
		return o.Size.String()
	}
	parts := make([]string, len(o.SizeValues))
	for i, k := range o.SizeValues {
		parts[i] = strconv.Itoa(k) + "=" + strconv.FormatFloat(o.SizeProbs[i], 'g', -1, 64)
	}
	return "pmf:" + strings.Join(parts, ",")
}

// checkSize validates a pmf law and its agreement with PacketsPerFlow.
func (o *Options) checkSize() error {
	if o.Size != PMF {
		return nil
	}
	if len(o.SizeValues) == 0 || len(o.SizeValues) != len(o.SizeProbs) || len(o.SizeValues) > MaxSizeValues {
		return fmt.Errorf("flow_size: pmf needs 1 to %d values with one probability each", MaxSizeValues)
	}
	for i, k := range o.SizeValues {
		if p := o.SizeProbs[i]; k < 1 || k > MaxFlowSize || !(p > 0) || p > 1 {
			return fmt.Errorf("flow_size: pmf value %d with probability %v: want K in [1, 2^30] and p in (0, 1]", k, p)
		}
	}
	if m := pmfMean(o.SizeValues, o.SizeProbs); !(math.Abs(o.PacketsPerFlow-m) <= 1e-9*m) {
		return fmt.Errorf("packets_per_flow = %v: the pmf flow-size law has mean %v; leave packets_per_flow out or give its mean",
			o.PacketsPerFlow, m)
	}
	return nil
}
