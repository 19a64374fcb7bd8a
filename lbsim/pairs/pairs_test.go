package pairs

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/internal/chisq"
)

// key numbers a set of up to 3 servers below 64, as an unordered set.
func key(s []int32) int {
	k := 0
	for _, x := range s {
		k |= 1 << x
	}
	return k
}

// Draws follow Sets: chi-square over the sets (significance of chisq.Check),
// for uniform pairs and triples and a weighted edge list.
func TestSampleMatchesSets(t *testing.T) {
	ring, _ := graph.Ring(6, 1)
	fromRing, err := FromGraph(ring)
	if err != nil {
		t.Fatal(err)
	}
	weighted, err := ReadEdgeList(strings.NewReader("0 1 3\n1 2\n2 3 0.5 # a comment\n0 3 0\n1 2 2\n"), 4)
	if err != nil {
		t.Fatal(err)
	}
	u2, _ := Uniform(5, 2)
	u3, _ := Uniform(6, 3)
	for _, p := range []*Dist{u2, u3, fromRing, weighted} {
		sets, err := p.Sets()
		if err != nil {
			t.Fatal(err)
		}
		probs := map[int]float64{}
		total := 0.0
		for _, s := range sets {
			var x []int32
			for _, j := range s.Servers {
				x = append(x, int32(j))
			}
			probs[key(x)] += s.P
			total += s.P
		}
		if math.Abs(total-1) > 1e-12 {
			t.Fatalf("%s: Sets sum to %v", p, total)
		}
		r := rand.New(rand.NewPCG(1, 2))
		counts := map[int]int{}
		buf := make([]int32, p.D())
		const draws = 200000
		for range draws {
			s := p.Sample(r, buf)
			if len(s) != p.D() || (p.D() >= 2 && s[0] == s[1]) {
				t.Fatalf("%s: drew %v", p, s)
			}
			counts[key(s)]++
		}
		chisq.Check(t, p.String(), counts, probs, draws)
	}
	// The weighted list merges the pair {1, 2} given twice (1 + 2 of 6.5)
	// and drops the zero-weight pair.
	sets, _ := weighted.Sets()
	if len(sets) != 3 || math.Abs(sets[1].P-3/6.5) > 1e-15 {
		t.Errorf("weighted sets %v", sets)
	}
	if got := weighted.Uncovered(); len(got) != 0 {
		t.Errorf("uncovered %v", got)
	}
	if got := fromRing.Uncovered(); len(got) != 0 {
		t.Errorf("ring uncovered %v", got)
	}
	if p, _ := Weighted(4, []int32{0}, []int32{1}, nil); len(p.Uncovered()) != 2 {
		t.Errorf("a single pair of 4 servers leaves 2 uncovered, got %v", p.Uncovered())
	}
}

func TestBadPairs(t *testing.T) {
	for in, want := range map[string]string{
		"0 0\n":        "two distinct servers",
		"0 1 -1\n":     "weight -1: must be >= 0",
		"0 1 0\n1 2 0": "all weights are zero",
		"0 9\n":        "must be below the number of servers (4)",
		"0 1 x\n":      "bad weight",
		"0 1 2 3\n":    "got 4 fields",
		"":             "no pairs",
	} {
		if _, err := ReadEdgeList(strings.NewReader(in), 4); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	if _, err := Uniform(3, 4); err == nil {
		t.Error("Uniform(3, 4) accepted")
	}
	if big, _ := Uniform(1000, 3); big != nil {
		if _, err := big.Sets(); err == nil {
			t.Error("listing C(1000, 3) sets accepted")
		}
	}
}
