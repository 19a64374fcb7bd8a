package levels

import (
	"reflect"
	"testing"
)

// Two queues: one holds 2 items on [0, 1) and 1 on [1, 3); the other 1 on
// [2, 4). Over [0, 4) (reset at 0): q_1 = (3 + 2)/8, q_2 = 1/8.
func TestAverages(t *testing.T) {
	var o Occupancy
	o.Up(1, 0)
	o.Up(2, 0)
	o.Down(2, 1)
	o.Up(1, 2)
	o.Down(1, 3)
	if got, want := o.Averages(4, 4, 2), []float64{5.0 / 8, 1.0 / 8}; !reflect.DeepEqual(got, want) {
		t.Errorf("averages %v, want %v", got, want)
	}
	// After a reset at 4 with one queue still at 1: q_1 = 1/2 over [4, 6).
	o.Reset(4)
	for c := int32(2); c <= 100; c++ { // growth past the first levels
		o.Up(c, 4)
	}
	for c := int32(100); c >= 2; c-- {
		o.Down(c, 4)
	}
	if got, want := o.Averages(6, 2, 2), []float64{0.5}; !reflect.DeepEqual(got, want) {
		t.Errorf("after reset: %v, want %v", got, want)
	}
}
