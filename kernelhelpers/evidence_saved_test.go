package kernelhelpers

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The bar of the evidence layer on the saved notebooks (../shared/EVIDENCE.md).
// A notebook is on the evidence layer once its code calls kh.Agree or kh.Less;
// from then on all of this holds for it, checked on its saved (full-mode)
// outputs:
//   - at least two CONTROL lines (negative controls rejected);
//   - at least 90% of its non-sanity PASS lines state what they detect;
//   - no older check line with a tolerance of 50% of its reference or more;
//   - its text claims no more than it shows: no "reproduces the paper's
//     numbers", no typed run times in the introduction (the stamp states
//     them), no words about issues or trackers, and every decimal number of
//     its "What we found" cell printed somewhere in its outputs.
// The test logs, for every notebook, the counts the closing notes report.

var (
	oldCheck     = regexp.MustCompile(`want (\S+), \|diff\| \S+, tol (\S+)`)
	detectsRel   = regexp.MustCompile(`detects \S+ \(([0-9.e+-]+)% of`)
	typedTime    = regexp.MustCompile(`\b\d+(\.\d+)?\s*(s|min|minutes?|seconds?|hours?)\b`)
	trackerTalk  = regexp.MustCompile(`(?i)\bissues?\b|\btracker`)
	decimal      = regexp.MustCompile(`\d+\.\d+`)
	foundHeading = regexp.MustCompile(`(?m)^#+ What we found`)
	// "reproduces the paper's numbers" (or figures, results), not "the papers' claims".
	overclaim = regexp.MustCompile(`(?i)reproduc\w* the papers?'?s? (own )?(numbers|figures|results|values)`)
)

// outputText is the text of a cell's outputs: streams, text/plain and text/html.
func outputText(t *testing.T, outs []json.RawMessage) string {
	var b strings.Builder
	for _, raw := range outs {
		var o struct {
			Text json.RawMessage            `json:"text"`
			Data map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatal(err)
		}
		if o.Text != nil {
			b.WriteString(cellText(t, o.Text))
		}
		for _, k := range []string{"text/plain", "text/html"} {
			if v, ok := o.Data[k]; ok {
				b.WriteString(cellText(t, v))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// evidenceAudit is what TestNotebookEvidence reads off one saved notebook:
// its counts, and the ways it misses the bar (empty when it meets it or is
// not on the evidence layer).
type evidenceAudit struct {
	layer                                 bool
	checks, withDetects, sanity, controls int
	medianDetects                         string
	problems                              []string
}

func auditNotebook(t *testing.T, nb savedNotebook) evidenceAudit {
	var code, outputs strings.Builder
	var markdown []string
	for _, c := range nb.Cells {
		src := cellText(t, c.Source)
		if c.CellType == "code" {
			code.WriteString(src + "\n")
			outputs.WriteString(outputText(t, c.Outputs))
		} else if c.ID != stampID {
			markdown = append(markdown, src)
		}
	}
	a := evidenceAudit{medianDetects: "-"}
	var rel []float64
	var loose []string
	for _, line := range strings.Split(outputs.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "CONTROL  "):
			a.controls++
		case strings.HasPrefix(line, "PASS  sanity:"):
			a.sanity++
		case strings.HasPrefix(line, "PASS  "):
			a.checks++
			if m := detectsRel.FindStringSubmatch(line); m != nil {
				a.withDetects++
				if v, err := strconv.ParseFloat(m[1], 64); err == nil {
					rel = append(rel, v)
				}
			} else if strings.Contains(line, "detects") {
				a.withDetects++
			}
			if m := oldCheck.FindStringSubmatch(line); m != nil {
				want, _ := strconv.ParseFloat(m[1], 64)
				tol, _ := strconv.ParseFloat(m[2], 64)
				if want != 0 && tol >= 0.5*abs(want) {
					loose = append(loose, line)
				}
			}
		}
	}
	if len(rel) > 0 {
		slices.Sort(rel)
		a.medianDetects = strconv.FormatFloat(rel[len(rel)/2], 'g', 3, 64) + "%"
	}
	a.layer = strings.Contains(code.String(), "kh.Agree(") || strings.Contains(code.String(), "kh.Less(")
	if !a.layer {
		return a
	}
	bad := func(format string, args ...any) { a.problems = append(a.problems, fmt.Sprintf(format, args...)) }
	if a.controls < 2 {
		bad("%d CONTROL lines in the saved outputs, want at least 2", a.controls)
	}
	if a.checks > 0 && float64(a.withDetects) < 0.9*float64(a.checks) {
		bad("%d of %d non-sanity check lines state what they detect, want 90%%", a.withDetects, a.checks)
	}
	for _, l := range loose {
		bad("a tolerance of half its reference or more: %s", l)
	}
	for i, md := range markdown {
		if m := overclaim.FindString(md); m != "" {
			bad("markdown cell %d claims more than it shows: %q", i+1, m)
		}
		if m := trackerTalk.FindString(md); m != "" {
			bad("markdown cell %d speaks of %q", i+1, m)
		}
		if i == 0 {
			if m := typedTime.FindString(md); m != "" {
				bad("the introduction types a run time %q; the stamp cell states them", m)
			}
		}
		if foundHeading.MatchString(md) {
			for _, x := range decimal.FindAllString(md, -1) {
				if !strings.Contains(outputs.String(), x) {
					bad("What we found quotes %s, which no saved output prints", x)
				}
			}
		}
	}
	if m := trackerTalk.FindString(code.String()); m != "" {
		bad("a code cell speaks of %q", m)
	}
	return a
}

func TestNotebookEvidence(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	onLayer := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ipynb")
		a := auditNotebook(t, readSavedNotebook(t, f))
		t.Logf("%-28s evidence layer %-5v checks %3d (with detects %3d), sanity %2d, controls %2d, median detects %s of the quantity",
			name, a.layer, a.checks, a.withDetects, a.sanity, a.controls, a.medianDetects)
		if a.layer {
			onLayer++
		}
		for _, p := range a.problems {
			t.Errorf("%s: %s", name, p)
		}
	}
	t.Logf("%d of %d notebooks on the evidence layer", onLayer, len(files))
}

// The audit fails notebooks that miss the bar, one way at a time, and
// passes one that meets it.
func TestAuditNotebook(t *testing.T) {
	pass := "PASS  q_2 vs fixed point: 0.729 vs 0.729 [exact]; diff 0, tol 0.001; detects 0.0012 (0.16% of 0.729) at 80% power"
	control := "CONTROL  λ 1% higher: rejected by q_2"
	mk := func(intro, found, code string, lines ...string) savedNotebook {
		js := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
		out, _ := json.Marshal(map[string]any{"output_type": "stream", "name": "stdout", "text": strings.Join(lines, "\n") + "\n"})
		var nb savedNotebook
		nb.Cells = append(nb.Cells,
			savedCell{ID: "a", CellType: "markdown", Source: js(intro)},
			savedCell{ID: "b", CellType: "code", Source: js(code), Outputs: []json.RawMessage{out}},
			savedCell{ID: "c", CellType: "markdown", Source: js("## What we found\n" + found)})
		return nb
	}
	good := mk("# JSQ(2): it reproduces the papers' claims, not their figures", "q_2 sits at 0.729.", "kh.Agree(x)", pass, control, control)
	if a := auditNotebook(t, good); !a.layer || len(a.problems) != 0 || a.medianDetects != "0.16%" {
		t.Fatalf("a notebook that meets the bar: %+v", a)
	}
	for what, nb := range map[string]savedNotebook{
		"one control":      mk("# JSQ(2)", "", "kh.Agree(x)", pass, control),
		"no detects":       mk("# JSQ(2)", "", "kh.Agree(x)", pass, "PASS  q_3: got 1, want 1, |diff| 0, tol 0.1", control, control),
		"loose tolerance":  mk("# JSQ(2)", "", "kh.Agree(x)", pass, pass, pass, pass, pass, pass, pass, pass, pass, "PASS  q_3: got 1, want 1, |diff| 0, tol 0.6 detects", control, control),
		"overclaim":        mk("# Full mode reproduces the paper's numbers", "", "kh.Agree(x)", pass, control, control),
		"typed time":       mk("# Full mode takes 12 min", "", "kh.Agree(x)", pass, control, control),
		"tracker talk":     mk("# JSQ(2)", "", "kh.Agree(x) // the issue's example", pass, control, control),
		"unprinted number": mk("# JSQ(2)", "q_2 sits at 0.731.", "kh.Agree(x)", pass, control, control),
	} {
		if a := auditNotebook(t, nb); len(a.problems) == 0 {
			t.Errorf("%s: passes the audit", what)
		}
	}
	if a := auditNotebook(t, mk("# old", "", "kh.Check(x)", "PASS  q_3: got 1, want 1, |diff| 0, tol 0.6")); a.layer || len(a.problems) != 0 {
		t.Errorf("a notebook not on the evidence layer: %+v", a)
	}
}
func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
