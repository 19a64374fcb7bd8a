package meanfield

import (
	"context"
	"fmt"
)

// JSQdPath is the mean-field path of JSQ(d) at load lambda from the start q0
// (nil: an empty system) on the grid times: JSQdDrift integrated by
// Trajectory (Dormand-Prince 5(4), relative tolerance 1e-8, absolute 1e-12),
// truncated at Levels(lambda, d, 1e-12, q0) levels, so that the neglected
// fixed-point tail is below 1e-12 and every non-zero entry of q0 is kept.
// It is the reference path a simulated q_i(t) of N servers is compared with.
func JSQdPath(ctx context.Context, lambda float64, d int, q0, times []float64) (*Path, error) {
	drift, err := JSQdDrift(lambda, d)
	if err != nil {
		return nil, fmt.Errorf("meanfield: JSQdPath: %w", err)
	}
	levels, _, err := Levels(lambda, d, 1e-12, q0)
	if err != nil {
		return nil, fmt.Errorf("meanfield: JSQdPath: %w", err)
	}
	return Trajectory(ctx, drift, q0, times, levels, Options{})
}
