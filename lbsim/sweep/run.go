package sweep

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lbsim/notebooks/lbsim/internal/atomicfile"
	"github.com/lbsim/notebooks/lbsim/model"
	"github.com/lbsim/notebooks/lbsim/param"
)

// File names inside a sweep's output directory.
const (
	// SpecFile is the sweep spec the directory belongs to.
	SpecFile = "sweep.json"
	// PointsDir holds one file per finished point.
	PointsDir = "points"
	// PointFormat marks point files.
	PointFormat = "lbsim-sweep-point/v1"
)

// ErrConflict marks errors about an output directory that holds another
// sweep, another scenario, or finished points without Options.Resume.
var ErrConflict = errors.New("output directory conflict")

// PointFile is the path of point index's file under dir.
func PointFile(dir string, index int) string {
	return filepath.Join(dir, PointsDir, fmt.Sprintf("point-%06d.json", index))
}

// PointRecord is the file written for each finished point.
type PointRecord struct {
	Format string `json:"format"`
	PointData

	Version     Version   `json:"version"`
	Host        string    `json:"host"`
	Shard       string    `json:"shard"`
	Command     []string  `json:"command,omitempty"`
	Started     time.Time `json:"started"`
	WallSeconds float64   `json:"wall_seconds"`
	// Checksum is the SHA-256 of the point's data (Sum); ReadPoint refuses
	// a point file whose content no longer matches it.
	Checksum string `json:"checksum"`
}

// PointData is what a point file says about the point itself: its identity
// and what it computed, which a merge reads.
type PointData struct {
	Index int    `json:"index"`
	Key   string `json:"key"`
	Seed  uint64 `json:"seed"`
	// Params are the axis values of the point (null: the key's default).
	Params map[string]json.RawMessage `json:"params"`
	// Result is the model's result of the point (for dispatch, what `lbsim
	// run` prints); Figures and PerReplication are the figures a merge
	// writes (see package model).
	Result         json.RawMessage  `json:"result"`
	Figures        []model.Figure   `json:"figures"`
	PerReplication [][]model.Figure `json:"per_replication"`
}

// Sum is the hex SHA-256 of the point's data in compact JSON, so that an
// edit of any of it is detected.
func (d *PointData) Sum() string {
	data, err := json.Marshal(d)
	if err != nil {
		return "" // malformed raw JSON: never matches
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ErrCorruptPoint is wrapped by the error of ReadPoint for a point file that
// is truncated, not a point file, or edited (its checksum does not match).
var ErrCorruptPoint = errors.New("corrupt point file")

// Options say how to run a sweep.
type Options struct {
	// Out is the output directory (created if needed).
	Out string
	// Shard and Shards select the points with Index % Shards == Shard
	// (Shards 0 means 1: every point).
	Shard, Shards int
	// Resume skips the points already finished in Out. Without it, a point
	// of this shard already in Out is an error.
	Resume bool
	// Workers is the number of cores to use (0: GOMAXPROCS). Points run in
	// parallel, the costliest first (Model.Cost), and the replications of a
	// point too when there are fewer points left than workers; results do
	// not depend on it.
	Workers int
	// Progress, if not nil, is called as points make progress.
	Progress func(Progress)
	// Command is recorded in each point file (e.g. os.Args).
	Command []string
	// Log, if not nil, is told what Run does beyond running points, such
	// as recomputing a corrupt point.
	Log func(msg string)
}

// Progress reports a running sweep.
type Progress struct {
	// Done points out of Total to run in this shard; Skipped were already
	// finished (Resume) and are not in Total.
	Done, Total, Skipped int
	// Fraction of the shard's work done, weighting each point by its
	// expected number of events (lambda * servers * horizon * replications).
	Fraction float64
	Elapsed  time.Duration
}

// Summary is what Run did.
type Summary struct {
	Points  int    `json:"points"`
	Shard   string `json:"shard"`
	InShard int    `json:"in_shard"`
	Ran     int    `json:"ran"`
	Skipped int    `json:"skipped"`
	// Recomputed counts the points whose files were corrupt (truncated or
	// edited) and that were run again (Resume).
	Recomputed int `json:"recomputed"`
	// Elsewhere counts the points of this shard that another process (a
	// second sweep into the same directory) was running or had finished
	// when this one reached them: not run here (see LocksDir).
	Elsewhere int     `json:"elsewhere"`
	Out       string  `json:"out"`
	Seconds   float64 `json:"wall_seconds"`
}

// ParseShard parses "i/n" (0 <= i < n).
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		_, err1 := fmt.Sscanf(a, "%d", &i)
		_, err2 := fmt.Sscanf(b, "%d", &n)
		if err1 == nil && err2 == nil && fmt.Sprintf("%d/%d", i, n) == s && n >= 1 && i >= 0 && i < n {
			return i, n, nil
		}
	}
	return 0, 0, fmt.Errorf("shard = %q: must be i/n with integers 0 <= i < n", s)
}

// ShardFromEnv returns the shard given by the environment of a Slurm job
// array task (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of
// SLURM_ARRAY_TASK_COUNT) or of a Kubernetes indexed Job
// (JOB_COMPLETION_INDEX, of shards, which the Job must pass: k8sShards).
// ok is false when neither is set.
func ShardFromEnv(getenv func(string) string, k8sShards int) (i, n int, source string, ok bool, err error) {
	atoi := func(name string) (int, error) {
		var v int
		s := getenv(name)
		if _, err := fmt.Sscanf(s, "%d", &v); err != nil || fmt.Sprint(v) != s {
			return 0, fmt.Errorf("%s = %q: not an integer", name, s)
		}
		return v, nil
	}
	if getenv("SLURM_ARRAY_TASK_ID") != "" {
		id, err := atoi("SLURM_ARRAY_TASK_ID")
		if err != nil {
			return 0, 0, "", false, err
		}
		if getenv("SLURM_ARRAY_TASK_COUNT") == "" {
			return 0, 0, "", false, errors.New("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")
		}
		count, err := atoi("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return 0, 0, "", false, err
		}
		lo := 0
		if getenv("SLURM_ARRAY_TASK_MIN") != "" {
			if lo, err = atoi("SLURM_ARRAY_TASK_MIN"); err != nil {
				return 0, 0, "", false, err
			}
		}
		i, n = id-lo, count
		if n < 1 || i < 0 || i >= n {
			return 0, 0, "", false, fmt.Errorf("SLURM_ARRAY_TASK_ID = %d, SLURM_ARRAY_TASK_MIN = %d, SLURM_ARRAY_TASK_COUNT = %d: "+
				"the array must be a contiguous range such as --array=0-%d", id, lo, count, count-1)
		}
		return i, n, "slurm", true, nil
	}
	if getenv("JOB_COMPLETION_INDEX") != "" {
		id, err := atoi("JOB_COMPLETION_INDEX")
		if err != nil {
			return 0, 0, "", false, err
		}
		if k8sShards < 1 {
			return 0, 0, "", false, errors.New("JOB_COMPLETION_INDEX is set: give the number of shards (--shards, the Job's completions)")
		}
		if id < 0 || id >= k8sShards {
			return 0, 0, "", false, fmt.Errorf("JOB_COMPLETION_INDEX = %d: must be below shards = %d", id, k8sShards)
		}
		return id, k8sShards, "kubernetes", true, nil
	}
	return 0, 0, "", false, nil
}

// Run runs the points of shard opt.Shard of opt.Shards, writing each finished
// point atomically (a temporary file renamed into place) to
// Out/points/point-NNNNNN.json. Every point of the sweep is expanded and
// validated first, so an invalid spec fails before anything runs.
func Run(ctx context.Context, sw *Spec, opt Options) (*Summary, error) {
	points, err := sw.Points()
	if err != nil {
		return nil, err
	}
	if opt.Shards == 0 {
		opt.Shards = 1
	}
	if opt.Shards < 1 || opt.Shard < 0 || opt.Shard >= opt.Shards {
		return nil, fmt.Errorf("shard = %d/%d: must be i/n with 0 <= i < n", opt.Shard, opt.Shards)
	}
	if opt.Workers < 0 {
		return nil, fmt.Errorf("workers = %d: must be >= 0 (0: one per core)", opt.Workers)
	}
	if opt.Out == "" {
		return nil, errors.New("out: missing; give the output directory")
	}
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := prepareDir(opt.Out, sw); err != nil {
		return nil, err
	}
	start := time.Now()
	sum := &Summary{Points: len(points), Shard: fmt.Sprintf("%d/%d", opt.Shard, opt.Shards), Out: opt.Out}
	var todo []Point
	for _, pt := range points {
		if pt.Index%opt.Shards != opt.Shard {
			continue
		}
		sum.InShard++
		rec, err := ReadPoint(PointFile(opt.Out, pt.Index))
		switch {
		case errors.Is(err, os.ErrNotExist):
			todo = append(todo, pt)
		case errors.Is(err, ErrCorruptPoint) && opt.Resume:
			// A point file is renamed into place whole, so this one was cut or
			// edited afterwards: run the point again.
			if opt.Log != nil {
				opt.Log(fmt.Sprintf("%v: %v; running it again", pt, err))
			}
			sum.Recomputed++
			todo = append(todo, pt)
		case errors.Is(err, ErrCorruptPoint):
			return nil, fmt.Errorf("%w: %v; pass --resume to run the point again", ErrConflict, err)
		case err != nil:
			return nil, err
		case rec.Key != pt.Key || rec.Seed != pt.Seed || rec.Index != pt.Index:
			return nil, fmt.Errorf("%w: %s holds another scenario or seed than %v (key %.12s, seed %d; want %.12s, %d); "+
				"use another output directory", ErrConflict, PointFile(opt.Out, pt.Index), pt, rec.Key, rec.Seed, pt.Key, pt.Seed)
		case !opt.Resume:
			return nil, fmt.Errorf("%w: %v is already finished in %s; pass --resume to skip finished points, or use another output directory",
				ErrConflict, pt, opt.Out)
		default:
			sum.Skipped++
		}
	}

	// Longest first (by the model's cost estimate, ties in point order): the
	// heaviest points start at once and the light ones fill the cores around
	// them, instead of a heavy point found last running alone on one core.
	// Which core runs a point does not change its result.
	slices.SortStableFunc(todo, func(a, b Point) int { return cmp.Compare(weight(b), weight(a)) })
	host, _ := os.Hostname()
	r := &runner{opt: opt, host: host, start: start, total: len(todo), skipped: sum.Skipped}
	for _, pt := range todo {
		r.weightTotal += weight(pt)
	}
	err = r.run(ctx, todo, workers)
	sum.Ran, sum.Elsewhere = r.done-r.elsewhere, r.elsewhere
	sum.Seconds = time.Since(start).Seconds()
	return sum, err
}

// weight estimates the work of a point, for progress (Model.Cost).
func weight(pt Point) float64 {
	if pt.Model.Cost == nil {
		return 1
	}
	return pt.Model.Cost(pt.Values)
}

type runner struct {
	opt     Options
	host    string
	start   time.Time
	total   int
	skipped int

	mu          sync.Mutex
	done        int
	elsewhere   int // of done: run by another process (its lock held, or its file written meanwhile)
	weightTotal float64
	weightDone  float64
	inflight    map[int]float64 // point index -> weighted progress
}

func (r *runner) report() {
	if r.opt.Progress == nil {
		return
	}
	w := r.weightDone
	for _, x := range r.inflight {
		w += x
	}
	f := 1.0
	if r.weightTotal > 0 {
		f = min(1, w/r.weightTotal)
	}
	r.opt.Progress(Progress{Done: r.done, Total: r.total, Skipped: r.skipped, Fraction: f, Elapsed: time.Since(r.start)})
}

func (r *runner) run(ctx context.Context, todo []Point, workers int) error {
	r.inflight = map[int]float64{}
	r.mu.Lock()
	r.report()
	r.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan Point)
	var wg sync.WaitGroup
	slots := min(workers, len(todo))
	for range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pt := range jobs {
				// Replications of a point use the cores left idle when fewer
				// points than workers remain.
				r.mu.Lock()
				left := r.total - r.done - len(r.inflight)
				r.mu.Unlock()
				inner := max(1, workers/max(1, min(slots, left+1)))
				if err := r.point(ctx, pt, inner); err != nil {
					cancel(err)
				}
			}
		}()
	}
	for _, pt := range todo {
		select {
		case jobs <- pt:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

func (r *runner) point(ctx context.Context, pt Point, workers int) error {
	w := weight(pt)
	unlock, err := lockPoint(r.opt.Out, pt.Index)
	if errors.Is(err, errBusy) {
		r.finished(pt.Index, w, true)
		return nil
	}
	if err != nil {
		return err
	}
	defer unlock()
	if rec, err := ReadPoint(PointFile(r.opt.Out, pt.Index)); err == nil && rec.Key == pt.Key && rec.Seed == pt.Seed {
		// Written by another process since Run looked (it held the lock); a
		// corrupt file, which Run found, is run again.
		r.finished(pt.Index, w, true)
		return nil
	}
	removeTemps(r.opt.Out, pt.Index) // left by a killed writer: the lock is free
	r.mu.Lock()
	r.inflight[pt.Index] = 0
	r.mu.Unlock()
	progress := func(fraction float64) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if _, ok := r.inflight[pt.Index]; ok {
			r.inflight[pt.Index] = fraction * w
			r.report()
		}
	}
	started := time.Now()
	out, err := pt.Model.Run(ctx, pt.Values, workers, progress)
	if err != nil {
		r.mu.Lock()
		delete(r.inflight, pt.Index)
		r.mu.Unlock()
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%v: %w", pt, err)
	}
	result, err := json.Marshal(out.Result)
	if err != nil {
		return fmt.Errorf("%v: encoding the result: %w", pt, err)
	}
	for _, f := range out.Files { // before the point file: a point without its files is not finished
		if err := atomicfile.Write(f.Path, false, f.Write); err != nil {
			return fmt.Errorf("%v: %s = %q: %w", pt, f.Key, f.Path, err)
		}
	}
	params := map[string]json.RawMessage{}
	for _, pa := range pt.Params {
		params[pa.Key] = pa.Value
		if pa.Value == nil {
			params[pa.Key] = json.RawMessage("null")
		}
	}
	rec := PointRecord{
		Format: PointFormat, PointData: PointData{Index: pt.Index, Key: pt.Key, Seed: pt.Seed, Params: params,
			Result: result, Figures: out.Figures, PerReplication: out.PerReplication},
		Version: CurrentVersion(), Host: r.host, Shard: fmt.Sprintf("%d/%d", r.opt.Shard, r.opt.Shards),
		Command: r.opt.Command, Started: started.UTC(), WallSeconds: time.Since(started).Seconds(),
	}
	rec.Checksum = rec.Sum()
	data, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		return fmt.Errorf("%v: %w", pt, err)
	}
	if err := WriteFileAtomic(PointFile(r.opt.Out, pt.Index), append(data, '\n')); err != nil {
		return err
	}
	r.finished(pt.Index, w, false)
	return nil
}

// finished counts point index, of weight w, as done, here or (elsewhere) by
// another process.
func (r *runner) finished(index int, w float64, elsewhere bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.inflight, index)
	r.done++
	if elsewhere {
		r.elsewhere++
	}
	r.weightDone += w
	r.report()
}

// prepareDir creates dir and dir/points and records the sweep in
// dir/sweep.json, or checks that the one there is the same sweep.
func prepareDir(dir string, sw *Spec) error {
	if err := os.MkdirAll(filepath.Join(dir, PointsDir), 0o755); err != nil {
		return fmt.Errorf("out: %w", err)
	}
	want, err := json.MarshalIndent(sw, "", " ")
	if err != nil {
		return err
	}
	want = append(want, '\n')
	path := filepath.Join(dir, SpecFile)
	have, err := param.ReadFile(path, param.MaxFileBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return WriteFileAtomic(path, want)
	case err != nil:
		return fmt.Errorf("out: %w", err)
	case !bytes.Equal(have, want):
		return fmt.Errorf("%w: out = %q holds another sweep (%s differs); use another output directory", ErrConflict, dir, path)
	}
	return nil
}

// ReadSweepDir reads the sweep recorded in a sweep output directory.
func ReadSweepDir(dir string) (*Spec, error) {
	data, err := param.ReadFile(filepath.Join(dir, SpecFile), param.MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("%q: not a sweep output directory (%w)", dir, err)
	}
	sw, err := ParseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", filepath.Join(dir, SpecFile), err)
	}
	return sw, nil
}

// ReadPoint reads a point file; the error wraps os.ErrNotExist when there is
// none.
func ReadPoint(path string) (*PointRecord, error) {
	data, err := param.ReadFile(path, param.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	var rec PointRecord
	if err := json.Unmarshal(data, &rec); err != nil || rec.Format != PointFormat {
		if err == nil {
			err = fmt.Errorf("format %q", rec.Format)
		}
		return nil, fmt.Errorf("%w: %q is truncated or not a point file of %s (%v)", ErrCorruptPoint, path, PointFormat, err)
	}
	if rec.Checksum == "" {
		return nil, fmt.Errorf("%w: %q has no checksum (written by an lbsim before point checksums, or edited)", ErrCorruptPoint, path)
	}
	if sum := rec.Sum(); rec.Checksum != sum {
		return nil, fmt.Errorf("%w: %q was edited after it was written (checksum %.12s, content %.12s)",
			ErrCorruptPoint, path, rec.Checksum, sum)
	}
	return &rec, nil
}

// WriteFileAtomic writes data to a temporary file in path's directory,
// syncs it and renames it to path, so that path either does not exist or
// holds all of data, even if the process is killed.
func WriteFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// removeTemps removes the temporary files left by a killed writer of point
// index.
func removeTemps(dir string, index int) {
	base := filepath.Base(PointFile(dir, index))
	matches, _ := filepath.Glob(filepath.Join(dir, PointsDir, "."+base+".tmp-*"))
	for _, m := range matches {
		os.Remove(m)
	}
}
