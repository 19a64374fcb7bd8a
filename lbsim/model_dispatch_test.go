package lbsim_test

import (
	"context"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/internal/modeltest"
)

// The figures of a dispatch point and of its replications (a sweep's
// columns) are byte for byte what they were (testdata/figures.json, written
// before the figures were read by the keys of their fields): several
// replications, one (NaN half-widths), and the general engine's quantiles.
func TestFiguresBytes(t *testing.T) {
	var values []any
	for _, keys := range []map[string]any{
		{"servers": 10, "lambda": 0.7, "policy": "jsqd", "horizon": 200.0, "replications": 3, "seed": 4},
		{"servers": 10, "lambda": 0.7, "policy": "jsq", "horizon": 100.0, "engine": "servers"},
		{"servers": 10, "lambda": 0.7, "policy": "jsqd", "horizon": 100.0, "replications": 2, "service": "det"},
	} {
		sc, err := lbsim.ScenarioFromKeys(keys)
		if err != nil {
			t.Fatal(err)
		}
		sc.Workers = 1
		res, err := lbsim.Run(context.Background(), sc)
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, res.Figures(), res.ReplicationFigures())
	}
	modeltest.JSONBytes(t, "testdata/figures.json", values...)
}
