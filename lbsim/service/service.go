package service

import (
	"fmt"
	"math/rand/v2"
)

// HazardClass says how a distribution's hazard rate f(t)/(1-F(t)) behaves, which
// decides which theory applies (Bramson, Lu and Prabhakar prove the
// asymptotic-independence ansatz for FIFO with decreasing hazard rate).
type HazardClass int

const (
	// HazardNeither: the hazard rate is neither monotone increasing nor decreasing.
	HazardNeither HazardClass = iota
	// HazardIncreasing: non-decreasing hazard rate (IHR), e.g. deterministic, Erlang.
	HazardIncreasing
	// HazardDecreasing: non-increasing hazard rate (DHR), e.g. hyperexponential, Pareto.
	HazardDecreasing
	// HazardConstant: constant hazard rate (exponential: both IHR and DHR).
	HazardConstant
)

func (h HazardClass) String() string {
	switch h {
	case HazardIncreasing:
		return "increasing"
	case HazardDecreasing:
		return "decreasing"
	case HazardConstant:
		return "constant"
	}
	return "neither"
}

// A Distribution is a service-time law on [0, inf) with a finite mean.
// Sample draws from the stream it is given and must not allocate.
type Distribution interface {
	// Sample draws one service time.
	Sample(r *rand.Rand) float64
	// Mean is E[S]; SecondMoment is E[S^2] (+Inf when infinite).
	Mean() float64
	SecondMoment() float64
	// Hazard is the hazard-rate class.
	Hazard() HazardClass
	// String names the law with its parameters, e.g. "erlang(k=4,mean=1)".
	String() string
}

// Exponential is the exponential law with the given mean (> 0).
func Exponential(mean float64) (Distribution, error) {
	if err := checkMean("exp", mean); err != nil {
		return nil, err
	}
	return exponential{mean}, nil
}

type exponential struct{ mean float64 }

func (e exponential) Sample(r *rand.Rand) float64 { return e.mean * r.ExpFloat64() }
func (e exponential) Mean() float64               { return e.mean }
func (e exponential) SecondMoment() float64       { return 2 * e.mean * e.mean }
func (e exponential) Hazard() HazardClass         { return HazardConstant }
func (e exponential) String() string              { return fmt.Sprintf("exp(mean=%g)", e.mean) }

// Deterministic is the point mass at mean (> 0).
func Deterministic(mean float64) (Distribution, error) {
	if err := checkMean("det", mean); err != nil {
		return nil, err
	}
	return deterministic{mean}, nil
}

type deterministic struct{ mean float64 }

func (d deterministic) Sample(*rand.Rand) float64 { return d.mean }
func (d deterministic) Mean() float64             { return d.mean }
func (d deterministic) SecondMoment() float64     { return d.mean * d.mean }
func (d deterministic) Hazard() HazardClass       { return HazardIncreasing }
func (d deterministic) String() string            { return fmt.Sprintf("det(mean=%g)", d.mean) }
