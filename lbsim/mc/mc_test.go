package mc

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// The derivation of the streams is fixed: these are the first numbers every
// stored result was drawn from (lbsim.Stream before it moved here).
func TestStreamPinned(t *testing.T) {
	cases := []struct {
		seed uint64
		path []uint64
		want [3]uint64
	}{
		{0, nil, [3]uint64{0xdfaa6511274949f, 0x49e5336909b5116, 0xda7b73f5dff6d594}},
		{1, nil, [3]uint64{0xc2beff21ac2d504a, 0xe51deba25ccb7f95, 0x915b8612b83db532}},
		{42, []uint64{3}, [3]uint64{0xb415ea178b29cd06, 0xf645a3169ede4756, 0x72ae34c316299c18}},
		{42, []uint64{3, 7}, [3]uint64{0x2c63e0975f3c7d6c, 0x8520209f6479c9cb, 0x186c7f68c2a9b629}},
		{math.MaxUint64, []uint64{0, 1}, [3]uint64{0xdc57fa3735e82472, 0x4efef822359e114f, 0x251cad8832860b6c}},
	}
	for _, c := range cases {
		r, p := Stream(c.seed, c.path...), rand.New(Source(c.seed, c.path...))
		for k, w := range c.want {
			if x, y := r.Uint64(), p.Uint64(); x != w || y != w {
				t.Errorf("seed %d path %v draw %d: Stream %#x, Source %#x, want %#x", c.seed, c.path, k, x, y, w)
			}
		}
	}
	if SplitMix(0) != 16294208416658607535 || SplitMix(12345) != 2454886589211414944 {
		t.Errorf("SplitMix(0), SplitMix(12345) = %d, %d", SplitMix(0), SplitMix(12345))
	}
}

// Different paths give different streams; a path is not a prefix-free
// concatenation of seeds.
func TestStreamPathsDiffer(t *testing.T) {
	seen := map[uint64]string{}
	add := func(name string, r *rand.Rand) {
		x := r.Uint64()
		if prev, ok := seen[x]; ok {
			t.Errorf("%s and %s start with the same number", name, prev)
		}
		seen[x] = name
	}
	add("(1)", Stream(1))
	add("(1, 0)", Stream(1, 0))
	add("(1, 1)", Stream(1, 1))
	add("(1, 0, 1)", Stream(1, 0, 1))
	add("(1, 1, 0)", Stream(1, 1, 0))
	add("(0, 1)", Stream(0, 1))
}

func TestMeanCI95(t *testing.T) {
	m, h := MeanCI95([]float64{1, 2, 4, 8})
	// t_{0.975,3} = 3.182446305284263, s = sqrt(9.583333...) = 3.0956959...
	if m != 3.75 || math.Abs(h-3.182446305284263*math.Sqrt(115.0/12)/2) > 1e-12 {
		t.Errorf("MeanCI95 = %v, %v", m, h)
	}
	if m, h := MeanCI95([]float64{2}); m != 2 || !math.IsNaN(h) {
		t.Errorf("one value: %v, %v", m, h)
	}
	if m, h := MeanCI95(nil); !math.IsNaN(m) || !math.IsNaN(h) {
		t.Errorf("no value: %v, %v", m, h)
	}
	if m, h := MeanCI95([]float64{1, math.NaN()}); !math.IsNaN(m) || !math.IsNaN(h) {
		t.Errorf("NaN value: %v, %v", m, h)
	}
}

// Replicate runs every replication once, whatever the workers, reports
// progress up to 1 and returns the first error by replication order.
func TestReplicate(t *testing.T) {
	for _, w := range []int{0, 1, 3, 10} {
		ran := make([]int, 7)
		last := 0.0
		err := Replicate(7, w, 10, func(f float64) { last = max(last, f) }, func(r int, tick func(float64)) error {
			ran[r]++
			tick(10)
			return nil
		})
		if err != nil || last != 1 {
			t.Errorf("workers %d: %v, progress %v", w, err, last)
		}
		for r, n := range ran {
			if n != 1 {
				t.Errorf("workers %d: replication %d ran %d times", w, r, n)
			}
		}
	}
	errA, errB := errors.New("a"), errors.New("b")
	err := Replicate(4, 2, 1, nil, func(r int, _ func(float64)) error {
		switch r {
		case 1:
			return errA
		case 3:
			return errB
		}
		return nil
	})
	if err != errA {
		t.Errorf("first error: %v", err)
	}
	mean, half := VectorMeanCI95(2, func(r int) []float64 { return [][]float64{{1, 2}, {3}}[r] })
	if mean[0] != 2 || mean[1] != 1 || !(half[0] > 0) {
		t.Errorf("VectorMeanCI95: %v %v", mean, half)
	}
}

// TestKSDistance checks the distance on samples worked by hand: against the
// uniform CDF on [0, 1], {0.25, 0.75} is 0.25 away (the steps at 0.25 and
// 0.75 each miss F by a quarter) and {0.9} is 0.9 away; an empty sample is NaN;
// the sample is not reordered.
func TestKSDistance(t *testing.T) {
	uniform := func(x float64) float64 { return min(max(x, 0), 1) }
	xs := []float64{0.75, 0.25}
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{xs, 0.25}, {[]float64{0.9}, 0.9}, {[]float64{0.1, 0.2, 0.3}, 0.7}} {
		if got := KSDistance(c.xs, uniform); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("KSDistance(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	if xs[0] != 0.75 {
		t.Errorf("the sample was reordered: %v", xs)
	}
	if got := KSDistance(nil, uniform); !math.IsNaN(got) {
		t.Errorf("KSDistance(nil) = %v, want NaN", got)
	}
}
