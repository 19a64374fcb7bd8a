package lbsim

import "github.com/lbsim/notebooks/lbsim/model"

// MarshalJSON writes the result with snake_case keys (its json tags), the
// ones `lbsim run` prints, in sorted order (model.MarshalSorted: the order
// they have always had). Values that are not numbers (a confidence
// half-width from a single replication) are written as null. The trajectory
// is not included: write it with Trajectory.WriteCSV.
func (r *Result) MarshalJSON() ([]byte, error) {
	// The scenario file of the run; a policy built in Go from a value that
	// has no keys (a graph made in Go, a type of your own) has none.
	extra := []model.Field{{Key: "scenario"}, {Key: "sojourn_quantiles", Value: orEmpty(r.SojournQuantiles)},
		{Key: "per_replication", Value: orEmpty(r.PerReplication)}}
	if v, err := r.Scenario.fileValues(); err != nil {
		extra = append(extra, model.Field{Key: "scenario_note", Value: err.Error()})
	} else {
		extra[0].Value = v
	}
	return model.MarshalSorted(r, extra...)
}

// MarshalJSON writes the figures of a replication under their json tags,
// sorted as in a Result, NaN (no arrival) as null (model.MarshalSorted).
func (rr ReplicationResult) MarshalJSON() ([]byte, error) { return model.MarshalSorted(rr) }

// MarshalJSON writes p and value, a NaN value as null (model.MarshalObject).
func (q Quantile) MarshalJSON() ([]byte, error) { return model.MarshalObject(q) }

// orEmpty is xs, or an empty list for nil (written [] rather than null).
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// UnmarshalJSON reads back what MarshalJSON writes (kh.Keep and kh.Recall
// carry results from cell to cell this way): every figure, null as NaN, and
// the replications' own figures, so that estimates (kh.Occ, kh.Sojourn) can
// be made from a recalled result, and the scenario (Scenario.UnmarshalJSON,
// from its scenario file; zero when the result had none). The trajectory is
// not in the JSON form (model.UnmarshalObject).
func (r *Result) UnmarshalJSON(b []byte) error { return model.UnmarshalObject(b, r) }

// UnmarshalJSON reads what MarshalJSON writes, null as NaN.
func (rr *ReplicationResult) UnmarshalJSON(b []byte) error { return model.UnmarshalObject(b, rr) }

// UnmarshalJSON reads what MarshalJSON writes, null as NaN.
func (q *Quantile) UnmarshalJSON(b []byte) error { return model.UnmarshalObject(b, q) }

// MarshalJSON writes the law under its json tags, NaN (a half-width from a
// single replication, a quantile without samples) as null (model.MarshalObject).
func (l LevelLaw) MarshalJSON() ([]byte, error) { return model.MarshalObject(l) }

// UnmarshalJSON reads what MarshalJSON writes, null as NaN.
func (l *LevelLaw) UnmarshalJSON(b []byte) error { return model.UnmarshalObject(b, l) }
