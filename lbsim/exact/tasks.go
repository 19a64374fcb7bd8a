package exact

// TasksDistribution returns P(total = n), the stationary distribution of the
// total number of tasks in the truncated system, for n = 0..N*Cap (summed over
// the policy states). Its tail beyond a level is exact for the truncated chain;
// the untruncated system differs from it by at most the truncation mass.
func (s *Solution) TasksDistribution() []float64 {
	p := make([]float64, s.n*s.k+1)
	digits := make([]int, s.n)
	for ps := range s.PolicyStates {
		clear(digits)
		total := 0
		base := ps * s.size
		for idx := range s.size {
			p[total] += s.pi[base+idx]
			// Next state in mixed radix: increment the lowest digit, carrying.
			for j := range digits {
				if digits[j] < s.k {
					digits[j]++
					total++
					break
				}
				total -= digits[j]
				digits[j] = 0
			}
		}
	}
	return p
}
