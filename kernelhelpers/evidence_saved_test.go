package kernelhelpers

import (
	"encoding/json"
	"os"
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
	oldCheck    = regexp.MustCompile(`want (\S+), \|diff\| \S+, tol (\S+)`)
	detectsRel  = regexp.MustCompile(`detects \S+ \(([0-9.e+-]+)% of`)
	typedTime   = regexp.MustCompile(`\b\d+(\.\d+)?\s*(s|min|minutes?|seconds?|hours?)\b`)
	trackerTalk = regexp.MustCompile(`(?i)\bissues?\b|\btracker`)
	decimal     = regexp.MustCompile(`\d+\.\d+`)
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

func TestNotebookEvidence(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	onLayer := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ipynb")
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var nb savedNotebook
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatal(err)
		}
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
		var checks, sanity, withDetects, controls int
		var rel []float64
		var loose []string
		for _, line := range strings.Split(outputs.String(), "\n") {
			switch {
			case strings.HasPrefix(line, "CONTROL  "):
				controls++
			case strings.HasPrefix(line, "PASS  sanity:"):
				sanity++
			case strings.HasPrefix(line, "PASS  "):
				checks++
				if m := detectsRel.FindStringSubmatch(line); m != nil {
					withDetects++
					if v, err := strconv.ParseFloat(m[1], 64); err == nil {
						rel = append(rel, v)
					}
				} else if strings.Contains(line, "detects") {
					withDetects++
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
		median := "-"
		if len(rel) > 0 {
			slices.Sort(rel)
			median = strconv.FormatFloat(rel[len(rel)/2], 'g', 3, 64) + "%"
		}
		layer := strings.Contains(code.String(), "kh.Agree(") || strings.Contains(code.String(), "kh.Less(")
		t.Logf("%-28s evidence layer %-5v checks %3d (with detects %3d), sanity %2d, controls %2d, median detects %s of the quantity",
			name, layer, checks, withDetects, sanity, controls, median)
		if !layer {
			continue
		}
		onLayer++
		if controls < 2 {
			t.Errorf("%s: %d CONTROL lines in the saved outputs, want at least 2", name, controls)
		}
		if checks > 0 && float64(withDetects) < 0.9*float64(checks) {
			t.Errorf("%s: %d of %d non-sanity check lines state what they detect, want 90%%", name, withDetects, checks)
		}
		for _, l := range loose {
			t.Errorf("%s: a tolerance of half its reference or more: %s", name, l)
		}
		for i, md := range markdown {
			if strings.Contains(strings.ToLower(md), "reproduces the paper") {
				t.Errorf("%s: markdown cell %d claims to reproduce the paper", name, i+1)
			}
			if m := trackerTalk.FindString(md); m != "" {
				t.Errorf("%s: markdown cell %d speaks of %q", name, i+1, m)
			}
			if i == 0 {
				if m := typedTime.FindString(md); m != "" {
					t.Errorf("%s: the introduction types a run time %q; the stamp cell states them", name, m)
				}
			}
			if strings.Contains(md, "What we found") {
				for _, x := range decimal.FindAllString(md, -1) {
					if !strings.Contains(outputs.String(), x) {
						t.Errorf("%s: What we found quotes %s, which no saved output prints", name, x)
					}
				}
			}
		}
		if m := trackerTalk.FindString(code.String()); m != "" {
			t.Errorf("%s: a code cell speaks of %q", name, m)
		}
	}
	t.Logf("%d of %d notebooks on the evidence layer", onLayer, len(files))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
