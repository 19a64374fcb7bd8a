package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	kh "github.com/lbsim/notebooks/kernelhelpers"
	"github.com/lbsim/notebooks/lbsim"
)

// runConfig is what `lbsim run` reads from a scenario file and its flags
// besides the scenario keys (lbsim.Keys): keys that only affect the output
// and the execution.
type runConfig struct {
	// Trajectory is the CSV file for the occupancy trajectory (needs Grid > 0).
	Trajectory string `json:"trajectory,omitempty"`
	// Plot is a standalone HTML page with the occupancy charts and a table.
	Plot string `json:"plot,omitempty"`
	// Progress reports progress on stderr.
	Progress bool `json:"progress,omitempty"`
	// Workers is the number of replications simulated at once (0: one per core).
	Workers int `json:"workers,omitempty"`
}

func runFlags(c *runConfig) *flags {
	f := newFlags("run")
	f.add("trajectory", "FILE.csv", "write the recorded trajectory (needs --grid) to FILE.csv, with columns "+
		"time,q1,...,qK,q1_ci95,...,qK_ci95", stringValue(&c.Trajectory))
	f.add("plot", "FILE.html", "write a standalone HTML page (echarts inline, works offline) with the "+
		"stationary occupancy, the trajectory when --grid is given, and a results table", stringValue(&c.Plot))
	f.add("progress", "", "report progress (fraction done, ETA) on stderr", boolValue(&c.Progress))
	f.add("workers", "W", "replications simulated at once (>= 0; default 0: one per core)", intValue(&c.Workers))
	return f
}

func runHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: lbsim run [FILE.json | -] [flags]

Simulates one scenario and prints the result as one JSON object on stdout.
The scenario comes from flags, from a JSON file (- for stdin) whose keys are
named like the flags with _ for - (for example
{"servers": 1000, "lambda": 0.9, "policy": "jsqd", "d": 2}), or both: flags
given on the command line override the file. Lists are JSON arrays in files.

Flags:
`)
	lbsim.Keys.PrintFlags(w, nil)
	runFlags(&runConfig{}).printFlags(w)
	printPolicies(w)
	fmt.Fprint(w, `
Output: the result JSON has the keys scenario (the scenario after defaults),
policy, engine, replications, events, wall_seconds, events_per_second,
occupancy (q_1, q_2, ...: time-average fraction of servers with at least i
tasks), occupancy_ci95, mean_tasks_per_server(_ci95), mean_sojourn(_ci95),
wait_probability(_ci95), sojourn_quantiles, max_queue_length and
per_replication. Confidence half-widths (95%, over replications) are null
with a single replication.

Examples:
  lbsim run --servers 1000 --lambda 0.9 --policy jsqd --d 2 --replications 8
  lbsim run --servers 100 --lambda 0.8 --policy jsq --rates 0.5x50,1.5x50
  lbsim run scenario.json --lambda 0.95 --progress
  lbsim run --servers 1000 --lambda 0.9 --policy jsqd --init 1,0.5 \
      --horizon 50 --warmup 0 --grid 0.5 --trajectory traj.csv

Exit status: 0 success, 1 runtime failure (such as an unwritable trajectory
file), 2 invalid input (nothing is run), 130 interrupted by SIGINT or SIGTERM.
On failure nothing is written to stdout and no trajectory file is created.
`)
}

func runCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg, fromFlags runConfig
	v, err := runFlags(&fromFlags).configure(args, stdin, lbsim.Keys, nil, &cfg, &fromFlags)
	if err != nil {
		return err
	}
	sc, err := lbsim.ScenarioFromValues(v)
	if err != nil {
		return usageErr("%v", err)
	}
	if cfg.Workers < 0 {
		return usageErr("workers = %d: must be >= 0 (0: one per core)", cfg.Workers)
	}
	if cfg.Trajectory != "" {
		if sc.Grid <= 0 {
			return usageErr("trajectory = %q: needs a grid step; give --grid DT > 0 (or \"grid\" in the scenario file)", cfg.Trajectory)
		}
		// Fail before a long run, without creating the file.
		if err := checkOutputPath("trajectory", cfg.Trajectory); err != nil {
			return err
		}
	}

	if cfg.Plot != "" {
		if err := checkOutputPath("plot", cfg.Plot); err != nil {
			return err
		}
		if _, err := kh.EchartsPath(); err != nil {
			return failure(fmt.Errorf("plot = %q: %w", cfg.Plot, err))
		}
	}

	sc.Workers = cfg.Workers
	var prog *progressPrinter
	if cfg.Progress {
		prog = newProgressPrinter(stderr, "lbsim run")
		sc.Progress = prog.update
	}
	res, err := lbsim.Run(ctx, sc)
	prog.end()
	if err != nil {
		return err
	}

	out, err := encodeResult(ctx, func() any { return res })
	if err != nil {
		return err
	}
	// The files are staged and renamed into place with the result: a failure
	// of one leaves none.
	var files outputs
	defer files.discard()
	if cfg.Trajectory != "" {
		if res.Trajectory == nil {
			return failure(fmt.Errorf("trajectory = %q: %w", cfg.Trajectory, errNoTrajectory))
		}
		if err := files.stage("trajectory", cfg.Trajectory, res.Trajectory.WriteCSV); err != nil {
			return err
		}
	}
	if cfg.Plot != "" {
		if err := files.stage("plot", cfg.Plot, func(w io.Writer) error { return writePlot(w, res) }); err != nil {
			return err
		}
	}
	return files.commit(ctx, stdout, out)
}

// writePlot writes the standalone page of --plot: P(queue >= i) on a log axis,
// q_i(t) with its band when a trajectory was recorded, and the results table.
func writePlot(w io.Writer, res *lbsim.Result) error {
	title := fmt.Sprintf("lbsim run: %s, N = %d, lambda = %g", res.Policy, res.Scenario.Servers, res.Scenario.Lambda)
	items := []kh.Item{
		kh.Stationary([]kh.Curve{{Name: res.Policy, Values: res.Occupancy}}, nil, kh.Title("P(queue >= i)")),
	}
	if res.Trajectory != nil {
		items = append(items, kh.Trajectory(res.Trajectory, kh.Title("q_i(t)")))
	}
	items = append(items, kh.ResultsTable([]*lbsim.Result{res}))
	return kh.WritePage(w, title, items...)
}

// printPolicies lists the registered policies, with the keys each uses.
func printPolicies(w io.Writer) {
	fmt.Fprintln(w, "\nPolicies (--policy) and the keys they take besides the common ones:")
	for _, name := range lbsim.PolicyNames() {
		keys := strings.Join(lbsim.Keys.VariantKeys(name), ", ")
		if keys == "" {
			keys = "(none)"
		}
		fmt.Fprintf(w, "  %s\n      %s\n", name, keys)
	}
}
