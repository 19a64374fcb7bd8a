package kernelhelpers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// DataPath finds the committed datasets from a directory below the
// repository (as the browser test's copies of the notebooks are) and names
// what it looked for when a file is missing.
func TestDataPath(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(t.TempDir(), "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(deep) // outside the repository: found from this package's source directory
	p, err := DataPath("01-jsqd-finite-n.csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(repo, "data", "01-jsqd-finite-n.csv"); p != want {
		t.Errorf("DataPath = %q, want %q", p, want)
	}
	if p, err := DataPath("specs/02-er-scaling.json"); err != nil || !strings.HasSuffix(p, filepath.Join("data", "specs", "02-er-scaling.json")) {
		t.Errorf("DataPath(specs/...) = %q, %v", p, err)
	}
	if _, err := DataPath("no-such-dataset.csv"); err == nil || !strings.Contains(err.Error(), "data/no-such-dataset.csv not found above") {
		t.Errorf("missing dataset: err = %v", err)
	}
}
