package service

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Empirical is the empirical law of the given samples, as they are: Sample
// picks one of them uniformly at random (resampling with replacement), so
// Mean and SecondMoment are the data's mean and mean square. The samples must
// be finite and >= 0 with a positive mean; they are copied. The hazard class
// is reported as neither.
func Empirical(samples []float64) (Distribution, error) {
	return newEmpirical(samples, 0)
}

// EmpiricalWithMean is Empirical with the samples multiplied by a constant so
// that their mean is the given one.
func EmpiricalWithMean(samples []float64, mean float64) (Distribution, error) {
	if err := checkMean("empirical", mean); err != nil {
		return nil, err
	}
	return newEmpirical(samples, mean)
}

// ReadEmpirical reads samples, one number per line (blank lines and '#'
// comments, whole-line or trailing, are skipped), and returns their
// Empirical law, as they are.
func ReadEmpirical(r io.Reader) (Distribution, error) {
	x, err := readSamples(r)
	if err != nil {
		return nil, err
	}
	return Empirical(x)
}

func readSamples(r io.Reader) ([]float64, error) {
	var x []float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("service: empirical: line %d: %q: not a number", line, s)
		}
		if !(v >= 0) || !finite(v) {
			return nil, fmt.Errorf("service: empirical: line %d: %v: must be a finite number >= 0", line, v)
		}
		x = append(x, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("service: empirical: reading: %v", err)
	}
	return x, nil
}

type empirical struct {
	data     []float64
	mean, m2 float64
}

func newEmpirical(samples []float64, mean float64) (*empirical, error) {
	const law = "empirical"
	if len(samples) == 0 {
		return nil, paramError(law, "number of samples", 0, ">= 1")
	}
	e := &empirical{data: make([]float64, len(samples))}
	sum := 0.0
	for i, v := range samples {
		if !(v >= 0) || !finite(v) {
			return nil, paramError(law, fmt.Sprintf("samples[%d]", i), v, "a finite number >= 0")
		}
		sum += v
	}
	m := sum / float64(len(samples))
	if !(m > 0) || !finite(m) {
		return nil, paramError(law, "mean of the samples", m, "a finite number > 0")
	}
	c := 1.0
	if mean > 0 {
		c = mean / m
	}
	sum, sq := 0.0, 0.0
	for i, v := range samples {
		v *= c
		e.data[i] = v
		sum += v
		sq += v * v
	}
	n := float64(len(samples))
	e.mean, e.m2 = sum/n, sq/n
	if mean > 0 {
		e.mean = mean
	}
	if !finite(e.m2) {
		return nil, paramError(law, "mean square of the samples", e.m2, "finite")
	}
	return e, nil
}

func (e *empirical) Sample(r *rand.Rand) float64 { return e.data[r.IntN(len(e.data))] }
func (e *empirical) Mean() float64               { return e.mean }
func (e *empirical) SecondMoment() float64       { return e.m2 }
func (e *empirical) Hazard() HazardClass         { return HazardNeither }
func (e *empirical) String() string {
	return fmt.Sprintf("empirical(n=%d,mean=%g)", len(e.data), e.mean)
}
