package main

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/admission"
	"github.com/lbsim/notebooks/lbsim/csma"
	"github.com/lbsim/notebooks/lbsim/flows"
	"github.com/lbsim/notebooks/lbsim/param"
	"github.com/lbsim/notebooks/lbsim/redundancy"
	"github.com/lbsim/notebooks/lbsim/trickle"
)

var updateREADME = flag.Bool("update", false, "rewrite the generated tables of README.md")

// The table of scenario keys in README.md is generated from the key
// declarations (lbsim.Keys); this test fails when it is out of date, and
// `go test ./cmd/lbsim -run TestREADMEKeyTable -update` rewrites it.
func TestREADMEKeyTable(t *testing.T) {
	tables := []struct {
		begin string
		keys  *param.Set
	}{
		{"<!-- keys: lbsim run; generated from lbsim.Keys by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n", lbsim.Keys},
		{"<!-- keys: lbsim redundancy; generated from its declarations by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n",
			redundancy.Model.Keys},
		{"<!-- keys: lbsim admission; generated from its declarations by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n",
			admission.Model.Keys},
		{"<!-- keys: lbsim csma; generated from its declarations by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n",
			csma.Model.Keys},
		{"<!-- keys: lbsim flows; generated from its declarations by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n",
			flows.Model.Keys},
		{"<!-- keys: lbsim trickle; generated from its declarations by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n",
			trickle.Model.Keys},
	}
	const end = "<!-- /keys -->"
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	stale := false
	for _, tb := range tables {
		i := strings.Index(s, tb.begin)
		j := strings.Index(s[max(i, 0):], end) + max(i, 0)
		if i < 0 || j < i {
			t.Fatalf("README.md has no generated key table (markers %q ... %q)", tb.begin, end)
		}
		var b bytes.Buffer
		tb.keys.MarkdownTable(&b, nil)
		if s[i+len(tb.begin):j] != b.String() {
			stale = true
			s = s[:i+len(tb.begin)] + b.String() + s[j:]
		}
	}
	if stale && *updateREADME {
		if err := os.WriteFile("README.md", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if stale {
		t.Errorf("a key table of README.md is out of date; run go test ./cmd/lbsim -run TestREADMEKeyTable -update")
	}
}

// The keys of lbsim run's result are declared once, by the json tags of
// lbsim.Result: the README's output table and lbsim run -h name each of
// them (a key with _ci95 also by "`_ci95`" in its base key's row), and the
// table names no other.
func TestREADMEResultKeys(t *testing.T) {
	res := runJSON(t, "run", "--servers", "4", "--lambda", "0.5", "--policy", "jsq", "--horizon", "20", "--replications", "2")
	keys := map[string]bool{"scenario_note": true} // written only for a scenario without a file
	for k := range res {
		keys[k] = true
	}
	for _, k := range []string{"per_replication", "sojourn_quantiles", "occupancy_ci95"} { // a check of the check
		if !keys[k] {
			t.Fatalf("the result has no key %q: %v", k, res)
		}
	}
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(data), "### Output\n")
	table, _, _ = strings.Cut(table, "\n\nConfidence half-widths")
	rows := map[string]string{} // key -> its row
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, part := range strings.Split(first, ",") {
			k := strings.Trim(strings.TrimSpace(part), "`")
			if k != "_ci95" {
				rows[k] = first
			}
		}
	}
	var help bytes.Buffer
	runHelp(&help)
	_, out, _ := strings.Cut(help.String(), "Output:")
	for k := range keys {
		base, isCI := strings.CutSuffix(k, "_ci95")
		if _, ok := rows[k]; !ok && !(isCI && strings.Contains(rows[base], "`_ci95`")) {
			t.Errorf("README.md's output table of lbsim run does not name the result key %q", k)
		}
		if k != "scenario_note" && !strings.Contains(out, base) {
			t.Errorf("lbsim run -h (Output) does not name the result key %q", k)
		}
	}
	for k := range rows {
		if !keys[k] {
			t.Errorf("README.md's output table of lbsim run names %q, which the result does not have", k)
		}
	}
}
