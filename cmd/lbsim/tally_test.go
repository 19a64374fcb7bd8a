package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A tally counts a hostile-input table's cases by subcommand and logs the
// counts when the test ends (go test -v), so that a table's growth can be
// stated.
type tally map[string]int

func newTally(t *testing.T) tally {
	c := tally{}
	t.Cleanup(func() {
		var names []string
		total := 0
		for n, k := range c {
			names = append(names, fmt.Sprintf("%s %d", n, k))
			total += k
		}
		slices.Sort(names)
		t.Logf("%d hostile cases by subcommand: %s", total, strings.Join(names, ", "))
	})
	return c
}

// add counts one case, run with args (the subcommand first).
func (c tally) add(args []string) {
	name := "(none)"
	if len(args) > 0 {
		name = args[0]
	}
	c[name]++
}
