package flows

import (
	"context"
	"math"

	"github.com/lbsim/notebooks/lbsim/internal/fastrand"
)

// The event-driven engine of general service laws. Under FIFO a packet's
// departure is known when it arrives: it starts when the packet ahead of it
// leaves (or at once at an idle server) and takes a service time drawn from
// the law, so its delay is recorded at its arrival and the rings hold
// departure times. The busy servers sit in a heap keyed by their next
// departure; the arrivals (new flows and packets of flows in progress) are
// Poisson at a rate that changes only at events, so the next one is redrawn
// after every event (memoryless).

// schedule draws the service of a packet joining server j, which holds k
// packets, and returns its departure time.
func (e *engine) schedule(j, k int32) float64 {
	start := e.t
	if k > 0 {
		start = e.lastDep[j]
	}
	s := e.svc.Sample(e.rng)
	if e.rates != nil {
		s /= e.rates[j] // a server of rate mu serves a requirement S in S/mu
	}
	dep := start + s
	e.lastDep[j] = dep
	if k == 0 {
		e.heap.Push(int(j), dep)
	}
	if e.measuring {
		x := dep - e.t
		e.delays = append(e.delays, x)
		e.delaySum += x
	}
	return dep
}

// runGeneral is run for general service.
func (e *engine) runGeneral(ctx context.Context, end float64, tick func(float64)) error {
	stop := e.stop(end)
	for it := 1; ; it++ {
		if it&(1<<16-1) == 0 {
			if err := e.poll(ctx, tick); err != nil {
				return err
			}
		}
		nf := len(e.flows)
		arr := e.lf + e.r*float64(nf)
		ta := e.t + fastrand.ExpFloat64(e.src)/(arr+e.remap) // arrivals and the bins' remap clocks
		td := math.Inf(1)
		if e.heap.Len() > 0 {
			_, td = e.heap.Top()
		}
		tn := min(ta, td, stop)
		dt := tn - e.t
		e.activeArea += float64(nf) * dt
		e.awayArea += float64(e.away) * dt
		e.t = tn
		switch {
		case tn == stop && stop == end:
			return nil
		case tn == stop: // a step of the profile (memoryless: the arrivals are redrawn)
			e.nextStep()
			stop = e.stop(end)
			continue
		case td < ta:
			j, _ := e.heap.Top()
			e.depart(int32(j))
			continue
		}
		switch u := fastrand.Float64(e.src) * (arr + e.remap); {
		case u < e.lf:
			e.newFlow()
		case u < arr:
			e.flowPacket(int(e.uniform(nf)))
		default:
			e.periodicRemap()
		}
	}
}
