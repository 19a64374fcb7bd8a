package trickle

import (
	"fmt"
	"math"

	"github.com/lbsim/notebooks/lbsim/graph"
	"github.com/lbsim/notebooks/lbsim/param"
)

// Lattice returns the hearing graph of L*L nodes on a square lattice in the
// unit square: node x + L*y sits at ((x+1/2)/L, (y+1/2)/L), and two nodes
// hear each other when their distance is at most radius; with wrap the
// distance is taken on the unit torus. Radius 1/L gives the four nearest
// neighbours (with wrap: graph.Torus(L)).
func Lattice(L int, radius float64, wrap bool) (*graph.Graph, error) {
	if L < 1 || L > 1<<15 {
		return nil, fmt.Errorf("nodes = %d: a lattice needs L*L nodes with 1 <= L <= %d", L*L, 1<<15)
	}
	if !(radius > 0) || radius > math.Sqrt2 {
		return nil, fmt.Errorf("radius = %v: must be in (0, %.6g]", radius, math.Sqrt2)
	}
	// Offsets (dx, dy) with dx^2 + dy^2 <= (radius*L)^2, in lattice units
	// (a relative 1e-9 slack so that radius 1/L includes distance 1).
	rl := radius * float64(L)
	r2 := rl * rl * (1 + 1e-9)
	m := int(rl)
	var offsets [][2]int
	for dy := -m; dy <= m; dy++ {
		for dx := -m; dx <= m; dx++ {
			if (dx != 0 || dy != 0) && float64(dx*dx+dy*dy) <= r2 {
				offsets = append(offsets, [2]int{dx, dy})
			}
		}
	}
	if e := float64(len(offsets)) * float64(L) * float64(L); e > graph.MaxMaterialize {
		return nil, fmt.Errorf("radius = %v: the lattice would have %.4g directed edges, more than %d; lower radius or nodes",
			radius, e, graph.MaxMaterialize)
	}
	b := graph.NewBuilder(L * L)
	for y := range L {
		if err := param.Interrupted(); err != nil { // 10^8 edges take seconds
			return nil, err
		}
		for x := range L {
			for _, o := range offsets {
				u, v := x+o[0], y+o[1]
				if wrap {
					u, v = (u%L+L)%L, (v%L+L)%L
				} else if u < 0 || u >= L || v < 0 || v >= L {
					continue
				}
				if u+L*v == x+L*y {
					continue
				}
				if err := b.AddEdge(x+L*y, u+L*v); err != nil {
					return nil, err
				}
			}
		}
	}
	return b.Build()
}

// RadiusForDegree returns the radius r of a random geometric graph on the
// unit torus with n nodes and mean degree about d: pi*r^2*(n-1) = d.
func RadiusForDegree(n int, d float64) float64 {
	return math.Sqrt(d / (math.Pi * float64(max(n-1, 1))))
}
