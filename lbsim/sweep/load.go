package sweep

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/lbsim/notebooks/lbsim/param"
)

// Table is a CSV file in memory: a header and rows of strings, with typed
// accessors. It is what notebooks load from data/:
//
//	t, err := sweep.LoadCSV("../data/01-jsqd-finite-n.csv")
//	soj, err := t.Where("servers", "100").Floats("mean_sojourn")
type Table struct {
	Columns []string
	Rows    [][]string
}

// MaxCSVBytes bounds the CSV files LoadCSV reads (a merged sweep of a
// million points is far below it).
const MaxCSVBytes = param.MaxDataFileBytes

// LoadCSV reads a CSV file with a header row, of at most MaxCSVBytes.
func LoadCSV(path string) (*Table, error) {
	f, err := param.Open(path, MaxCSVBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%q: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%q: empty file, no header", path)
	}
	return &Table{Columns: recs[0], Rows: recs[1:]}, nil
}

// LoadProvenance reads the provenance sidecar of a merged CSV.
func LoadProvenance(csvPath string) (*Provenance, error) {
	data, err := param.ReadFile(ProvenancePath(csvPath), param.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	var p Provenance
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%q: %w", ProvenancePath(csvPath), err)
	}
	return &p, nil
}

// Len is the number of rows.
func (t *Table) Len() int { return len(t.Rows) }

func (t *Table) col(name string) (int, error) {
	i := slices.Index(t.Columns, name)
	if i < 0 {
		return 0, fmt.Errorf("column %q: not in the table; its columns are %v", name, t.Columns)
	}
	return i, nil
}

// Strings returns a column.
func (t *Table) Strings(name string) ([]string, error) {
	i, err := t.col(name)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(t.Rows))
	for r, row := range t.Rows {
		out[r] = row[i]
	}
	return out, nil
}

// Floats returns a numeric column ("NaN" and empty cells are NaN).
func (t *Table) Floats(name string) ([]float64, error) {
	s, err := t.Strings(name)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(s))
	for r, v := range s {
		if v == "" {
			out[r] = math.NaN()
			continue
		}
		if out[r], err = strconv.ParseFloat(v, 64); err != nil {
			return nil, fmt.Errorf("column %q, row %d: %q is not a number", name, r+1, v)
		}
	}
	return out, nil
}

// Where returns the rows whose column name equals value: the same string,
// or the same number when both parse as numbers (so "0.50" matches 0.5). An
// unknown column gives an empty table with the same columns.
func (t *Table) Where(name, value string) *Table {
	out := &Table{Columns: t.Columns}
	i, err := t.col(name)
	if err != nil {
		return out
	}
	want, werr := strconv.ParseFloat(value, 64)
	for _, row := range t.Rows {
		if row[i] == value {
			out.Rows = append(out.Rows, row)
		} else if x, err := strconv.ParseFloat(row[i], 64); err == nil && werr == nil && x == want {
			out.Rows = append(out.Rows, row)
		}
	}
	return out
}

// Distinct returns the distinct values of a column in order of appearance.
func (t *Table) Distinct(name string) ([]string, error) {
	s, err := t.Strings(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}
