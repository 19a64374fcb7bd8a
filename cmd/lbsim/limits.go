package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/model"
)

// The resource flags --max-memory and --max-events are accepted by every
// command (before "--", anywhere among its arguments); they set the limits of
// package model, which every command checks before it allocates or runs.

// resourceFlags removes the resource flags from args, sets the limits they
// give (or restores the defaults) and returns the other arguments.
func resourceFlags(args []string) ([]string, error) {
	model.SetMemoryLimit(0)
	model.SetEventLimit(0)
	var rest []string
	given := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || (name != "max-memory" && name != "max-events") {
			rest = append(rest, a)
			continue
		}
		if given[name] {
			return nil, usageErr("--%s given twice (give each flag once)", name)
		}
		given[name] = true
		if !hasValue {
			if i+1 == len(args) {
				return nil, usageErr("flag needs an argument: -%s", name)
			}
			i++
			value = args[i]
		}
		switch name {
		case "max-memory":
			b, err := model.ParseBytes(value)
			if err != nil || b <= 0 {
				return nil, usageErr("max_memory = %q: must be a size > 0 such as 8GB, 512MiB or 1e9 (bytes)", value)
			}
			model.SetMemoryLimit(b)
		case "max-events":
			x, err := strconv.ParseFloat(value, 64)
			if err != nil || !(x >= 0) {
				return nil, usageErr("max_events = %q: must be a number of events >= 0 (0: no limit)", value)
			}
			if x == 0 {
				x = float64Inf
			}
			model.SetEventLimit(x)
		}
	}
	return rest, nil
}

var float64Inf = math.Inf(1)

// printResourceFlags documents the resource flags in a command's help.
func printResourceFlags(w io.Writer) {
	limit, source := model.MemoryLimit()
	fmt.Fprintf(w, `
Resource limits (every command): a run whose estimated memory or expected
events are above a limit is refused (exit 2) before it starts, naming the key.
  --max-memory SIZE
      memory limit, such as 8GB or 512MiB, or the variable %s
      (default %g of the machine's memory; now %s: %s)
  --max-events N
      limit on the expected events of one run (0: none), or the variable
      %s (default %.0g, about %.0f days of one core)
`, model.EnvMaxMemory, model.DefaultMemoryFraction, model.FormatBytes(limit), source, model.EnvMaxEvents,
		model.DefaultMaxEvents, model.DefaultMaxEvents/model.EventsPerSecond/86400)
}

// limitErr makes a refusal above a resource limit, and an error of a run
// that comes from its scenario, invalid input (exit 2).
func limitErr(err error) error {
	if errors.Is(err, model.ErrLimit) || errors.Is(err, lbsim.ErrInvalid) || errors.Is(err, model.ErrInvalid) {
		return &cmdError{exitUsage, err}
	}
	return err
}
