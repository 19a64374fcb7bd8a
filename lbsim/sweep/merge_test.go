package sweep

import (
	"testing"

	"github.com/lbsim/notebooks/lbsim/model"
)

// A point without replications is a computed point only when none of its
// figures was sampled (has a confidence interval); then it gives one row.
func TestReplicationRows(t *testing.T) {
	ci := "0.1"
	computed := &PointRecord{PointData: PointData{Figures: []model.Figure{{Name: "x", Value: "1"}}}}
	if rows := replicationRows(computed); len(rows) != 1 || rows[0][0].Name != "x" || sampled(computed.Figures) {
		t.Errorf("computed point: rows %v", rows)
	}
	lost := &PointRecord{PointData: PointData{Figures: []model.Figure{{Name: "x", Value: "1", CI95: &ci}}}}
	if rows := replicationRows(lost); len(rows) != 0 || !sampled(lost.Figures) {
		t.Errorf("a sampled point without replications gives rows %v", rows)
	}
	reps := &PointRecord{PointData: PointData{Figures: lost.Figures, PerReplication: [][]model.Figure{{{Name: "x", Value: "1"}}, {{Name: "x", Value: "2"}}}}}
	if rows := replicationRows(reps); len(rows) != 2 {
		t.Errorf("two replications give %d rows", len(rows))
	}
}
