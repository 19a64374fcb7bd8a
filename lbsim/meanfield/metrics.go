package meanfield

// MeanTasks returns the mean number of tasks per server, sum_i q_i, of an
// occupancy vector q = (q_1, q_2, ...).
func MeanTasks(q []float64) float64 {
	s := 0.0
	for _, v := range q {
		s += v
	}
	return s
}

// MeanSojourn returns the mean time in system by Little's law, sum_i q_i /
// lambda, for a stationary occupancy q at arrival rate lambda per server
// (with no losses).
func MeanSojourn(q []float64, lambda float64) float64 {
	return MeanTasks(q) / lambda
}

// WaitProbability returns the probability that a task joins a busy server
// under JSQ(d) with d samples with replacement: all d samples are busy,
// q_1^d. d = 1 (random routing) gives q_1, the PASTA probability of waiting in
// M/M/1. Under JSQ, JIQ and JIQ(d) at lambda < 1 the fluid limit has q_1 =
// lambda < 1 and every task finds an idle server: the wait probability is 0.
func WaitProbability(q []float64, d int) float64 {
	if len(q) == 0 {
		return 0
	}
	return ipow(q[0], d)
}
