package flows

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lbsim/notebooks/lbsim/model"
	"gonum.org/v1/gonum/mat"
)

// MaxStaticPhases bounds the flow-count phases of StaticExact (the
// matrices are phases x phases).
const MaxStaticPhases = 600

// StaticSolution is the exact stationary law of one server under static
// hashing with geometric flow sizes and exponential service (see the
// package documentation): the queue length Q and the delay D of a packet.
type StaticSolution struct {
	Lambda, PacketsPerFlow, PacketRate float64
	// MaxFlows truncates the flows in progress at the server; FlowTail is
	// the Poisson mass beyond it (below 1e-13).
	MaxFlows int
	FlowTail float64
	// MeanFlows is the mean number of flows in progress at a server,
	// lambda*(m-1)/(m*r).
	MeanFlows float64
	// SpectralRadius is that of the rate matrix R: the queue-length tail
	// decays like SpectralRadius^n.
	SpectralRadius float64
	// Occupancy[i-1] = P(Q >= i), until it falls below 1e-13.
	Occupancy []float64
	MeanQueue float64
	// MeanDelay = E[D] = MeanQueue/lambda (Little).
	MeanDelay float64
	// arrivalTail[k] = P(a packet finds >= k packets), k = 0, 1, ...
	arrivalTail []float64
}

// StaticExact solves static hashing with geometric flows of mean m,
// packet rate r and load lambda exactly, as a quasi-birth-death process
// of (queue length, flows in progress) solved by the matrix-geometric
// method (Neuts), with R from G by logarithmic reduction (Latouche and
// Ramaswami). Under static hashing the servers are independent for every N
// (each receives an independent Poisson stream of flows of rate lambda/m),
// so this is exact for the whole system.
func StaticExact(lambda, m, r float64) (*StaticSolution, error) {
	if !(lambda > 0 && lambda < 1) {
		return nil, fmt.Errorf("lambda = %v: must be in (0, 1)", lambda)
	}
	if !(m >= 1) || math.IsInf(m, 0) {
		return nil, fmt.Errorf("packets_per_flow = %v: must be a finite number >= 1", m)
	}
	if !(r > 0) || math.IsInf(r, 0) {
		return nil, fmt.Errorf("packet_rate = %v: must be a finite rate > 0", r)
	}
	alpha, p := lambda/m, 1/m
	mean := alpha * (1 - p) / (r * p)
	// Phases 0..F with the Poisson(mean) mass beyond F below 1e-13.
	F, tail := 0, 1.0
	for pmf := math.Exp(-mean); ; F++ {
		tail -= pmf
		if tail < 1e-13 || F >= MaxStaticPhases {
			break
		}
		pmf *= mean / float64(F+1)
	}
	if tail >= 1e-13 {
		return nil, fmt.Errorf("packet_rate = %v: about %.3g flows in progress per server need more than %d phases", r, mean, MaxStaticPhases)
	}
	P := F + 1
	a0 := mat.NewDense(P, P, nil)
	a1 := mat.NewDense(P, P, nil)
	b1 := mat.NewDense(P, P, nil)
	rate := make([]float64, P) // packet arrival rate in phase f
	for f := range P {
		fr := float64(f) * r
		rate[f] = alpha + fr
		if f < F {
			a0.Set(f, f+1, alpha*(1-p))
			a0.Set(f, f, alpha*p)
		} else {
			a0.Set(f, f, alpha)
		}
		if f > 0 {
			a0.Set(f, f-1, fr*p)
		}
		a0.Set(f, f, a0.At(f, f)+fr*(1-p))
		a1.Set(f, f, -(rate[f] + 1))
		b1.Set(f, f, -rate[f])
	}
	g, err := logReduction(a0, a1)
	if err != nil {
		return nil, err
	}
	// R = A0 (-(A1 + A0 G))^{-1}.
	var w, rm mat.Dense
	w.Mul(a0, g)
	w.Add(&w, a1)
	w.Scale(-1, &w)
	if err := rm.Inverse(&w); err != nil {
		return nil, fmt.Errorf("flows: R: %v", err)
	}
	rm.Mul(a0, &rm)
	// pi_0 (B1 + R A2) = 0 (A2 = I), pi_0 (I-R)^{-1} 1 = 1.
	id := identity(P)
	var imr, imrInv mat.Dense
	imr.Sub(id, &rm)
	if err := imrInv.Inverse(&imr); err != nil {
		return nil, fmt.Errorf("flows: (I-R)^-1: %v", err)
	}
	// v = (I-R)^{-1} 1: pi_q v is the mass of the levels >= q.
	v := mat.NewVecDense(P, nil)
	for f := range P {
		s := 0.0
		for c := range P {
			s += imrInv.At(f, c)
		}
		v.SetVec(f, s)
	}
	var x mat.Dense
	x.Add(b1, &rm)
	for f := range P {
		x.Set(f, 0, v.AtVec(f))
	}
	e0 := mat.NewVecDense(P, nil)
	e0.SetVec(0, 1)
	var pi0 mat.VecDense
	if err := pi0.SolveVec(x.T(), e0); err != nil {
		return nil, fmt.Errorf("flows: pi_0: %v", err)
	}
	sol := &StaticSolution{Lambda: lambda, PacketsPerFlow: m, PacketRate: r, MaxFlows: F, FlowTail: tail, MeanFlows: mean}
	sol.SpectralRadius = spectralRadius(&rm)
	// Levels: pi_q = pi_0 R^q; P(Q = q) and the arrival-weighted law.
	cur := mat.VecDenseCopyOf(&pi0)
	var next mat.VecDense
	var probs, arr []float64
	total, arrTotal := 0.0, 0.0
	for q := 0; ; q++ {
		pq, aq := 0.0, 0.0
		for f := range P {
			v := cur.AtVec(f)
			pq += v
			aq += v * rate[f]
		}
		probs, arr = append(probs, pq), append(arr, aq)
		total += pq
		arrTotal += aq
		if mat.Dot(cur, v)-pq < 1e-14 {
			break
		}
		if q > 1<<22 {
			return nil, errors.New("flows: the queue-length law needs more than 2^22 levels")
		}
		next.MulVec(rm.T(), cur)
		cur.CopyVec(&next)
	}
	// Tails, normalised by the computed mass.
	sol.arrivalTail = make([]float64, len(arr))
	tails := make([]float64, len(probs))
	acc, accA := 0.0, 0.0
	for k := len(probs) - 1; k >= 0; k-- {
		acc += probs[k]
		accA += arr[k]
		tails[k] = acc / total
		sol.arrivalTail[k] = accA / arrTotal
	}
	for i := 1; i < len(tails) && tails[i] >= 1e-13; i++ {
		sol.Occupancy = append(sol.Occupancy, tails[i])
	}
	for i := 1; i < len(tails); i++ {
		sol.MeanQueue += tails[i]
	}
	for _, x := range sol.arrivalTail {
		sol.MeanDelay += x
	}
	return sol, nil
}

func identity(n int) *mat.Dense {
	id := mat.NewDense(n, n, nil)
	for i := range n {
		id.Set(i, i, 1)
	}
	return id
}

// logReduction returns G, the minimal solution of A2 + A1 G + A0 G^2 = 0
// with A2 = I, by logarithmic reduction (Latouche and Ramaswami 1993).
func logReduction(a0, a1 *mat.Dense) (*mat.Dense, error) {
	n, _ := a0.Dims()
	var inv mat.Dense
	var neg mat.Dense
	neg.Scale(-1, a1)
	if err := inv.Inverse(&neg); err != nil {
		return nil, fmt.Errorf("flows: -A1 singular: %v", err)
	}
	var b0, b2 mat.Dense
	b0.Mul(&inv, a0)
	b2.CloneFrom(&inv) // (-A1)^{-1} A2 with A2 = I
	g := mat.DenseCopyOf(&b2)
	t := mat.DenseCopyOf(&b0)
	id := identity(n)
	var u, tmp, iu, iuInv, sq mat.Dense
	for it := 0; it < 64; it++ {
		u.Mul(&b0, &b2)
		tmp.Mul(&b2, &b0)
		u.Add(&u, &tmp)
		iu.Sub(id, &u)
		if err := iuInv.Inverse(&iu); err != nil {
			return nil, fmt.Errorf("flows: logarithmic reduction: %v", err)
		}
		sq.Mul(&b0, &b0)
		b0.Mul(&iuInv, &sq)
		sq.Mul(&b2, &b2)
		b2.Mul(&iuInv, &sq)
		tmp.Mul(t, &b2)
		g.Add(g, &tmp)
		tmp.Mul(t, &b0)
		t.CloneFrom(&tmp)
		worst := 0.0
		for i := range n {
			s := 0.0
			for j := range n {
				s += g.At(i, j)
			}
			worst = math.Max(worst, math.Abs(1-s))
		}
		// T -> 0 quadratically; G is then final to rounding.
		if worst < 1e-13 || mat.Norm(t, math.Inf(1)) < 1e-15 {
			if worst > 1e-9 {
				return nil, fmt.Errorf("flows: logarithmic reduction: G 1 = 1 within %.2g only", worst)
			}
			return g, nil
		}
	}
	return nil, errors.New("flows: logarithmic reduction did not converge")
}

// spectralRadius of a nonnegative matrix by power iteration.
func spectralRadius(a *mat.Dense) float64 {
	n, _ := a.Dims()
	v := mat.NewVecDense(n, nil)
	for i := range n {
		v.SetVec(i, 1)
	}
	var w mat.VecDense
	rho := 0.0
	for range 2000 {
		w.MulVec(a.T(), v)
		s := mat.Sum(&w)
		if s == 0 {
			return 0
		}
		rho = s / mat.Sum(v)
		w.ScaleVec(1/s, &w)
		v.CopyVec(&w)
	}
	return rho
}

// DelayCCDF returns P(D > x): a packet that finds k packets waits k+1
// exponential services, so P(D > x) = sum_k P(finds >= k) e^-x x^k / k!.
func (s *StaticSolution) DelayCCDF(x float64) float64 {
	if x <= 0 {
		return 1
	}
	lx := math.Log(x)
	sum := 0.0
	for k, t := range s.arrivalTail {
		lg, _ := math.Lgamma(float64(k + 1))
		lw := -x + float64(k)*lx - lg
		if lw < -745 {
			if float64(k) > x {
				break
			}
			continue
		}
		sum += t * math.Exp(lw)
	}
	return math.Min(sum, 1)
}

// DelayQuantile returns the delay x with P(D > x) = 1-p, by bisection.
func (s *StaticSolution) DelayQuantile(p float64) float64 { return quantileOf(s.DelayCCDF, p) }

// quantileOf returns the x with ccdf(x) = 1-p for a continuous,
// nonincreasing ccdf on x >= 0, by bisection to a relative 1e-12.
func quantileOf(ccdf func(float64) float64, p float64) float64 {
	lo, hi := 0.0, 1.0
	for ccdf(hi) > 1-p {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if ccdf(mid) > 1-p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// StaticMixture is the exact stationary law of static hashing over servers
// of unequal service rates (Options.Rates). The servers stay independent,
// each receives packets at rate lambda, and server i is the chain of
// StaticExact with its clock run mu_i times faster: its queue length has
// the law of a unit-rate server at load lambda/mu_i and packet rate
// r/mu_i, and its delays are that server's divided by mu_i. A packet goes
// to each server with probability 1/N, so its delay has the mixture of the
// servers' delay laws with equal weights.
type StaticMixture struct {
	Lambda, PacketsPerFlow, PacketRate float64
	// Rates are the distinct service rates, in increasing order; Weights
	// the fraction of the servers at each; Servers the solution of a server
	// at each rate, in its own time unit (StaticExact(lambda/mu, m, r/mu)).
	Rates, Weights []float64
	Servers        []*StaticSolution
	// Occupancy[i-1] is q_i, the fraction of servers with at least i
	// packets (the mean over servers of P(Q >= i)), until it falls below
	// 1e-13; MeanQueue the mean packets per server.
	Occupancy []float64
	MeanQueue float64
	// MeanDelay is the mean delay of a packet, the weighted mean of the
	// servers' mean delays.
	MeanDelay float64
}

// StaticExactRates solves static hashing with geometric flows of mean m,
// packet rate r, load lambda per server and per-server service rates
// exactly (see StaticMixture). It needs lambda below every rate: static
// hashing sends each server packets at rate lambda.
func StaticExactRates(lambda, m, r float64, rates []float64) (*StaticMixture, error) {
	if len(rates) == 0 {
		return nil, errors.New("rates: none given; want one per server")
	}
	if msg := model.CheckRates(rates, len(rates)); msg != "" {
		return nil, errors.New(msg)
	}
	count := map[float64]int{}
	for j, mu := range rates {
		if !(lambda < mu) {
			return nil, fmt.Errorf("lambda = %v: must be below every rate (rates[%d] = %v): static hashing sends each server packets at rate lambda", lambda, j, mu)
		}
		count[mu]++
	}
	mix := &StaticMixture{Lambda: lambda, PacketsPerFlow: m, PacketRate: r}
	for mu := range count {
		mix.Rates = append(mix.Rates, mu)
	}
	slices.Sort(mix.Rates)
	for _, mu := range mix.Rates {
		sol, err := StaticExact(lambda/mu, m, r/mu)
		if err != nil {
			return nil, fmt.Errorf("rate %v: %w", mu, err)
		}
		w := float64(count[mu]) / float64(len(rates))
		mix.Weights, mix.Servers = append(mix.Weights, w), append(mix.Servers, sol)
		mix.MeanQueue += w * sol.MeanQueue
		mix.MeanDelay += w * sol.MeanDelay / mu
		for i, q := range sol.Occupancy {
			if i == len(mix.Occupancy) {
				mix.Occupancy = append(mix.Occupancy, 0)
			}
			mix.Occupancy[i] += w * q
		}
	}
	for len(mix.Occupancy) > 0 && mix.Occupancy[len(mix.Occupancy)-1] < 1e-13 {
		mix.Occupancy = mix.Occupancy[:len(mix.Occupancy)-1]
	}
	return mix, nil
}

// DelayCCDF returns P(D > x) for a packet: the mixture over the rates mu
// of P(D_1 > mu x), D_1 the delay at a unit-rate server at load lambda/mu.
func (s *StaticMixture) DelayCCDF(x float64) float64 {
	sum := 0.0
	for k, sol := range s.Servers {
		sum += s.Weights[k] * sol.DelayCCDF(s.Rates[k]*x)
	}
	return math.Min(sum, 1)
}

// DelayQuantile returns the delay x with P(D > x) = 1-p, by bisection.
func (s *StaticMixture) DelayQuantile(p float64) float64 { return quantileOf(s.DelayCCDF, p) }
