// Command lbsim simulates load balancing in systems of parallel servers and
// solves small systems exactly.
//
//	lbsim run [FILE.json|-] [flags]     simulate one scenario, print a JSON result
//	lbsim exact [FILE.json|-] [flags]   solve a small system exactly, print JSON
//	lbsim meanfield [FILE.json|-] [flags]  mean-field ODE path and fixed point, JSON
//	lbsim sweep SPEC --out DIR          run a parameter sweep (or one shard of it)
//	lbsim merge DIR --out FILE.csv      gather a sweep's points into a CSV + provenance
//	lbsim slurm SPEC --out DIR          print a Slurm job-array script for a sweep
//	lbsim k8s SPEC --image IMAGE        print a Kubernetes indexed Job for a sweep
//	lbsim version                       print the version
//	lbsim help [COMMAND]                explain a command
//
// See README.md in this directory for the full reference. All the modelling lives in package
// lbsim; this command only maps flags and files onto the declared keys of a
// model (lbsim.Keys for run and exact) and prints
// what comes back.
package main

import (
	// The models with a subcommand of their own register themselves.
	_ "github.com/lbsim/notebooks/lbsim/admission"
	_ "github.com/lbsim/notebooks/lbsim/csma"
	_ "github.com/lbsim/notebooks/lbsim/flows"
	_ "github.com/lbsim/notebooks/lbsim/redundancy"
	_ "github.com/lbsim/notebooks/lbsim/trickle"

	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/lbsim/notebooks/lbsim/param"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1   // a runtime failure (cannot write a file, ...)
	exitUsage       = 2   // invalid input: flags, scenario, arguments
	exitInterrupted = 130 // SIGINT or SIGTERM
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal kills the process the default way
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// A command is one subcommand. It writes its result to stdout only when it
// succeeds. It returns nil, errHelp, a *cmdError carrying the exit code, or
// another error (a runtime failure, exit 1, or the context's error).
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
	help    func(w io.Writer)
}

var commands = []command{
	{"run", "simulate one scenario and print the result as JSON", runCommand, runHelp},
	{"exact", "solve a small system exactly and print the result as JSON", exactCommand, exactHelp},
	{"meanfield", "integrate the mean-field ODE and print its path and fixed point as JSON", meanfieldCommand, meanfieldHelp},
	{"sweep", "run a parameter sweep (or one shard of it), one file per point", sweepCommand, sweepHelp},
	{"merge", "gather a sweep's points into a tidy CSV with a provenance sidecar", mergeCommand, mergeHelp},
	{"slurm", "print a Slurm job-array script (and merge job) for a sweep", slurmCommand, slurmHelp},
	{"k8s", "print a Kubernetes indexed Job manifest for a sweep", k8sCommand, k8sHelp},
	{"version", "print the version of lbsim", versionCommand, versionHelp},
	{"help", "explain a command", nil, nil},
}

// cmdError is an error with its exit code.
type cmdError struct {
	code int
	err  error
}

func (e *cmdError) Error() string { return e.err.Error() }
func (e *cmdError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &cmdError{exitUsage, fmt.Errorf(format, a...)}
}

func failure(err error) error { return &cmdError{exitFailure, err} }

// errHelp asks run to print a command's help on stdout and exit 0.
var errHelp = errors.New("help requested")

// run is main without the process: it parses args, runs a subcommand and
// returns the exit code. Nothing is written to stdout unless the command
// succeeds.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		mainHelp(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	if name == "help" {
		return helpCommand(rest, stdout, stderr)
	}
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(stderr, "lbsim: unknown command %q; the commands are %s (see lbsim help)\n", name, commandNames())
		return exitUsage
	}
	// A blocked read of an input (a named pipe without a writer) ends with
	// the command's context too.
	defer param.SetInterrupt(ctx)()
	rest, err := resourceFlags(rest)
	if err == nil {
		err = limitErr(cmd.run(ctx, rest, stdin, stdout, stderr))
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		cmd.help(stdout)
		fmt.Fprintln(stdout, "\nEvery command also takes --max-memory SIZE and --max-events N (see lbsim help).")
		return exitOK
	case ctx.Err() != nil:
		// Whatever the error says, it came after the signal (a read or a
		// loop cut short reports its own failure): the command was
		// interrupted.
		fmt.Fprintf(stderr, "lbsim %s: interrupted; no result\n", name)
		return exitInterrupted
	}
	// One line whatever the error holds (a path with a newline, ...).
	fmt.Fprintf(stderr, "lbsim %s: %s\n", name, commentLine(strings.ReplaceAll(err.Error(), "\n", `\n`)))
	var ce *cmdError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitFailure
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name && commands[i].run != nil {
			return &commands[i]
		}
	}
	for _, c := range modelCommands() {
		if c.name == name {
			return &c
		}
	}
	return nil
}

// commandNames lists every command for messages.
func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	for _, c := range modelCommands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func helpCommand(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		mainHelp(stdout)
		return exitOK
	case 1:
		if args[0] == "help" {
			mainHelp(stdout)
			return exitOK
		}
		if cmd := lookup(args[0]); cmd != nil {
			cmd.help(stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "lbsim help: unknown command %q; the commands are %s\n", args[0], commandNames())
	default:
		fmt.Fprintf(stderr, "lbsim help: too many arguments; usage: lbsim help [COMMAND]\n")
	}
	return exitUsage
}

func mainHelp(w io.Writer) {
	fmt.Fprintf(w, `lbsim simulates dispatching policies (JSQ, JSQ(d), JIQ, ...) in systems of N
parallel exponential servers with Poisson arrivals, and solves small systems
exactly.

Usage:
  lbsim COMMAND [arguments]

Commands:
`)
	for _, c := range append(commands, modelCommands()...) {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, `
Run "lbsim help COMMAND" or "lbsim COMMAND -h" for a command's flags.
`)
	printResourceFlags(w)
	fmt.Fprintf(w, `
Exit status: 0 success, 1 runtime failure, 2 invalid input, 130 interrupted.
`)
}

func versionCommand(_ context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			return errHelp
		}
	}
	if len(args) > 0 {
		return usageErr("unexpected argument %q; usage: lbsim version", args[0])
	}
	_, err := fmt.Fprintln(stdout, versionString())
	if err != nil {
		return failure(err)
	}
	return nil
}

func versionHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: lbsim version

Prints the module version of lbsim ("devel" for a build without one), the VCS
revision and time it was built from ("modified" for uncommitted changes),
and the Go version and platform.
`)
}

// versionString describes the build from runtime/debug.ReadBuildInfo.
func versionString() string {
	version, revision, vcsTime, dirty := "devel", "", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				vcsTime = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	out := "lbsim " + version
	if revision != "" {
		out += " (revision " + revision
		if vcsTime != "" {
			out += ", " + vcsTime
		}
		if dirty {
			out += ", modified"
		}
		out += ")"
	}
	return out + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}
