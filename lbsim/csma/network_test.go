package csma

import (
	"context"
	"math"
	"syscall"
	"testing"

	"github.com/lbsim/notebooks/lbsim/mc"
)

// The simulated network's time averages against the exact product form:
// activities and second moments E[x_i x_j] on a path of 4, a 5-ring and a
// 3x3 grid, from 20 batches of length 2000 after a warm-up of 200 (the
// relaxation times here are below 5, so batches are nearly independent).
// Each |simulated - exact| must be within 4 half-widths of the batch-means
// 95% interval plus 1e-3 (a bound a wrong rate or a wrong eligibility rule
// exceeds by far: they shift activities by 0.05 or more); 4 half-widths
// over 9..81 comparisons per graph keep the test from flaking.
func TestNetworkMatchesExact(t *testing.T) {
	for _, c := range []struct {
		spec  string
		theta []float64
	}{
		{"path:4", []float64{0.5, -0.3, 1, 0}},
		{"ring:5", []float64{1, 0.2, -0.5, 0.8, 0}},
		{"grid:3x3", []float64{0.3, 1, -0.2, 0.5, 1.5, 0, -1, 0.4, 0.9}},
	} {
		g := mustConflict(t, c.spec)
		sets, _ := Enumerate(g, 1<<16)
		exact := moments(t, sets, c.theta)
		w, err := NewNetwork(g, mc.Source(7, 1))
		if err != nil {
			t.Fatal(err)
		}
		w.SetTheta(c.theta)
		n := g.N()
		mean, second := make([]float64, n), make([]float64, n*n)
		if _, err := w.Measure(context.Background(), 200, mean, second); err != nil {
			t.Fatal(err)
		}
		const batches = 20
		means := make([][]float64, n)
		seconds := make([][]float64, n*n)
		for range batches {
			if _, err := w.Measure(context.Background(), 2000, mean, second); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				means[i] = append(means[i], mean[i])
				for j := range n {
					seconds[i*n+j] = append(seconds[i*n+j], second[i*n+j])
				}
			}
		}
		for i := range n {
			m, h := mc.MeanCI95(means[i])
			if math.Abs(m-exact.Mean[i]) > 4*h+1e-3 {
				t.Errorf("%s: s_%d simulated %.4f ± %.4f, exact %.4f", c.spec, i, m, h, exact.Mean[i])
			}
			for j := range n {
				want := exact.Cov.At(i, j) + exact.Mean[i]*exact.Mean[j]
				m, h := mc.MeanCI95(seconds[i*n+j])
				if math.Abs(m-want) > 4*h+1e-3 {
					t.Errorf("%s: E[x_%d x_%d] simulated %.4f ± %.4f, exact %.4f", c.spec, i, j, m, h, want)
				}
			}
		}
		// The state is an independent set at all times.
		act := w.Active()
		for v := range n {
			for _, u := range g.Neighbors(v) {
				if act[v] && act[u] {
					t.Fatalf("%s: neighbours %d and %d both active", c.spec, v, u)
				}
			}
		}
	}
}

// The same seed gives the same measurements, with and without second
// moments (they draw the same numbers).
func TestNetworkDeterministic(t *testing.T) {
	g := mustConflict(t, "grid:4x4")
	run := func(cov bool) []float64 {
		w, _ := NewNetwork(g, mc.Source(3, 0))
		w.SetTheta(fill(16, 0.7))
		mean := make([]float64, 16)
		var second []float64
		if cov {
			second = make([]float64, 256)
		}
		w.Measure(context.Background(), 500, mean, second)
		return mean
	}
	a, b, c := run(false), run(false), run(true)
	for i := range a {
		if a[i] != b[i] || a[i] != c[i] {
			t.Fatalf("node %d: %v, %v, %v", i, a[i], b[i], c[i])
		}
	}
}

// BenchmarkNetworkGrid10x10 runs the CSMA chain on a 10x10 grid at theta =
// 1 (activation rate e) in measurements of time 1000 (about 65,000
// transitions each) and reports transitions per second of wall time and
// per second of the process's CPU time (the benchmark is one goroutine, so
// on a machine shared with other work the second is the speed of one core).
func BenchmarkNetworkGrid10x10(b *testing.B) {
	for _, cov := range []bool{false, true} {
		name := "activities"
		if cov {
			name = "covariances"
		}
		b.Run(name, func(b *testing.B) {
			g := mustConflict(b, "grid:10x10")
			w, _ := NewNetwork(g, mc.Source(1, 0))
			w.SetTheta(fill(100, 1))
			mean := make([]float64, 100)
			var second []float64
			if cov {
				second = make([]float64, 100*100)
			}
			w.Measure(context.Background(), 100, mean, second)
			b.ResetTimer()
			cpu0 := cpuSeconds()
			var events int64
			for range b.N {
				e, _ := w.Measure(context.Background(), 1000, mean, second)
				events += e
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "transitions/s")
			b.ReportMetric(float64(events)/(cpuSeconds()-cpu0), "transitions/cpu-s")
		})
	}
}

// cpuSeconds is the user and system CPU time of the process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
