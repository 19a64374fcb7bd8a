package redundancy

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/pairs"
)

// LoadRatio by minimum cuts against enumerating every set of servers, on
// random weighted pair lists of 7 servers with unequal rates (1e-12
// relative: the ratios are ratios of sums of a few terms), and for uniform
// d-sets by size.
func TestLoadRatioAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 7
	for trial := range 200 {
		var u, v []int32
		var w []float64
		for a := range n {
			for b := a + 1; b < n; b++ {
				if r.Float64() < 0.4 || b == a+1 { // a path keeps every server covered
					u, v, w = append(u, int32(a)), append(v, int32(b)), append(w, r.ExpFloat64())
				}
			}
		}
		dist, err := pairs.Weighted(n, u, v, w)
		if err != nil {
			t.Fatal(err)
		}
		rates := make([]float64, n)
		for j := range rates {
			rates[j] = 0.2 + r.Float64()
		}
		got, worst, err := LoadRatio(dist, 0.5, rates)
		if err != nil {
			t.Fatal(err)
		}
		want := enumRatio(t, dist, 0.5, rates)
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("trial %d: LoadRatio %v (set %v), enumeration %v", trial, got, worst, want)
		}
		if s, err := Exact(dist, 0.5, rates, ExactOptions{LightTraffic: -1}); err == nil && math.Abs(s.LoadRatio-want) > 1e-12*want {
			t.Errorf("trial %d: Exact's load ratio %v, enumeration %v", trial, s.LoadRatio, want)
		}
	}
	for _, c := range [][2]int{{5, 1}, {5, 2}, {6, 3}, {4, 4}} {
		dist := mustUniform(t, c[0], c[1])
		rates := []float64{0.3, 2, 1, 0.5, 1.1, 0.9}[:c[0]]
		got, _, _ := LoadRatio(dist, 0.4, rates)
		if want := enumRatio(t, dist, 0.4, rates); math.Abs(got-want) > 1e-12*want {
			t.Errorf("uniform %v: LoadRatio %v, enumeration %v", c, got, want)
		}
	}
}

// LoadRatio remembers its last answer for explicit pairs: asked again with
// the same distribution it answers the same, and with another lambda, other
// rates (also the same slice changed in place) or another distribution it
// computes anew.
func TestLoadRatioRemembered(t *testing.T) {
	dist := mustList(t, 4, "0 1 1\n1 2 1\n2 3 1\n3 0 1\n0 2 30\n")
	rates := []float64{1, 1, 1, 1}
	for _, c := range []struct {
		dist   *pairs.Dist
		lambda float64
		rates  []float64
	}{
		{dist, 0.5, rates}, {dist, 0.5, rates}, {dist, 0.25, rates}, {dist, 0.25, []float64{1, 2, 1, 1}},
		{mustRing(t, 4), 0.25, rates}, {dist, 0.25, nil},
	} {
		got, _, err := LoadRatio(c.dist, c.lambda, c.rates)
		r := c.rates
		if r == nil {
			r = rates
		}
		if want := enumRatio(t, c.dist, c.lambda, r); err != nil || math.Abs(got-want) > 1e-12*want {
			t.Errorf("lambda %v, rates %v: LoadRatio %v, %v; enumeration %v", c.lambda, c.rates, got, err, want)
		}
	}
	rates[2] = 3 // in place
	if got, _, _ := LoadRatio(dist, 0.25, rates); math.Abs(got-enumRatio(t, dist, 0.25, rates)) > 1e-12*got {
		t.Errorf("rates changed in place: LoadRatio %v, enumeration %v", got, enumRatio(t, dist, 0.25, rates))
	}
}

func enumRatio(t *testing.T, dist *pairs.Dist, lambda float64, rates []float64) float64 {
	sets, err := dist.Sets()
	if err != nil {
		t.Fatal(err)
	}
	n := dist.N()
	best := 0.0
	for a := 1; a < 1<<n; a++ {
		mu, p := 0.0, 0.0
		for j := range n {
			if a&(1<<j) != 0 {
				mu += rates[j]
			}
		}
		for _, s := range sets {
			in := true
			for _, j := range s.Servers {
				in = in && a&(1<<j) != 0
			}
			if in {
				p += s.P
			}
		}
		best = math.Max(best, lambda*float64(n)*p/mu)
	}
	return best
}

// Redundancy-2 with uniform pairs, N = 1e4, lambda = 0.8, one core. The
// events/s metric counts replica events: 2 placements per arrival, one
// completion and one cancellation per departure.
func BenchmarkSimulateUniform10k(b *testing.B) {
	dist := mustUniform(b, 10000, 2)
	var events int64
	var secs float64
	for b.Loop() {
		res, err := Simulate(context.Background(), Options{Servers: 10000, Lambda: 0.8, Dist: dist, Horizon: 200,
			Warmup: 20, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
		secs += res.Seconds
	}
	b.ReportMetric(float64(events)/secs, "events/s")
}

// The same on a ring (explicit pairs, alias sampling) with unequal rates
// (the uniformised completions).
func BenchmarkSimulateRingRates10k(b *testing.B) {
	dist := mustRing(b, 10000)
	rates := make([]float64, 10000)
	for j := range rates {
		rates[j] = 0.8 + 0.4*float64(j%2)
	}
	var events int64
	var secs float64
	for b.Loop() {
		res, err := Simulate(context.Background(), Options{Servers: 10000, Lambda: 0.7, Dist: dist, Rates: rates,
			Horizon: 200, Warmup: 20, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
		secs += res.Seconds
	}
	b.ReportMetric(float64(events)/secs, "events/s")
}
