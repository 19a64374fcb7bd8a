package lbsim

// observer turns the changes of the occupancy counts into the measurements of
// one replication. Each event changes exactly one count C_i, so time averages
// cost O(1) per event: the integral of C_i is brought up to date only when C_i
// changes.
type observer struct {
	n               float64
	warmup, horizon float64
	averaging       bool // the clock has passed the warmup
	// lv[i] holds the integral of C_i since max(warmup, start) and the time it
	// was brought up to date, side by side: change touches one cache line.
	lv               []levelArea
	sojournSum       float64 // sum of expected sojourns (l+1)/mu of counted arrivals
	arrivals, waited int64   // counted arrivals; those that joined a busy server
	// seen[c][l] counts counted arrivals that joined a queue of length l at a
	// server of rate class c (nil when there are too many classes).
	seen    [][]int64
	maxLen  int
	grid    float64
	next    float64     // next grid time
	traj    [][]float64 // q_1.. at each grid time
	gridOut int         // number of grid points to record
}

type levelArea struct{ area, last float64 }

func newObserver(sc *Scenario, classes int) *observer {
	o := &observer{
		n:       float64(sc.Servers),
		warmup:  sc.Warmup,
		horizon: sc.Horizon,
		lv:      make([]levelArea, 2, 64),
		grid:    sc.Grid,
	}
	if classes > 0 {
		o.seen = make([][]int64, classes)
	}
	if sc.Grid > 0 {
		o.gridOut = int(sc.Horizon/sc.Grid) + 1
		o.traj = make([][]float64, 0, o.gridOut)
	} else {
		o.next = sc.Horizon + 1
	}
	return o
}

// mark returns the next time at which the engine must call crossing: a grid
// point, the end of the warmup, or the horizon.
func (o *observer) mark() float64 {
	m := o.horizon
	if !o.averaging && o.warmup < m {
		m = o.warmup
	}
	if len(o.traj) < o.gridOut && o.next < m {
		m = o.next
	}
	return m
}

// crossing handles every grid point and the warmup end in [.., until), given
// the counts before the next event, and reports whether the horizon is reached.
func (o *observer) crossing(until float64, counts func(i int) int64, levels int) bool {
	for len(o.traj) < o.gridOut && o.next < until && o.next <= o.horizon {
		row := make([]float64, levels)
		for i := range row {
			row[i] = float64(counts(i+1)) / o.n
		}
		o.traj = append(o.traj, row)
		o.next = float64(len(o.traj)) * o.grid
	}
	if !o.averaging && o.warmup < until {
		o.averaging = true
		for i := range o.lv {
			o.lv[i] = levelArea{area: 0, last: o.warmup}
		}
	}
	if until < o.horizon {
		return false
	}
	for i := 1; i < len(o.lv); i++ {
		o.lv[i].area += float64(counts(i)) * (o.horizon - o.lv[i].last)
		o.lv[i].last = o.horizon
	}
	return true
}

// change records that C_i, whose value was c, changes at time t.
func (o *observer) change(i int, c int64, t float64) {
	if i >= len(o.lv) {
		o.grow(i)
	}
	a := &o.lv[i]
	a.area += float64(c) * (t - a.last)
	a.last = t
}

func (o *observer) grow(i int) {
	for len(o.lv) <= i {
		// A new level had count 0 until now, so its start time does not matter.
		o.lv = append(o.lv, levelArea{area: 0, last: o.warmup})
	}
}

// arrive records a task that joins a queue of length l at a server of rate mu
// and class c, if the warmup is over. With rate classes tracked it only counts
// the arrival in seen, and tally derives the totals from those counts.
func (o *observer) arrive(l int, c int, mu float64) {
	if l >= o.maxLen {
		o.maxLen = l + 1
	}
	if !o.averaging {
		return
	}
	if o.seen != nil {
		s := o.seen[c]
		if l >= len(s) {
			s = o.growSeen(c, l)
		}
		s[l]++
		return
	}
	o.arrivals++
	if l > 0 {
		o.waited++
	}
	o.sojournSum += float64(l+1) / mu
}

func (o *observer) growSeen(c, l int) []int64 {
	s := o.seen[c]
	for l >= len(s) {
		s = append(s, 0)
	}
	o.seen[c] = s
	return s
}

// tally sets arrivals, waited and sojournSum from the counts in seen, whose
// classes have service rates mus, at the end of a replication.
func (o *observer) tally(mus []float64) {
	if o.seen == nil {
		return
	}
	o.arrivals, o.waited, o.sojournSum = 0, 0, 0
	for c, counts := range o.seen {
		for l, k := range counts {
			o.arrivals += k
			if l > 0 {
				o.waited += k
			}
			o.sojournSum += float64(k) * float64(l+1) / mus[c]
		}
	}
}

// occupancy returns the time-average q_i, i = 1.., over [warmup, horizon].
func (o *observer) occupancy() []float64 {
	q := make([]float64, 0, len(o.lv))
	span := (o.horizon - o.warmup) * o.n
	for i := 1; i < len(o.lv); i++ {
		q = append(q, o.lv[i].area/span)
	}
	for len(q) > 0 && q[len(q)-1] == 0 {
		q = q[:len(q)-1]
	}
	return q
}
