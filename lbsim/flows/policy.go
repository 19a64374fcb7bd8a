package flows

import "fmt"

// Policy is how the dispatcher picks the server of a packet.
type Policy int

// The policies (see the package documentation).
const (
	// Static hashing: a flow's packets all go to one uniformly random server.
	Static Policy = iota
	// JSQ sends every packet to the shortest of all queues.
	JSQ
	// JSQd sends every packet to the shortest of D distinct random queues.
	JSQd
	// Sticky keeps a flow on its server unless that queue holds at least
	// Threshold packets; the packet then goes to the shortest of D random
	// queues (all if D = N) if that one is shorter, and the flow stays there.
	Sticky
	// Bins hashes flows into Bins bins, each pointing at a server; when a
	// packet finds its bin's server holding at least Threshold packets, the
	// bin is remapped to the shortest of D random queues (all if D = N) if
	// that one is shorter.
	Bins
)

var policyNames = []string{"static", "jsq", "jsqd", "sticky", "bins"}

func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ParsePolicy returns the policy of a name (static, jsq, jsqd, sticky, bins).
func ParsePolicy(name string) (Policy, error) {
	for i, s := range policyNames {
		if s == name {
			return Policy(i), nil
		}
	}
	return 0, fmt.Errorf("policy = %q: must be one of static, jsq, jsqd, sticky, bins", name)
}

// PolicyOptions choose the policy and its parameters.
type PolicyOptions struct {
	Policy Policy
	// D is the number of queues sampled by jsqd, and by sticky and bins
	// when they move (D = Servers: the shortest of all).
	D int
	// Threshold is T of sticky and bins.
	Threshold int
	// Bins is B of bins.
	Bins int
	// RemapRate (bins) adds the periodic rule: each bin is also remapped at
	// the epochs of its own Poisson clock of this rate, to the shortest of D
	// random queues (all if D = N) if that one is shorter than its server,
	// whatever the threshold. 0: remaps by the threshold only.
	RemapRate float64
}

// incr moves server j up the sorted order (its length goes from k to k+1).
func (e *engine) incr(j, k int32) {
	if int(k)+2 > len(e.start) {
		old := len(e.start)
		e.start = append(e.start, make([]int32, old)...)
		for i := old; i < len(e.start); i++ {
			e.start[i] = int32(e.n)
		}
	}
	p, last := e.pos[j], e.start[k+1]-1
	o := e.perm[last]
	e.perm[p], e.perm[last] = o, j
	e.pos[o], e.pos[j] = p, last
	e.start[k+1] = last
}

// decr moves server j down the sorted order (its length goes from k to k-1).
func (e *engine) decr(j, k int32) {
	p, first := e.pos[j], e.start[k]
	o := e.perm[first]
	e.perm[p], e.perm[first] = o, j
	e.pos[o], e.pos[j] = p, first
	e.start[k] = first + 1
}

// shortestAll returns a uniformly random server among the shortest.
func (e *engine) shortestAll() int32 {
	l := e.q[e.perm[0]]
	return e.perm[e.uniform(int(e.start[l+1]))]
}

// shortestOfD returns the shortest of d distinct uniformly random servers,
// ties broken uniformly (the candidates come in random order and the first
// minimum wins).
func (e *engine) shortestOfD() int32 {
	switch e.d {
	case 1:
		return e.uniform(e.n)
	case 2:
		a := e.uniform(e.n)
		b := e.uniform(e.n - 1)
		if b >= a {
			b++
		}
		if e.q[b] < e.q[a] {
			return b
		}
		return a
	}
	best := int32(-1)
	e.scratch.Draw(e.d, func(m uint32) uint32 { return uint32(e.uniform(int(m))) }, func(j int32) {
		if best < 0 || e.q[j] < e.q[best] {
			best = j
		}
	})
	return best
}

// better returns where a packet bound for server s goes when s holds at
// least the threshold: the shortest of d random servers (or of all) if it
// is shorter than s, else s.
func (e *engine) better(s int32) int32 {
	var c int32
	if e.all {
		c = e.shortestAll()
	} else {
		c = e.shortestOfD()
	}
	if e.q[c] < e.q[s] {
		return c
	}
	return s
}

// periodicRemap is a tick of the bins' Poisson clocks (total rate
// RemapRate*B): a uniformly random bin moves to the shortest of d random
// queues (or of all) if that one is shorter than its server.
func (e *engine) periodicRemap() {
	b := e.uniform(len(e.binSrv))
	s := e.binSrv[b]
	if c := e.better(s); c != s {
		e.binSrv[b] = c
		if e.measuring {
			e.remaps++
		}
	}
}

// route returns the server of a packet of flow f (first: its first packet;
// then f.home is already set).
func (e *engine) route(f *flow, first bool) int32 {
	switch e.policy {
	case Static:
		return f.home
	case JSQ:
		return e.shortestAll()
	case JSQd:
		return e.shortestOfD()
	case Sticky:
		s := f.last
		if first {
			s = f.home
		}
		if e.q[s] >= e.thr {
			s = e.better(s)
		}
		return s
	default: // Bins
		b := f.home
		s := e.binSrv[b]
		if e.q[s] >= e.thr {
			if c := e.better(s); c != s {
				e.binSrv[b] = c
				s = c
				if e.measuring {
					e.remaps++
				}
			}
		}
		return s
	}
}
