package compat_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/lbsim/notebooks/lbsim/compat"
)

// The paper's sparse random graph (50 draws per server among 2000 types) is
// close to proportional sparsity although each type sees only about 50
// servers; two disjoint blocks are as far from it as can be although each
// type sees 1000 (every type sees all or none of a block's servers).
func ExampleSparsity() {
	rng := rand.New(rand.NewPCG(1, 2))
	sparse, _ := compat.Sparse(2000, 2000, 50, rng)
	blocks, _ := compat.Blocks(2000, 2000, []float64{1, 1})
	for _, g := range []*compat.Graph{sparse, blocks} {
		rep, _ := compat.Sparsity(g, compat.SparsityOptions{}, rand.New(rand.NewPCG(3, 4)))
		fmt.Printf("mean server degree %4.0f  deviation %.2f\n", g.Degrees().MeanServer, rep.Deviation)
	}
	// Output:
	// mean server degree   49  deviation 0.06
	// mean server degree 1000  deviation 0.50
}

func ExampleFromTypeLists() {
	// Type 0 can go to servers 0-2, type 1 to servers 1-3.
	g, _ := compat.FromTypeLists(4, [][]int{{0, 1, 2}, {1, 2, 3}})
	fmt.Println(g.ServersOf(1), g.TypesOf(2), g.Edges())
	// Output: [1 2 3] [0 1] 6
}
