// Package levels keeps the occupancy of a system of queues over time: for
// each level i the number of queues holding at least i items and its
// integral over time, updated in O(1) when one queue's length changes (the
// engines of lbsim/redundancy and lbsim/flows).
package levels

// Occupancy counts the queues at or above each level and integrates the
// counts over time. The zero value is ready to use, from time 0.
type Occupancy struct {
	ge   []int32   // ge[i]: queues with >= i items
	area []float64 // integral of ge[i] up to last[i]
	last []float64
}

// Up records that a queue's length went up to c at time t.
func (o *Occupancy) Up(c int32, t float64) {
	if int(c) >= len(o.ge) {
		o.grow(int(c)+1, t)
	}
	o.area[c] += float64(o.ge[c]) * (t - o.last[c])
	o.last[c] = t
	o.ge[c]++
}

// Down records that a queue's length went down from c at time t.
func (o *Occupancy) Down(c int32, t float64) {
	o.area[c] += float64(o.ge[c]) * (t - o.last[c])
	o.last[c] = t
	o.ge[c]--
}

func (o *Occupancy) grow(n int, t float64) {
	k := len(o.ge)
	size := max(64, 2*k, n)
	o.ge = append(o.ge, make([]int32, size-k)...)
	o.area = append(o.area, make([]float64, size-k)...)
	o.last = append(o.last, make([]float64, size-k)...)
	for i := k; i < size; i++ {
		o.last[i] = t
	}
}

// Reset starts the integrals afresh at time t.
func (o *Occupancy) Reset(t float64) {
	for i := range o.area {
		o.area[i], o.last[i] = 0, t
	}
}

// Averages returns q_1, q_2, ...: the integrals from the last Reset to time
// t divided by span*n (span the time since the Reset, n the queues), up to
// the last level ever reached in that time.
func (o *Occupancy) Averages(t, span float64, n int) []float64 {
	var q []float64
	for i := 1; i < len(o.ge); i++ {
		area := o.area[i] + float64(o.ge[i])*(t-o.last[i])
		if area == 0 {
			break
		}
		q = append(q, area/span/float64(n))
	}
	return q
}
