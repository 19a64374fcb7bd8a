package kernelhelpers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lbsim/notebooks/lbsim/sweep"
)

// Points of a committed sweep (data/*.csv, loaded by sweep.LoadCSV) as the
// notebooks read them: the sizes it covers, the one row with given keys, and
// that row's numbers, as plain values or as estimates with their standard
// errors (the 95% half-width columns over the row's replications).

// SweepSizes returns the distinct values of column "servers", in the order
// they first occur.
func SweepSizes(t *sweep.Table) ([]int, error) {
	vs, err := t.Distinct("servers")
	if err != nil {
		return nil, err
	}
	ns := make([]int, len(vs))
	for i, v := range vs {
		if ns[i], err = strconv.Atoi(v); err != nil {
			return nil, fmt.Errorf("kernelhelpers.SweepSizes: servers %q: %w", v, err)
		}
	}
	return ns, nil
}

// SweepPoint returns the one row of t whose columns have the given values,
// given as pairs of column name and value, as the CSV writes them ("servers",
// "1000", "topology", "er"). A key that t has no column for is not filtered
// on: a sweep keeps a key with the same value for every point in its base,
// not in a column. It is an error unless exactly one row matches.
func SweepPoint(t *sweep.Table, keyValues ...string) (*sweep.Table, error) {
	if len(keyValues)%2 != 0 {
		return nil, fmt.Errorf("kernelhelpers.SweepPoint: %d arguments; want pairs of column and value", len(keyValues))
	}
	r := t
	var what []string
	for i := 0; i < len(keyValues); i += 2 {
		col, v := keyValues[i], keyValues[i+1]
		what = append(what, col+"="+v)
		if _, err := t.Strings(col); err != nil {
			continue
		}
		r = r.Where(col, v)
	}
	if r.Len() != 1 {
		return nil, fmt.Errorf("kernelhelpers.SweepPoint: %d rows with %s; want 1", r.Len(), strings.Join(what, ", "))
	}
	return r, nil
}

// RowFloat returns column name of a one-row table.
func RowFloat(row *sweep.Table, name string) (float64, error) {
	xs, err := row.Floats(name)
	if err != nil {
		return 0, err
	}
	if len(xs) != 1 {
		return 0, fmt.Errorf("kernelhelpers.RowFloat: %d rows; want 1", len(xs))
	}
	return xs[0], nil
}

// RowOccupancy returns q_1, q_2, ... of a one-row table (columns q1, q2,
// ...), up to the last level with a positive value (at least q_1).
func RowOccupancy(row *sweep.Table) ([]float64, error) {
	var q []float64
	for i := 1; ; i++ {
		name := "q" + strconv.Itoa(i)
		if _, err := row.Strings(name); err != nil {
			break
		}
		v, err := RowFloat(row, name)
		if err != nil {
			return nil, err
		}
		q = append(q, v)
	}
	if len(q) == 0 {
		return nil, fmt.Errorf("kernelhelpers.RowOccupancy: no column q1")
	}
	for len(q) > 1 && q[len(q)-1] == 0 {
		q = q[:len(q)-1]
	}
	return q, nil
}

// RowEstimate returns column name of a one-row table as an estimate: its
// value, with the standard error behind the 95% half-width in column
// name_ci95 over the row's replications (column replications), as FromCI95.
func RowEstimate(row *sweep.Table, name string) (Estimate, error) {
	v, err := RowFloat(row, name)
	if err != nil {
		return Estimate{}, err
	}
	half, err := RowFloat(row, name+"_ci95")
	if err != nil {
		return Estimate{}, err
	}
	reps, err := RowFloat(row, "replications")
	if err != nil {
		return Estimate{}, err
	}
	return FromCI95(v, half, int(reps)), nil
}
