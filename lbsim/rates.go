package lbsim

// commonRate returns the service rate of the first server and whether every
// server has it (homogeneous rates). Nil rates mean rate 1 for all servers.
// Engines and engine choice use it to take the O(1) paths of homogeneous
// service.
func commonRate(rates []float64) (mu float64, homogeneous bool) {
	if len(rates) == 0 {
		return 1, true
	}
	mu = rates[0]
	for _, m := range rates[1:] {
		if m != mu {
			return mu, false
		}
	}
	return mu, true
}
