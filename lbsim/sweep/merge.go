package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
)

// MergeOptions say how to merge a sweep's outputs.
type MergeOptions struct {
	// Summary writes one row per point with the mean and 95% confidence
	// half-width over replications, instead of one row per point and
	// replication.
	Summary bool
	// AllowIncomplete merges the points there are; the missing ones are
	// listed in the provenance.
	AllowIncomplete bool
	// AllowMixed merges points computed by different code versions.
	AllowMixed bool
	// Command is recorded in the provenance (e.g. os.Args).
	Command []string
}

// Merged is a merged sweep: the tidy CSV and its provenance.
type Merged struct {
	CSV        []byte
	Provenance Provenance
}

// Provenance is the JSON sidecar of a merged CSV: where its numbers come
// from and how to make them again.
type Provenance struct {
	Format string `json:"format"`
	// Sweep is the sweep spec; Dir the directory merged.
	Sweep *Spec  `json:"sweep"`
	Dir   string `json:"dir"`
	// Points and Replications of the sweep; Rows and Columns of the CSV.
	Points       int      `json:"points"`
	Replications int      `json:"replications"`
	Summary      bool     `json:"summary"`
	Rows         int      `json:"rows"`
	Columns      []string `json:"columns"`
	// Missing lists the points left out (only with AllowIncomplete).
	Missing []int `json:"missing,omitempty"`
	// Versions are the distinct code versions that computed the points
	// (more than one only with AllowMixed); MergedBy is the merging code.
	Versions []Version `json:"versions"`
	MergedBy Version   `json:"merged_by"`
	// Command is the merge command line; SweepCommands the distinct
	// command lines that computed the points.
	Command       []string   `json:"command,omitempty"`
	SweepCommands [][]string `json:"sweep_commands,omitempty"`
	// Hosts that computed points, with how many each; Shards seen.
	HostCount int            `json:"host_count"`
	Hosts     map[string]int `json:"hosts"`
	Shards    []string       `json:"shards"`
	Timings   Timings        `json:"timings"`
	Created   time.Time      `json:"created"`
}

// Timings are the wall-clock times of a sweep's points.
type Timings struct {
	FirstStart time.Time `json:"first_start"`
	LastFinish time.Time `json:"last_finish"`
	// Span is LastFinish - FirstStart in seconds; PointSeconds the sum of
	// the points' wall times (core-seconds when each point used one core)
	// and MaxPointSeconds the longest point.
	Span            float64 `json:"span_seconds"`
	PointSeconds    float64 `json:"point_seconds"`
	MaxPointSeconds float64 `json:"max_point_seconds"`
}

// ProvenanceFormat marks provenance files.
const ProvenanceFormat = "lbsim-sweep-provenance/v1"

// IncompleteError lists the points without a result.
type IncompleteError struct {
	Dir     string
	Total   int
	Missing []Point
}

func (e *IncompleteError) Error() string {
	parts := make([]string, len(e.Missing))
	for i, pt := range e.Missing {
		parts[i] = pt.String()
	}
	return fmt.Sprintf("incomplete: %d of %d points missing in %s: %s; run the sweep again with --resume to compute "+
		"them, or merge with --allow-incomplete", len(e.Missing), e.Total, e.Dir, strings.Join(parts, "; "))
}

// MixedError says that points were computed by different code.
type MixedError struct {
	Versions map[string][]int // version description -> point indices
}

func (e *MixedError) Error() string {
	var parts []string
	for v, idx := range e.Versions {
		parts = append(parts, fmt.Sprintf("%s: points %s", v, ranges(idx)))
	}
	slices.Sort(parts)
	return fmt.Sprintf("mixed code versions: %s; rerun the points of one version with the other, or merge with --allow-mixed",
		strings.Join(parts, "; "))
}

func (v Version) describe() string {
	s := v.Version
	if v.Revision != "" {
		s += " revision " + v.Revision
		if v.Modified {
			s += " (modified)"
		}
	}
	s += " " + v.Go
	if v.Binary != "" && (v.Revision == "" || v.Modified) {
		s += " binary " + v.Binary[:12]
	}
	return s
}

// ranges writes sorted indices compactly: 0-3, 7, 9-10.
func ranges(idx []int) string {
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", idx[i], idx[j]))
		} else {
			parts = append(parts, strconv.Itoa(idx[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// Merge gathers the point files of a sweep output directory (written by any
// number of shards, on any hosts) into one tidy CSV and its provenance. It
// refuses missing points and mixed code versions unless opt allows them, and
// point files of another sweep always.
func Merge(dir string, opt MergeOptions) (*Merged, error) {
	sw, err := ReadSweepDir(dir)
	if err != nil {
		return nil, err
	}
	points, err := sw.Points()
	if err != nil {
		return nil, fmt.Errorf("%q: %w", filepath.Join(dir, SpecFile), err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, PointsDir, "point-*.json"))
	for _, f := range files {
		var idx int
		if _, err := fmt.Sscanf(filepath.Base(f), "point-%06d.json", &idx); err != nil || idx >= len(points) ||
			PointFile(dir, idx) != f {
			return nil, fmt.Errorf("%s: not a point of this sweep (it has points 0-%d)", f, len(points)-1)
		}
	}

	prov := Provenance{
		Format: ProvenanceFormat, Sweep: sw, Dir: dir, Points: len(points), Replications: sw.Replications,
		Summary: opt.Summary, MergedBy: CurrentVersion(), Command: opt.Command, Hosts: map[string]int{},
		Created: time.Now().UTC().Truncate(time.Second),
	}
	var missing []Point
	recs := make([]*PointRecord, len(points))
	figs := make([]*PointRecord, len(points))
	versions := map[string][]int{}
	for _, pt := range points {
		rec, err := ReadPoint(PointFile(dir, pt.Index))
		if errors.Is(err, os.ErrNotExist) {
			missing = append(missing, pt)
			continue
		}
		if err != nil {
			return nil, err
		}
		if rec.Key != pt.Key || rec.Index != pt.Index || rec.Seed != pt.Seed {
			return nil, fmt.Errorf("%q: holds another scenario or seed than %v", PointFile(dir, pt.Index), pt)
		}
		if rec.Figures == nil {
			return nil, fmt.Errorf("%q: no figures (a point file of an lbsim before models had figures); remove it and run the sweep again with --resume", PointFile(dir, pt.Index))
		}
		// A point whose figures are computed, not sampled (admission without
		// simulation), has no replications of its own; one with a confidence
		// interval must have them all.
		if len(rec.PerReplication) != sw.Replications && !(len(rec.PerReplication) == 0 && !sampled(rec.Figures)) {
			return nil, fmt.Errorf("%q: %d replications, want %d", PointFile(dir, pt.Index), len(rec.PerReplication), sw.Replications)
		}
		recs[pt.Index], figs[pt.Index] = rec, rec
		known := false
		for _, v := range prov.Versions {
			if sameCode(v, rec.Version) {
				known = true
				versions[v.describe()] = append(versions[v.describe()], pt.Index)
			}
		}
		if !known {
			prov.Versions = append(prov.Versions, rec.Version)
			versions[rec.Version.describe()] = append(versions[rec.Version.describe()], pt.Index)
		}
	}
	if len(missing) > 0 {
		if !opt.AllowIncomplete {
			return nil, &IncompleteError{Dir: dir, Total: len(points), Missing: missing}
		}
		for _, pt := range missing {
			prov.Missing = append(prov.Missing, pt.Index)
		}
	}
	if len(prov.Versions) > 1 && !opt.AllowMixed {
		return nil, &MixedError{Versions: versions}
	}
	if len(missing) == len(points) {
		return nil, fmt.Errorf("%q: no finished points", dir)
	}

	shards := map[string]bool{}
	for _, rec := range recs {
		if rec == nil {
			continue
		}
		prov.Hosts[rec.Host]++
		shards[rec.Shard] = true
		if !slices.ContainsFunc(prov.SweepCommands, func(c []string) bool { return slices.Equal(c, rec.Command) }) &&
			rec.Command != nil {
			prov.SweepCommands = append(prov.SweepCommands, rec.Command)
		}
		end := rec.Started.Add(time.Duration(rec.WallSeconds * float64(time.Second)))
		t := &prov.Timings
		if t.FirstStart.IsZero() || rec.Started.Before(t.FirstStart) {
			t.FirstStart = rec.Started
		}
		if end.After(t.LastFinish) {
			t.LastFinish = end
		}
		t.PointSeconds += rec.WallSeconds
		t.MaxPointSeconds = max(t.MaxPointSeconds, rec.WallSeconds)
	}
	prov.Timings.Span = prov.Timings.LastFinish.Sub(prov.Timings.FirstStart).Seconds()
	prov.HostCount = len(prov.Hosts)
	for s := range shards {
		prov.Shards = append(prov.Shards, s)
	}
	slices.Sort(prov.Shards)

	data, cols, rows, err := writeCSV(sw, points, figs, opt.Summary)
	if err != nil {
		return nil, err
	}
	prov.Rows, prov.Columns = rows, cols
	return &Merged{CSV: data, Provenance: prov}, nil
}

// ProvenancePath is the sidecar of a CSV: data/x.csv -> data/x.provenance.json.
func ProvenancePath(csvPath string) string {
	return strings.TrimSuffix(csvPath, filepath.Ext(csvPath)) + ".provenance.json"
}

// Write writes the CSV to path and the provenance next to it
// (ProvenancePath), each atomically.
func (m *Merged) Write(path string) error {
	prov, err := m.ProvenanceJSON()
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(path, m.CSV); err != nil {
		return err
	}
	return WriteFileAtomic(ProvenancePath(path), prov)
}

// ProvenanceJSON is the provenance sidecar as Write writes it.
func (m *Merged) ProvenanceJSON() ([]byte, error) {
	prov, err := json.MarshalIndent(m.Provenance, "", " ")
	if err != nil {
		return nil, err
	}
	return append(prov, '\n'), nil
}

// IsProvenance reports whether the file at path is a provenance sidecar
// (its JSON has the format ProvenanceFormat), so that a merge may replace
// it; a missing file is not one.
func IsProvenance(path string) bool {
	data, err := param.ReadFile(path, param.MaxFileBytes)
	if err != nil {
		return false
	}
	var head struct {
		Format string `json:"format"`
	}
	return json.Unmarshal(data, &head) == nil && head.Format == ProvenanceFormat
}

func fmtParam(v json.RawMessage) string {
	if v == nil || isNull(v) {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// column is one figure's place in the CSV: a scalar (with a _ci95 column
// when some point has a half-width for it) or a vector of width columns.
type column struct {
	name   string
	vector bool
	ci     bool
	width  int
	pad    string
}

// layout returns the figure columns of rows of figures: every figure name
// any row has, in the order the rows give them (a name first seen in a later
// row goes after the name it follows there).
func layout(rows [][]model.Figure) []*column {
	var cols []*column
	index := map[string]int{}
	for _, row := range rows {
		after := -1
		for _, f := range row {
			i, ok := index[f.Name]
			if !ok {
				c := &column{name: f.Name, vector: f.IsVector(), pad: f.Pad}
				i = after + 1
				cols = slices.Insert(cols, i, c)
				for k, c := range cols {
					index[c.name] = k
				}
			}
			c := cols[i]
			c.ci = c.ci || f.CI95 != nil || f.VectorCI95 != nil
			c.width = max(c.width, len(f.Vector), len(f.VectorCI95))
			after = i
		}
	}
	return cols
}

func (c *column) header() []string {
	if !c.vector {
		if c.ci {
			return []string{c.name, c.name + "_ci95"}
		}
		return []string{c.name}
	}
	var h []string
	for i := range c.width {
		h = append(h, fmt.Sprintf("%s%d", c.name, i+1))
	}
	if c.ci {
		for i := range c.width {
			h = append(h, fmt.Sprintf("%s%d_ci95", c.name, i+1))
		}
	}
	return h
}

// cells writes figure f (nil: the point lacks it) in the column's cells.
func (c *column) cells(f *model.Figure) []string {
	if !c.vector {
		v, ci := "NaN", "NaN"
		if f != nil {
			v = f.Value
			if f.CI95 != nil {
				ci = *f.CI95
			}
		}
		if c.ci {
			return []string{v, ci}
		}
		return []string{v}
	}
	var out []string
	at := func(xs []string, i int) string {
		if f != nil && i < len(xs) {
			return xs[i]
		}
		if f != nil && c.pad != "" {
			return c.pad // for the occupancy: no server reached that level
		}
		return "NaN"
	}
	for i := range c.width {
		out = append(out, at(vectorOf(f), i))
	}
	if c.ci {
		for i := range c.width {
			var xs []string
			if f != nil {
				xs = f.VectorCI95
			}
			out = append(out, at(xs, i))
		}
	}
	return out
}

func vectorOf(f *model.Figure) []string {
	if f == nil {
		return nil
	}
	return f.Vector
}

func writeCSV(sw *Spec, points []Point, recs []*PointRecord, summary bool) ([]byte, []string, int, error) {
	var rows [][]model.Figure
	for _, rec := range recs {
		if rec == nil {
			continue
		}
		if summary {
			rows = append(rows, rec.Figures)
		} else {
			rows = append(rows, replicationRows(rec)...)
		}
	}
	figCols := layout(rows)
	cols := []string{"point"}
	if !summary {
		cols = append(cols, "replication")
	}
	cols = append(cols, sw.Keys()...)
	cols = append(cols, "seed")
	for _, c := range figCols {
		cols = append(cols, c.header()...)
	}
	figureRow := func(figs []model.Figure) []string {
		var out []string
		for _, c := range figCols {
			var f *model.Figure
			for k := range figs {
				if figs[k].Name == c.name {
					f = &figs[k]
				}
			}
			out = append(out, c.cells(f)...)
		}
		return out
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(cols); err != nil {
		return nil, nil, 0, err
	}
	n := 0
	for _, pt := range points {
		rec := recs[pt.Index]
		if rec == nil {
			continue
		}
		head := []string{strconv.Itoa(pt.Index)}
		var params []string
		for _, pa := range pt.Params {
			params = append(params, fmtParam(pa.Value))
		}
		seed := strconv.FormatUint(pt.Seed, 10)
		if summary {
			row := append(append(append(head, params...), seed), figureRow(rec.Figures)...)
			if err := w.Write(row); err != nil {
				return nil, nil, 0, err
			}
			n++
			continue
		}
		for r, figs := range replicationRows(rec) {
			rep := strconv.Itoa(r)
			if len(rec.PerReplication) == 0 {
				rep = "" // a computed point: no replication
			}
			row := append(append(append(slices.Clone(head), rep), params...), seed)
			if err := w.Write(append(row, figureRow(figs)...)); err != nil {
				return nil, nil, 0, err
			}
			n++
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, nil, 0, err
	}
	return buf.Bytes(), cols, n, nil
}

// Describe says in a few lines how a dataset was made: the code versions
// that computed it, the sweep and merge commands, and how long it took. Notebooks
// print it next to the figures that use the dataset.
func (p *Provenance) Describe() string {
	var b strings.Builder
	for _, v := range p.Versions {
		rev := v.Revision
		if rev == "" {
			rev = "no VCS stamp"
		}
		fmt.Fprintf(&b, "computed by %s %s (%s), %s %s, executable sha256 %.16s…\n", v.Module, v.Version, rev, v.Go, v.Platform, v.Binary)
	}
	for _, c := range p.SweepCommands {
		fmt.Fprintf(&b, "sweep: %s\n", strings.Join(c, " "))
	}
	fmt.Fprintf(&b, "merge: %s\n", strings.Join(p.Command, " "))
	fmt.Fprintf(&b, "%d points × %d replications, %.0f s of computing on %d host(s) (longest point %.0f s), merged %s",
		p.Points, p.Replications, p.Timings.PointSeconds, p.HostCount, p.Timings.MaxPointSeconds, p.Created.Format("2006-01-02 15:04 MST"))
	return b.String()
}

// replicationRows is the figures of each replication of a point; a point
// computed without replications (no figure sampled) gives one row, its own
// figures.
func replicationRows(rec *PointRecord) [][]model.Figure {
	if len(rec.PerReplication) == 0 && !sampled(rec.Figures) {
		return [][]model.Figure{rec.Figures}
	}
	return rec.PerReplication
}

// sampled reports whether any figure carries a confidence interval, i.e. was
// estimated over replications.
func sampled(figs []model.Figure) bool {
	for _, f := range figs {
		if f.CI95 != nil || f.VectorCI95 != nil {
			return true
		}
	}
	return false
}
