package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lbsim/notebooks/lbsim/sweep"
)

type sweepConfig struct {
	out     string
	shard   string
	shards  int
	resume  bool
	workers int
	quiet   bool
	list    bool
}

func sweepFlags(c *sweepConfig) *flags {
	f := newFlags("sweep")
	f.add("out", "DIR", "output directory: DIR/sweep.json and one file per finished point in DIR/points "+
		"(required unless --list)", stringValue(&c.out))
	f.add("shard", "i/n", "run only the points with index % n == i (0 <= i < n); default: from "+
		"SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX with --shards, else all points",
		stringValue(&c.shard))
	f.add("shards", "N", "number of shards of a Kubernetes indexed Job (its completions); the shard is "+
		"JOB_COMPLETION_INDEX", intValue(&c.shards))
	f.add("resume", "", "skip the points already finished in --out (without it, finding one is an error)",
		boolValue(&c.resume))
	f.add("workers", "W", "cores to use (>= 0; default 0: one per core); points run in parallel, costliest first; results "+
		"do not depend on it", intValue(&c.workers))
	f.add("quiet", "", "no progress on stderr", boolValue(&c.quiet))
	f.add("list", "", "only validate the sweep and print its points (index, parameters, seed), one JSON "+
		"object per line", boolValue(&c.list))
	return f
}

func sweepHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: lbsim sweep SPEC.json|SPEC.yaml --out DIR [flags]

Runs a parameter sweep: the points of SPEC (a base scenario varied along axes,
each point with the sweep's replications and a seed derived from the root
seed and the point's scenario), in parallel on this machine's cores, writing
each finished point atomically to DIR/points/point-NNNNNN.json. Every point is
validated before anything runs. A killed run loses at most the points in
flight; rerun with --resume to finish. Shards (--shard i/n, or a Slurm job
array, or a Kubernetes indexed Job) write to the same DIR; lbsim merge DIR
then gathers them into one CSV.

Spec format (JSON; YAML when the name ends in .yaml or .yml):
  {"name": "jsqd-n", "seed": 1, "replications": 10,
   "base": {"policy": "jsqd", "d": 2, "horizon": 2000},
   "axes": [{"servers": [10, 100, 1000]},
            {"lambda": {"from": 0.5, "to": 0.9, "step": 0.2}},
            {"policy": ["jsq", "jsqd"], "d": [null, 2]}]}
Axes combine by Cartesian product (the last varies fastest); the keys of one
axis are zipped. Values are lists or ranges {"from","to","step"} or
{"from","to","count"[,"scale":"log"]}; null leaves the key at its default.
The keys are those of lbsim run scenario files (lbsim help run).

Flags:
`)
	sweepFlags(&sweepConfig{}).printFlags(w)
	fmt.Fprint(w, `
Output: one JSON object on stdout: points, shard, in_shard, ran, skipped,
out, wall_seconds. Progress (a bar with the ETA on a terminal, a line per
finished point otherwise) goes to stderr.

Examples:
  lbsim sweep data/specs/01-jsqd-finite-n.json --out runs/jsqd
  lbsim sweep spec.json --out runs/x --shard 3/8 --resume
  lbsim sweep spec.json --list

Exit status: 0 success, 1 runtime failure, 2 invalid input (nothing is run),
130 interrupted (finished points are kept).
`)
}

func sweepCommand(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var c sweepConfig
	pos, err := sweepFlags(&c).parse(args)
	if err != nil {
		return err
	}
	sw, err := readSweepArg(pos)
	if err != nil {
		return err
	}
	points, err := sw.Points()
	if err != nil {
		return usageErr("%v", err)
	}
	if c.list {
		enc := json.NewEncoder(stdout)
		for _, pt := range points {
			params := map[string]json.RawMessage{}
			for _, pa := range pt.Params {
				params[pa.Key] = pa.Value
				if pa.Value == nil {
					params[pa.Key] = json.RawMessage("null")
				}
			}
			if err := enc.Encode(map[string]any{"point": pt.Index, "params": params, "seed": pt.Seed, "key": pt.Key}); err != nil {
				return failure(err)
			}
		}
		return nil
	}
	if c.out == "" {
		return usageErr("out: missing; give --out DIR")
	}
	if c.workers < 0 {
		return usageErr("workers = %d: must be >= 0 (0: one per core)", c.workers)
	}
	if c.shards < 0 {
		return usageErr("shards = %d: must be >= 1", c.shards)
	}
	opt := sweep.Options{Out: c.out, Resume: c.resume, Workers: c.workers, Command: os.Args,
		Log: func(msg string) { fmt.Fprintf(stderr, "lbsim sweep: %s\n", msg) }}
	source := "--shard"
	switch {
	case c.shard != "":
		if c.shards != 0 {
			return usageErr("shards = %d: give --shard i/n or --shards N (with JOB_COMPLETION_INDEX), not both", c.shards)
		}
		if opt.Shard, opt.Shards, err = sweep.ParseShard(c.shard); err != nil {
			return usageErr("%v", err)
		}
	default:
		i, n, src, ok, err := sweep.ShardFromEnv(os.Getenv, c.shards)
		if err != nil {
			return usageErr("%v", err)
		}
		if ok {
			opt.Shard, opt.Shards, source = i, n, src
		} else if c.shards != 0 {
			return usageErr("shards = %d: only with JOB_COMPLETION_INDEX set (a Kubernetes indexed Job); else give --shard i/n", c.shards)
		} else {
			opt.Shards, source = 1, "all points"
		}
	}
	var prog *sweepProgress
	if !c.quiet {
		prog = newSweepProgress(stderr, fmt.Sprintf("lbsim sweep %d/%d (%s)", opt.Shard, opt.Shards, source))
		opt.Progress = prog.update
	}
	sum, err := sweep.Run(ctx, sw, opt)
	if prog != nil {
		prog.end()
	}
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		if errors.Is(err, sweep.ErrConflict) {
			return usageErr("%v", err)
		}
		return failure(err)
	}
	out, err := json.Marshal(sum)
	if err != nil {
		return failure(err)
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil {
		return failure(err)
	}
	return nil
}

// readSweepArg reads the one sweep file named by the positional arguments.
func readSweepArg(pos []string) (*sweep.Spec, error) {
	switch len(pos) {
	case 0:
		return nil, usageErr("missing the sweep file; usage: lbsim sweep SPEC.json --out DIR (see lbsim help sweep)")
	case 1:
	default:
		return nil, usageErr("unexpected argument %q: give one sweep file", pos[1])
	}
	sw, err := sweep.ReadSpec(pos[0])
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return sw, nil
}

// sweepProgress shows a sweep's progress with progressPrinter's output
// (tty detection, line rewriting): on a terminal a bar rewritten in place at
// most 10 times a second, elsewhere (a Slurm log) a line per finished point.
type sweepProgress struct {
	*progressPrinter
	done int
}

func newSweepProgress(w io.Writer, prefix string) *sweepProgress {
	return &sweepProgress{progressPrinter: newProgressPrinter(w, prefix), done: -1}
}

func (p *sweepProgress) update(pr sweep.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	newPoint := pr.Done != p.done
	if !newPoint && (!p.tty || now.Sub(p.last) < p.every) {
		return
	}
	p.last, p.done = now, pr.Done
	eta := "?"
	if pr.Fraction > 0 {
		eta = round(time.Duration(float64(pr.Elapsed) * (1 - pr.Fraction) / pr.Fraction)).String()
	}
	const width = 30
	full := int(pr.Fraction * width)
	skipped := ""
	if pr.Skipped > 0 {
		skipped = fmt.Sprintf(" (%d already done)", pr.Skipped)
	}
	line := fmt.Sprintf("%s [%s%s] %5.1f%% %d/%d points%s, elapsed %s, ETA %s", p.prefix, strings.Repeat("#", full),
		strings.Repeat(".", width-full), 100*pr.Fraction, pr.Done, pr.Total, skipped, round(pr.Elapsed), eta)
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.shown = true
		return
	}
	fmt.Fprintln(p.w, line)
}
