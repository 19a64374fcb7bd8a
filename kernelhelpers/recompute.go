package kernelhelpers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lbsim/notebooks/lbsim/sweep"
)

// RecomputeSweep runs again the points of the sweep file spec that keep
// selects, through the sweep package as `lbsim sweep` and `lbsim merge
// --summary` do (into a temporary directory), and compares every column of
// each recomputed row with the committed CSV's (csv, made from spec), as
// text. The points form a sweep of their own, one zipped axis with their
// values; their seeds are those of the full sweep, since a point's seed
// depends only on the root seed and its scenario. It returns the points
// recomputed and one line per difference (none: the data is what the code
// gives). A progress bar follows the run in a notebook.
//
// This is a reproducibility check, not a correctness one: a deterministic
// simulator passes it whatever its law.
func RecomputeSweep(spec, csv string, keep func(sweep.Point) bool) (points, diffs []string, err error) {
	t, err := sweep.LoadCSV(csv)
	if err != nil {
		return nil, nil, err
	}
	sw, err := sweep.ReadSpec(spec)
	if err != nil {
		return nil, nil, err
	}
	all, err := sw.Points()
	if err != nil {
		return nil, nil, err
	}
	var chosen []sweep.Point
	for _, p := range all {
		if keep(p) {
			chosen = append(chosen, p)
		}
	}
	if len(chosen) == 0 {
		return nil, nil, fmt.Errorf("kernelhelpers.RecomputeSweep: no point of %s selected", spec)
	}
	axis := sweep.Axis{}
	for _, key := range sw.Keys() {
		vals := make([]json.RawMessage, len(chosen))
		for i, p := range chosen {
			vals[i] = json.RawMessage("null")
			for _, pr := range p.Params {
				if pr.Key == key && pr.Value != nil {
					vals[i] = pr.Value
				}
			}
		}
		if axis[key], err = json.Marshal(vals); err != nil {
			return nil, nil, err
		}
	}
	sub := &sweep.Spec{Name: sw.Name, Model: sw.Model, Base: sw.Base, Axes: []sweep.Axis{axis}, Replications: sw.Replications, Seed: sw.Seed}
	subPoints, err := sub.Points()
	if err != nil {
		return nil, nil, err
	}
	for i, p := range subPoints {
		if p.Key != chosen[i].Key || p.Seed != chosen[i].Seed {
			return nil, nil, fmt.Errorf("kernelhelpers.RecomputeSweep: point %d (%s): the sub-sweep has another scenario or seed", chosen[i].Index, chosen[i])
		}
	}
	dir, err := os.MkdirTemp("", "lbsim-recompute-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	bar := NewProgressBar(fmt.Sprintf("recomputing %d points of %s", len(chosen), filepath.Base(spec)))
	if _, err := sweep.Run(context.Background(), sub, sweep.Options{Out: dir, Progress: func(p sweep.Progress) {
		bar.Set(p.Fraction, fmt.Sprintf("%d/%d replications done", p.Done, p.Total))
	}}); err != nil {
		return nil, nil, err
	}
	m, err := sweep.Merge(dir, sweep.MergeOptions{Summary: true})
	if err != nil {
		return nil, nil, err
	}
	if err := m.Write(filepath.Join(dir, "recomputed.csv")); err != nil {
		return nil, nil, err
	}
	again, err := sweep.LoadCSV(filepath.Join(dir, "recomputed.csv"))
	if err != nil {
		return nil, nil, err
	}
	for i, p := range chosen {
		row := t.Where("point", strconv.Itoa(p.Index))
		if row.Len() != 1 || i >= again.Len() {
			diffs = append(diffs, fmt.Sprintf("point %d: missing", p.Index))
			continue
		}
		points = append(points, p.String())
		for j, col := range again.Columns {
			if col == "point" {
				continue
			}
			if have, err := row.Strings(col); err != nil || have[0] != again.Rows[i][j] {
				diffs = append(diffs, fmt.Sprintf("point %d, %s: CSV %v, recomputed %s", p.Index, col, have, again.Rows[i][j]))
			}
		}
		for k, col := range row.Columns { // levels the recomputed points never reached are 0 in the CSV
			if !strings.HasPrefix(col, "q") || row.Rows[0][k] == "0" {
				continue
			}
			if _, err := again.Strings(col); err != nil {
				diffs = append(diffs, fmt.Sprintf("point %d, %s: CSV %s, recomputed: never reached", p.Index, col, row.Rows[0][k]))
			}
		}
	}
	return points, diffs, nil
}
