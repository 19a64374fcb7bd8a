package lbsim

import (
	"math/rand/v2"
	"testing"

	"github.com/lbsim/notebooks/lbsim/graph"
)

// The scratch permutation of neighbour-jsqd with large d is restored.
func TestNeighbourJSQdScratchRestored(t *testing.T) {
	k, _ := graph.Complete(60)
	g, _ := k.Materialize()
	p, err := NeighbourJSQd(g, 30).(Preparer).Prepare(System{N: 60})
	if err != nil {
		t.Fatal(err)
	}
	s := newState(System{N: 60}, false)
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		p.Dispatch(s, r.IntN(60), r)
	}
	for i, v := range p.(*neighbourJSQd).scratch {
		if int(v) != i {
			t.Fatalf("scratch[%d] = %d, want the identity", i, v)
		}
	}
}
