package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lbsim/notebooks/lbsim/sweep"
)

type mergeConfig struct {
	out             string
	summary         bool
	allowIncomplete bool
	allowMixed      bool
}

func mergeFlags(c *mergeConfig) *flags {
	f := newFlags("merge")
	f.add("out", "FILE.csv", "the merged CSV; its provenance goes to FILE.provenance.json (required)",
		stringValue(&c.out))
	f.add("summary", "", "one row per point with the mean and 95% confidence half-width over replications "+
		"(default: one row per point and replication)", boolValue(&c.summary))
	f.add("allow-incomplete", "", "merge although points are missing (they are listed in the provenance)",
		boolValue(&c.allowIncomplete))
	f.add("allow-mixed", "", "merge points computed by different code versions", boolValue(&c.allowMixed))
	return f
}

func mergeHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: lbsim merge DIR --out FILE.csv [flags]

Gathers the point files that lbsim sweep (any number of shards, on any hosts)
wrote to DIR into one tidy CSV: one row per point and replication with the
columns point, replication, the sweep's axis parameters, seed, engine_used,
events, mean_tasks_per_server, mean_sojourn, wait_probability,
max_queue_length, q1..qK (or, with --summary, one row per point with the
means, their 95% confidence half-widths *_ci95 and the sojourn quantiles
sojourn_p50...). Numbers are written exactly (shortest round-trip form), so
the same sweep gives the same bytes wherever it ran. Next to the CSV goes
FILE.provenance.json: the sweep spec, the code versions, the command lines,
hosts, shards and timings.

It refuses, naming them, missing points and points computed by different
code versions (unless --allow-incomplete / --allow-mixed), and always points
of another sweep.

Flags:
`)
	mergeFlags(&mergeConfig{}).printFlags(w)
	fmt.Fprint(w, `
Output: one JSON object on stdout: csv, provenance, points, rows, missing.

Example:
  lbsim merge runs/jsqd --out data/01-jsqd-finite-n.csv --summary

Exit status: 0 success, 1 runtime failure, 2 invalid input or incomplete or
mixed inputs (nothing is written).
`)
}

func mergeCommand(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	var c mergeConfig
	pos, err := mergeFlags(&c).parse(args)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 0:
		return usageErr("missing the sweep output directory; usage: lbsim merge DIR --out FILE.csv")
	case 1:
	default:
		return usageErr("unexpected argument %q: give one directory", pos[1])
	}
	if c.out == "" {
		return usageErr("out: missing; give --out FILE.csv")
	}
	for _, path := range []string{c.out, sweep.ProvenancePath(c.out)} {
		if err := checkOutputPath("out", path); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(pos[0], sweep.SpecFile)); err == nil && within(pos[0], path) {
			return usageErr("out = %q: %q is inside the sweep directory %q, whose files merge must not replace; "+
				"write the CSV elsewhere", c.out, path, pos[0])
		}
	}
	if prov := sweep.ProvenancePath(c.out); exists(prov) && !sweep.IsProvenance(prov) {
		return usageErr("out = %q: %q exists and is not a provenance file of lbsim merge; merge writes the CSV's "+
			"provenance there and does not replace another file (remove it or choose another --out)", c.out, prov)
	}
	m, err := sweep.Merge(pos[0], sweep.MergeOptions{
		Summary: c.summary, AllowIncomplete: c.allowIncomplete, AllowMixed: c.allowMixed, Command: os.Args,
	})
	if err != nil {
		// Missing points, mixed versions, a directory that is not a sweep's.
		return usageErr("%v", err)
	}
	if err := ctx.Err(); err != nil { // a signal while reading the points: write nothing
		return err
	}
	prov, err := m.ProvenanceJSON()
	if err != nil {
		return failure(err)
	}
	out, err := json.Marshal(map[string]any{
		"csv": c.out, "provenance": sweep.ProvenancePath(c.out), "points": m.Provenance.Points,
		"rows": m.Provenance.Rows, "missing": len(m.Provenance.Missing),
	})
	if err != nil {
		return failure(err)
	}
	// Both files staged, then renamed into place together: a failure leaves
	// neither the CSV nor its provenance behind.
	var o outputs
	defer o.discard()
	for _, f := range []struct {
		path string
		data []byte
	}{{c.out, m.CSV}, {sweep.ProvenancePath(c.out), prov}} {
		if err := o.stage("out", f.path, func(w io.Writer) error { _, err := w.Write(f.data); return err }); err != nil {
			return err
		}
	}
	return o.commit(ctx, stdout, append(out, '\n'))
}

// exists reports whether something is at path (a link is not followed).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// within reports whether path is dir or inside it, after resolving symbolic
// links of both (path need not exist; its directory must).
func within(dir, path string) bool {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false // merge reports the missing directory
	}
	pd, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return false
	}
	d, _ = filepath.Abs(d)
	p, _ := filepath.Abs(filepath.Join(pd, filepath.Base(path)))
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
