package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/lbsim/notebooks/lbsim/sweep"
)

type slurmConfig struct {
	out         string
	shards      int
	cpus        int
	time        string
	mergeTime   string
	mem         string
	partition   string
	account     string
	maxRunning  int
	mergeOut    string
	summary     bool
	lbsim       string
	logs        string
	write       string
	submit      bool
	jobName     string
	extraSbatch string
}

func slurmFlags(c *slurmConfig) *flags {
	f := newFlags("slurm")
	f.add("out", "DIR", "sweep output directory, on a file system shared by the nodes (required)", stringValue(&c.out))
	f.add("shards", "N", "array tasks (1 <= N <= points; default: one per point, at most 1000); task i runs "+
		"the points with index % N == i", intValue(&c.shards))
	f.add("cpus-per-task", "C", "cores of each array task (>= 1; default 1); the points of a task run on "+
		"them in parallel", intValue(&c.cpus))
	f.add("time", "D-HH:MM:SS", "time limit of each array task (default 01:00:00)", stringValue(&c.time))
	f.add("merge-time", "D-HH:MM:SS", "time limit of the merge job (default 00:30:00)", stringValue(&c.mergeTime))
	f.add("mem", "SIZE", "memory per node of each task, as sbatch --mem (default: the cluster's)", stringValue(&c.mem))
	f.add("partition", "NAME", "partition (default: the cluster's)", stringValue(&c.partition))
	f.add("account", "NAME", "account to charge (default: yours)", stringValue(&c.account))
	f.add("max-running", "M", "at most M array tasks at once (--array=0-(N-1)%M; default: no limit)",
		intValue(&c.maxRunning))
	f.add("merge-out", "FILE.csv", "the merged CSV written by the merge job (default: DIR.csv)",
		stringValue(&c.mergeOut))
	f.add("summary", "", "merge with --summary (one row per point)", boolValue(&c.summary))
	f.add("lbsim", "PATH", "the lbsim executable on the nodes (default: this one's absolute path)",
		stringValue(&c.lbsim))
	f.add("logs", "DIR", "directory of the jobs' logs (default: DIR/logs)", stringValue(&c.logs))
	f.add("job-name", "NAME", "job name (default: lbsim-SWEEPNAME)", stringValue(&c.jobName))
	f.add("sbatch", "ARGS", "extra #SBATCH options for both jobs, separated by ';' (for example "+
		"\"--qos=short;--constraint=avx2\")", stringValue(&c.extraSbatch))
	f.add("write", "FILE", "write the script to FILE (executable) instead of stdout; FILE must not exist", stringValue(&c.write))
	f.add("submit", "", "run the script now: submit the array and the merge job with sbatch, print their ids",
		boolValue(&c.submit))
	return f
}

func slurmHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: lbsim slurm SPEC --out DIR [flags]

Prints a bash script that submits the sweep SPEC to Slurm: a job array of N
tasks (sbatch --array=0-(N-1)), task i running "lbsim sweep SPEC --out DIR
--resume" as shard i of N (from SLURM_ARRAY_TASK_ID and
SLURM_ARRAY_TASK_COUNT), and a merge job "lbsim merge DIR --out FILE.csv"
that starts when every task succeeded (--dependency=afterok) and is cancelled
otherwise. Run it with bash (or use --submit). Rerunning the script after a
failure, a cancellation or a time limit resubmits everything; finished points
are skipped (--resume), so only the missing ones run.

The spec, DIR and the lbsim executable must be reachable at the same paths on
the compute nodes (a shared file system); the paths are made absolute.

Flags:
`)
	slurmFlags(&slurmConfig{}).printFlags(w)
	fmt.Fprint(w, `
Examples:
  lbsim slurm data/specs/01-jsqd-finite-n.json --out /scratch/me/jsqd \
      --shards 24 --cpus-per-task 4 --time 00:20:00 --merge-out data/01-jsqd-finite-n.csv --summary > submit.sh
  bash submit.sh
  lbsim slurm spec.json --out /scratch/me/x --partition short --submit

Exit status: 0 success, 1 runtime failure (sbatch failed), 2 invalid input.
`)
}

// clusterSweep reads the sweep file of lbsim slurm and lbsim k8s, validates
// every point, and returns it with its absolute path and the shard count
// (default: one shard per point, at most limit).
func clusterSweep(pos []string, shards, limit int) (*sweep.Spec, string, int, error) {
	sw, err := readSweepArg(pos)
	if err != nil {
		return nil, "", 0, err
	}
	points, err := sw.Points()
	if err != nil {
		return nil, "", 0, usageErr("%v", err)
	}
	abs, err := filepath.Abs(pos[0])
	if err != nil {
		return nil, "", 0, failure(err)
	}
	switch {
	case shards == 0:
		shards = min(len(points), limit)
	case shards < 1 || shards > len(points):
		return nil, "", 0, usageErr("shards = %d: must be between 1 and the number of points (%d)", shards, len(points))
	}
	return sw, abs, shards, nil
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	if s != "" && regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var slurmTime = regexp.MustCompile(`^(\d+-)?\d+(:\d\d){0,2}$|^\d+-\d+$`)

func slurmCommand(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	c := slurmConfig{cpus: 1, time: "01:00:00", mergeTime: "00:30:00"}
	pos, err := slurmFlags(&c).parse(args)
	if err != nil {
		return err
	}
	sw, spec, shards, err := clusterSweep(pos, c.shards, 1000)
	if err != nil {
		return err
	}
	// Nothing given may add a line to the script (see inject.go).
	if err := noControlAll("spec", spec, "out", c.out, "merge-out", c.mergeOut, "logs", c.logs, "lbsim", c.lbsim,
		"job-name", c.jobName, "partition", c.partition, "account", c.account, "mem", c.mem, "sbatch", c.extraSbatch,
		"time", c.time, "merge-time", c.mergeTime); err != nil {
		return err
	}
	for _, p := range []struct{ key, v, what string }{
		{"partition", c.partition, "a Slurm partition name (letters, digits, _ . + - and , between names)"},
		{"account", c.account, "a Slurm account name (letters, digits and _ . + -)"},
	} {
		if err := checkPattern(p.key, p.v, slurmName, p.what); err != nil {
			return err
		}
	}
	if err := checkPattern("mem", c.mem, slurmMem, "a size such as 4096, 500M or 4G"); err != nil {
		return err
	}
	if c.out == "" {
		return usageErr("out: missing; give --out DIR (on a file system the nodes share)")
	}
	if c.cpus < 1 {
		return usageErr("cpus-per-task = %d: must be >= 1", c.cpus)
	}
	if c.maxRunning < 0 {
		return usageErr("max-running = %d: must be >= 1 (0: no limit)", c.maxRunning)
	}
	for name, v := range map[string]string{"time": c.time, "merge-time": c.mergeTime} {
		if !slurmTime.MatchString(v) {
			return usageErr("%s = %q: must be a Slurm time such as 30, 01:00:00 or 1-12:00:00", name, v)
		}
	}
	abs := func(p string) (string, error) {
		a, err := filepath.Abs(p)
		if err != nil {
			return "", failure(err)
		}
		return a, nil
	}
	out, err := abs(c.out)
	if err != nil {
		return err
	}
	if c.mergeOut == "" {
		c.mergeOut = strings.TrimSuffix(out, "/") + ".csv"
	}
	mergeOut, err := abs(c.mergeOut)
	if err != nil {
		return err
	}
	if c.logs == "" {
		c.logs = filepath.Join(out, "logs")
	}
	logs, err := abs(c.logs)
	if err != nil {
		return err
	}
	if strings.ContainsAny(logs, " \t\n'\"") {
		return usageErr("logs = %q: must not contain spaces or quotes (it goes into #SBATCH --output; by default "+
			"it is DIR/logs, give --logs to choose another)", logs)
	}
	if c.lbsim == "" {
		if c.lbsim, err = os.Executable(); err != nil {
			return failure(fmt.Errorf("lbsim: cannot find this executable (%v); give --lbsim PATH", err))
		}
	}
	exe, err := abs(c.lbsim)
	if err != nil {
		return err
	}
	if c.jobName == "" {
		c.jobName = "lbsim"
		if sw.Name != "" {
			c.jobName += "-" + regexp.MustCompile(`[^A-Za-z0-9_.+-]+`).ReplaceAllString(sw.Name, "-")
		}
	}
	if err := checkPattern("job-name", c.jobName, slurmName, "a job name (letters, digits and _ . + -)"); err != nil {
		return err
	}
	var extra []string
	for _, o := range strings.Split(c.extraSbatch, ";") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		if !strings.HasPrefix(o, "-") {
			return usageErr("sbatch = %q: each option must start with - (options separated by ';')", c.extraSbatch)
		}
		if !slurmOption.MatchString(o) {
			return usageErr("sbatch = %q: option %q must be --name or --name=value (value of letters, digits and "+
				"_ . , : + = @ %% / -)", c.extraSbatch, o)
		}
		extra = append(extra, o)
	}

	var b bytes.Buffer
	q := shellQuote
	fmt.Fprintf(&b, "#!/bin/bash\n# Generated by: %s\n", commentLine(strings.Join(quoteAll(os.Args), " ")))
	fmt.Fprintf(&b, "# Submits the sweep %s (%d points x %d replications) as a Slurm job array of %d tasks,\n",
		q(spec), sw.NumPoints(), sw.Replications, shards)
	fmt.Fprintf(&b, "# then merges it into %s in a job that runs when every task succeeded.\n", q(mergeOut))
	fmt.Fprintf(&b, "# Run: bash THIS_FILE (again after a failure: finished points are skipped).\n")
	fmt.Fprintf(&b, "set -euo pipefail\nmkdir -p %s %s\n", q(logs), q(filepath.Dir(mergeOut)))
	header := func(name string, timeLimit string) {
		fmt.Fprintf(&b, "#!/bin/bash\n#SBATCH --job-name=%s\n#SBATCH --time=%s\n", name, timeLimit)
		if c.partition != "" {
			fmt.Fprintf(&b, "#SBATCH --partition=%s\n", c.partition)
		}
		if c.account != "" {
			fmt.Fprintf(&b, "#SBATCH --account=%s\n", c.account)
		}
		for _, o := range extra {
			fmt.Fprintf(&b, "#SBATCH %s\n", o)
		}
	}
	array := fmt.Sprintf("0-%d", shards-1)
	if c.maxRunning > 0 {
		array += fmt.Sprintf("%%%d", c.maxRunning)
	}
	b.WriteString("array_job=$(sbatch --parsable <<'LBSIM_SWEEP'\n")
	header(c.jobName, c.time)
	fmt.Fprintf(&b, "#SBATCH --array=%s\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n", array, c.cpus)
	if c.mem != "" {
		fmt.Fprintf(&b, "#SBATCH --mem=%s\n", c.mem)
	}
	fmt.Fprintf(&b, "#SBATCH --output=%s/sweep-%%A_%%a.log\n", logs)
	b.WriteString("# Task SLURM_ARRAY_TASK_ID runs shard SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT. Each\n" +
		"# finished point is written atomically, so a killed or requeued task loses only its\n" +
		"# points in flight, and --resume skips the finished ones when it runs again.\n")
	fmt.Fprintf(&b, "exec %s sweep %s --out %s --resume --workers \"${SLURM_CPUS_PER_TASK:-%d}\"\nLBSIM_SWEEP\n)\n",
		q(exe), q(spec), q(out), c.cpus)
	b.WriteString("array_job=${array_job%%;*}  # --parsable prints JOBID[;CLUSTER]\n")
	b.WriteString("merge_job=$(sbatch --parsable --dependency=afterok:\"$array_job\" --kill-on-invalid-dep=yes <<'LBSIM_MERGE'\n")
	header(c.jobName+"-merge", c.mergeTime)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n#SBATCH --output=%s/merge-%%j.log\n", logs)
	mergeArgs := ""
	if c.summary {
		mergeArgs = " --summary"
	}
	fmt.Fprintf(&b, "exec %s merge %s --out %s%s\nLBSIM_MERGE\n)\n", q(exe), q(out), q(mergeOut), mergeArgs)
	b.WriteString("merge_job=${merge_job%%;*}\n")
	fmt.Fprintf(&b, "echo \"submitted: array job $array_job (%d tasks), merge job $merge_job (after the array succeeds)\"\n", shards)

	script := b.Bytes()
	if c.write != "" {
		if err := writeOutput(ctx, "write", c.write, script, 0o755, true); err != nil {
			return err
		}
	}
	if c.submit {
		cmd := exec.CommandContext(ctx, "bash", "-s")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(script), stdout, stderr
		if err := cmd.Run(); err != nil {
			return failure(fmt.Errorf("submitting with sbatch: %w", err))
		}
		return nil
	}
	if c.write == "" {
		if _, err := stdout.Write(script); err != nil {
			return failure(err)
		}
	}
	return nil
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return out
}
