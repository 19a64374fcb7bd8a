package kernelhelpers

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tableNotebooks returns the notebooks linked from the first column of the
// table rows of a Markdown text, in order, and the rows' cell counts.
func tableNotebooks(t *testing.T, path string, link *regexp.Regexp) (names []string, cells []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cols := strings.Split(strings.Trim(line, "|"), " | ")
		if m := link.FindStringSubmatch(cols[0]); m != nil {
			names = append(names, m[1])
			cells = append(cells, len(cols))
		}
	}
	return names, cells
}

// TestNotebookIndex keeps notebooks/README.md (the index) and the README's
// notebook table in step with notebooks/*.ipynb: every notebook listed once,
// in the same order, and each index row with its five columns filled.
func TestNotebookIndex(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	var want []string
	for _, f := range files {
		want = append(want, strings.TrimSuffix(filepath.Base(f), ".ipynb"))
	}
	readme, _ := tableNotebooks(t, filepath.Join("..", "README.md"), regexp.MustCompile(`\(notebooks/([^)/]+)\.ipynb\)`))
	index, cells := tableNotebooks(t, filepath.Join("..", "notebooks", "README.md"), regexp.MustCompile(`\(([^)/]+)\.ipynb\)`))
	if !slices.Equal(readme, want) {
		t.Errorf("README.md's notebook table lists %v, notebooks/ has %v", readme, want)
	}
	if !slices.Equal(index, want) {
		t.Errorf("notebooks/README.md lists %v, notebooks/ has %v", index, want)
	}
	b, _ := os.ReadFile(filepath.Join("..", "notebooks", "README.md"))
	for i, n := range cells {
		if n != 5 {
			t.Errorf("notebooks/README.md: the row of %s has %d columns, want 5 (notebook, paper, claims, quick, full)", index[i], n)
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| [") && (strings.Contains(line, "|  |") || strings.Contains(line, "QUICK_")) {
			t.Errorf("notebooks/README.md: a row with an empty cell: %.80s", line)
		}
	}
}
