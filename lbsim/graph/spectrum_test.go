package graph

import (
	"math"
	"slices"
	"testing"
)

func petersen() *Graph {
	b := NewBuilder(10)
	for i := 0; i < 5; i++ {
		b.AddEdge(i, (i+1)%5)     // outer cycle
		b.AddEdge(5+i, 5+(i+2)%5) // inner pentagram
		b.AddEdge(i, 5+i)         // spokes
	}
	g, _ := b.Build()
	return g
}

func hypercube(d int) *Graph {
	n := 1 << d
	b := NewBuilder(n)
	for v := 0; v < n; v++ {
		for i := 0; i < d; i++ {
			if w := v ^ 1<<i; w > v {
				b.AddEdge(v, w)
			}
		}
	}
	g, _ := b.Build()
	return g
}

func sortedEq(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	slices.Sort(want)
	if len(got) != len(want) {
		t.Fatalf("%s: %d eigenvalues, want %d", name, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol {
			t.Fatalf("%s: eigenvalue %d = %v, want %v", name, i, got[i], want[i])
		}
	}
}

func TestDenseSpectra(t *testing.T) {
	k, _ := Complete(30)
	ev, err := AdjacencyEigenvalues(k)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{29}
	for range 29 {
		want = append(want, -1)
	}
	sortedEq(t, "K_30", ev, want, 1e-9)

	const n = 37
	c, _ := Ring(n, 1)
	ev, _ = AdjacencyEigenvalues(c)
	want = want[:0]
	for j := 0; j < n; j++ {
		want = append(want, 2*math.Cos(2*math.Pi*float64(j)/n))
	}
	sortedEq(t, "C_37", ev, want, 1e-9)

	ev, _ = AdjacencyEigenvalues(hypercube(6))
	want = want[:0]
	for j := 0; j <= 6; j++ {
		binom := 1
		for i := 0; i < j; i++ {
			binom = binom * (6 - i) / (i + 1)
		}
		for range binom {
			want = append(want, float64(6-2*j))
		}
	}
	sortedEq(t, "Q_6", ev, want, 1e-9)

	ev, _ = AdjacencyEigenvalues(petersen())
	sortedEq(t, "Petersen", ev, []float64{3, 1, 1, 1, 1, 1, -2, -2, -2, -2}, 1e-9)

	s, _ := Spectrum(petersen(), newRNG(1))
	if !s.Dense || math.Abs(s.Lambda1-3) > 1e-9 || math.Abs(s.Lambda2-1) > 1e-9 || math.Abs(s.LambdaMin+2) > 1e-9 || math.Abs(s.Gap()-2) > 1e-9 {
		t.Fatalf("Petersen spectrum %+v", s)
	}
}

func TestLanczosExact(t *testing.T) {
	// Few distinct eigenvalues: Lanczos is exact.
	k, _ := Complete(100_000)
	s, err := SpectrumLanczos(k, 20, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.Lambda1-99_999) > 1e-6 || math.Abs(s.Lambda2+1) > 1e-6 || math.Abs(s.LambdaMin+1) > 1e-6 {
		t.Fatalf("K_n: %+v", s)
	}
	s, _ = SpectrumLanczos(hypercube(12), 30, newRNG(2))
	if math.Abs(s.Lambda1-12) > 1e-8 || math.Abs(s.Lambda2-10) > 1e-8 || math.Abs(s.LambdaMin+12) > 1e-8 {
		t.Fatalf("Q_12: %+v", s)
	}
	s, _ = SpectrumLanczos(petersen(), 10, newRNG(3))
	if math.Abs(s.Lambda1-3) > 1e-8 || math.Abs(s.Lambda2-1) > 1e-8 || math.Abs(s.LambdaMin+2) > 1e-8 {
		t.Fatalf("Petersen: %+v", s)
	}
	// Two disjoint cycles: lambda2 = lambda1 = 2.
	b := NewBuilder(10)
	for i := 0; i < 5; i++ {
		b.AddEdge(i, (i+1)%5)
		b.AddEdge(5+i, 5+(i+1)%5)
	}
	g, _ := b.Build()
	s, _ = SpectrumLanczos(g, 10, newRNG(4))
	if math.Abs(s.Lambda2-2) > 1e-8 {
		t.Fatalf("2 C_5: %+v", s)
	}
}

func TestRandomRegularSpectrum(t *testing.T) {
	g, _ := RandomRegular(2000, 3, newRNG(11))
	d, err := Spectrum(g, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	l, _ := SpectrumLanczos(g, DefaultLanczosSteps, newRNG(2))
	ram := 2 * math.Sqrt2
	if math.Abs(d.Lambda1-3) > 1e-9 || math.Abs(d.Lambda2-ram) > 0.15 {
		t.Fatalf("dense: %+v, want lambda2 near %v", d, ram)
	}
	if math.Abs(l.Lambda1-3) > 1e-9 || l.Lambda2 > d.Lambda2+1e-9 || d.Lambda2-l.Lambda2 > 0.03 || math.Abs(l.LambdaMin-d.LambdaMin) > 0.03 {
		t.Fatalf("Lanczos %+v vs dense %+v", l, d)
	}
	t.Logf("3-regular N=2000: dense lambda2 %.5f, Lanczos %.5f (%d steps), Ramanujan bound %.5f", d.Lambda2, l.Lambda2, l.Steps, ram)
}

func TestDenseVsLanczosER(t *testing.T) {
	g, _ := ErdosRenyiMeanDegree(1500, 8, newRNG(12))
	d, _ := Spectrum(g, newRNG(1))
	l, _ := SpectrumLanczos(g, DefaultLanczosSteps, newRNG(2))
	if math.Abs(d.Lambda1-l.Lambda1) > 1e-8 || math.Abs(d.Lambda2-l.Lambda2) > 0.05 || math.Abs(d.LambdaMin-l.LambdaMin) > 0.05 {
		t.Fatalf("Lanczos %+v vs dense %+v", l, d)
	}
	t.Logf("ER N=1500 d=8: dense %.6f %.6f %.6f; Lanczos %.6f %.6f %.6f", d.Lambda1, d.Lambda2, d.LambdaMin, l.Lambda1, l.Lambda2, l.LambdaMin)
}

func TestLanczosLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	g, _ := RandomRegular(100_000, 3, newRNG(13))
	s, err := Spectrum(g, newRNG(3))
	if err != nil || s.Dense {
		t.Fatal(err)
	}
	if ram := 2 * math.Sqrt2; math.Abs(s.Lambda2-ram) > 0.05 {
		t.Fatalf("3-regular N=1e5: lambda2 %v, want about %v", s.Lambda2, ram)
	}
}
