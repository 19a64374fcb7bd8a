package csma

import (
	"fmt"
	"math"
	"math/bits"

	"gonum.org/v1/gonum/mat"
)

// MaxGapStates bounds the states of SpectralGap (a dense symmetric
// eigenproblem: 8 bytes per pair of states, cubic time).
const MaxGapStates = 2500

// Mixing describes the speed of the CSMA chain at one theta.
type Mixing struct {
	// Gap is the spectral gap of the generator: the smallest nonzero
	// eigenvalue of -Q. RelaxationTime is 1/Gap.
	Gap            float64 `json:"spectral_gap"`
	RelaxationTime float64 `json:"relaxation_time"`
	// MixingTime bounds the time after which the chain is within total
	// variation 1/4 of pi_theta from any start: (log 2 + log(1/pi_min)/2)
	// / Gap, from ||P_t(x, ·) - pi||_TV <= e^{-Gap t} / (2 sqrt(pi_min)).
	MixingTime float64 `json:"mixing_time"`
	// PiMin is the smallest stationary probability.
	PiMin float64 `json:"pi_min"`
}

// SpectralGap returns the spectral gap of the CSMA chain at theta and the
// bounds it gives. The chain is reversible with respect to pi_theta, so
// its generator Q is similar to the symmetric D^{1/2} Q D^{-1/2}, D =
// diag(pi), whose off-diagonal entries are sqrt(q(x,y) q(y,x)) =
// sqrt(exp(theta_i)) for x and y = x + {i}; gonum's EigenSym gives its
// spectrum.
func (s *IndependentSets) SpectralGap(theta []float64) (Mixing, error) {
	m := len(s.Sets)
	if m > MaxGapStates {
		return Mixing{}, fmt.Errorf("csma: %d states: the spectral gap takes at most %d", m, MaxGapStates)
	}
	if len(theta) != s.n {
		return Mixing{}, fmt.Errorf("csma: %d parameters, want %d", len(theta), s.n)
	}
	sym := mat.NewSymDense(m, nil)
	for k, x := range s.Sets {
		out := 0.0
		for i := range s.n {
			bit := uint64(1) << i
			switch {
			case x&bit != 0: // deactivation at rate 1
				out++
			case x&s.nbr[i] == 0: // activation at rate e^theta_i
				out += math.Exp(theta[i])
				j := s.Index(x | bit)
				sym.SetSym(k, j, math.Exp(theta[i]/2))
			}
		}
		sym.SetSym(k, k, -out)
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, false) {
		return Mixing{}, fmt.Errorf("csma: the eigensolver did not converge")
	}
	vals := eig.Values(nil) // ascending; the largest is 0
	gap := -vals[len(vals)-2]
	if m == 1 {
		gap = math.Inf(1)
	}
	// pi_min: the smallest log-weight against log Z.
	var mo Moments
	if err := s.Moments(theta, &mo); err != nil {
		return Mixing{}, err
	}
	low := math.Inf(1)
	for _, x := range s.Sets {
		w := 0.0
		for y := x; y != 0; y &= y - 1 {
			w += theta[bits.TrailingZeros64(y)]
		}
		low = math.Min(low, w)
	}
	piMin := math.Exp(low - mo.LogZ)
	return Mixing{Gap: gap, RelaxationTime: 1 / gap, PiMin: piMin,
		MixingTime: (math.Ln2 + 0.5*(mo.LogZ-low)) / gap}, nil
}
