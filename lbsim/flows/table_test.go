package flows

import "testing"

// The measured bytes per entry of the flow table lie within what the Swiss
// table's layout allows (FlowTableBytes: 8 slots of 16 bytes and 8 control
// bytes a group, 7/8 to 7/16 full), with 5% of slack for the map's
// directory and the groups' headers: a measurement that counted nothing, or
// the garbage of the building, would fall outside.
func TestFlowTableBytesLayout(t *testing.T) {
	const lo, hi = 136.0 / 8 / (7.0 / 8), 136.0 / 8 / (7.0 / 16)
	for _, n := range []int{1000, 10000, 100000, 1000000} {
		b := FlowTableBytes(n)
		t.Logf("%d entries: %.2f bytes an entry (layout %.1f to %.1f)", n, b, lo, hi)
		if !(b >= 0.95*lo && b <= 1.05*hi) {
			t.Errorf("%d entries: %.2f bytes an entry, outside the layout's %.1f to %.1f", n, b, lo, hi)
		}
	}
}
