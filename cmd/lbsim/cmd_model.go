package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/model"
)

// The subcommands of the models of package model other than dispatch (which
// is `lbsim run`, with its plots and trajectories): each is built from the
// model's key declarations, runs one point and prints it as JSON.

// modelConfig is what a model subcommand reads besides the model's keys.
type modelConfig struct {
	// Progress reports progress on stderr.
	Progress bool `json:"progress,omitempty"`
	// Workers bounds the cores used (0: all).
	Workers int `json:"workers,omitempty"`
}

func modelFlags(name string, c *modelConfig) *flags {
	f := newFlags(name)
	f.add("progress", "", "report progress (fraction done, ETA) on stderr", boolValue(&c.Progress))
	f.add("workers", "W", "cores used at once (>= 0; default 0: all)", intValue(&c.Workers))
	return f
}

// modelCommands returns a command for every registered model with a
// subcommand of its own.
func modelCommands() []command {
	var out []command
	for _, name := range model.Names() {
		m, _ := model.Lookup(name)
		if m == lbsim.Dispatch || m.Command == "" {
			continue
		}
		out = append(out, command{
			name:    m.Command,
			summary: "run one point of the " + m.Name + " model (" + m.Summary + ") and print it as JSON",
			run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
				return runModel(ctx, m, args, stdin, stdout, stderr)
			},
			help: func(w io.Writer) { modelHelp(w, m) },
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func modelHelp(w io.Writer, m *model.Model) {
	fmt.Fprintf(w, `Usage: lbsim %s [FILE.json | -] [flags]

Runs one point of the model %s (%s) and prints one JSON object:
scenario (every key after defaults: a scenario file that reproduces the run),
figures (name -> value, and name_ci95 for 95%% half-widths) and result (the
model's own result). The keys come from flags or a JSON file (- for stdin)
whose keys are named like the flags with _ for -; flags override the file.
The same keys are the axes of "lbsim sweep" with "model": %q.

Flags:
`, m.Command, m.Name, m.Summary, m.Name)
	m.Keys.PrintFlags(w, nil)
	modelFlags(m.Command, &modelConfig{}).printFlags(w)
	fmt.Fprint(w, `
Exit status: 0 success, 1 runtime failure, 2 invalid input (nothing is run),
130 interrupted by SIGINT or SIGTERM.
`)
}

func runModel(ctx context.Context, m *model.Model, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg, fromFlags modelConfig
	v, err := modelFlags(m.Command, &fromFlags).configure(args, stdin, m.Keys, nil, &cfg, &fromFlags)
	if err != nil {
		return err
	}
	if err := m.Keys.Complete(v); err != nil {
		return usageErr("%v", err)
	}
	if err := m.CheckResources(v); err != nil { // before Validate, which may allocate
		return usageErr("%v", err)
	}
	if m.Validate != nil {
		if err := m.Validate(v); err != nil {
			return usageErr("%v", err)
		}
	}
	if cfg.Workers < 0 {
		return usageErr("workers = %d: must be >= 0 (0: all cores)", cfg.Workers)
	}

	var progress func(float64)
	var prog *progressPrinter
	if cfg.Progress {
		prog = newProgressPrinter(stderr, "lbsim "+m.Command)
		progress = func(f float64) { prog.update(lbsim.Progress{Fraction: f}) }
	}
	out, err := m.Run(ctx, v, cfg.Workers, progress)
	prog.end()
	if err != nil {
		return err
	}
	// The figures' JSON values are built with the encoding: both can take
	// seconds for a long vector (a revenue curve of 10^7 thresholds), and a
	// signal then ends the command at once.
	data, err := encodeResult(ctx, func() any {
		figures := map[string]any{}
		for _, f := range out.Figures {
			if f.IsVector() {
				figures[f.Name] = jsonValues(f.Vector)
				if f.VectorCI95 != nil {
					figures[f.Name+"_ci95"] = jsonValues(f.VectorCI95)
				}
				continue
			}
			figures[f.Name] = jsonValue(f.Value)
			if f.CI95 != nil {
				figures[f.Name+"_ci95"] = jsonValue(*f.CI95)
			}
		}
		return map[string]any{"model": m.Name, "scenario": v, "figures": figures, "result": out.Result}
	})
	if err != nil {
		return err
	}
	// The point's files (a trace) appear with the result or not at all.
	var o outputs
	defer o.discard()
	for _, f := range out.Files {
		if err := keepExisting(f.Key, f.Path); err != nil {
			return err
		}
		if err := o.stage(f.Key, f.Path, f.Write); err != nil {
			return err
		}
		o.files[len(o.files)-1].keep = true
	}
	return o.commit(ctx, stdout, data)
}

// encodeResult is the JSON a command prints, indented by two spaces, of
// the value build returns. build and the encoding run in a goroutine of
// their own: if ctx is done first (a signal during the encoding of a large
// result), encodeResult returns ctx's error at once (exit 130) and leaves
// the goroutine to end with the process.
func encodeResult(ctx context.Context, build func() any) ([]byte, error) {
	type encoded struct {
		data []byte
		err  error
	}
	done := make(chan encoded, 1)
	go func() {
		data, err := json.MarshalIndent(build(), "", "  ")
		done <- encoded{data, err}
	}()
	select {
	case e := <-done:
		if e.err != nil {
			return nil, failure(fmt.Errorf("encoding the result: %w", e.err))
		}
		return append(e.data, '\n'), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// writeResult writes a command's result on stdout, the last thing it does,
// unless ctx was cancelled meanwhile (a signal during the encoding of a
// large result): then it writes nothing and returns ctx's error (exit 130).
func writeResult(ctx context.Context, stdout io.Writer, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := stdout.Write(data); err != nil {
		return failure(err)
	}
	return nil
}

func jsonValues(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = jsonValue(x)
	}
	return out
}

// jsonValue writes a formatted figure as a JSON number when it is one
// (NaN as null), else as a string.
func jsonValue(s string) any {
	if s == "NaN" {
		return nil
	}
	var n json.Number
	if json.Unmarshal([]byte(s), &n) == nil {
		return n
	}
	return s
}
