package kernelhelpers

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// DataPath returns the path of rel inside the repository's data/ directory
// (for example "01-jsqd-finite-n.csv" or "specs/02-er-scaling.json"), found by
// walking up from the working directory, from $GONB_DIR (the notebook's
// directory) and from this package's source directory, so that a notebook
// finds the datasets wherever it is run from (notebooks/, a copy elsewhere in
// the checkout, Binder's home).
func DataPath(rel string) (string, error) {
	p, starts, ok := findAbove(filepath.Join("data", rel))
	if !ok {
		return "", fmt.Errorf("kernelhelpers: data/%s not found above %s (the datasets are committed in the repository's data/ directory; data/README.md says how to regenerate them)",
			rel, strings.Join(starts, ", "))
	}
	return p, nil
}

// findAbove returns the first existing file rel found walking up from the
// working directory, $GONB_DIR and this package's source directory, and the
// directories it started from.
func findAbove(rel string) (path string, starts []string, ok bool) {
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if d := os.Getenv("GONB_DIR"); d != "" {
		starts = append(starts, d)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, s := range starts {
		for dir := s; ; {
			p := filepath.Join(dir, rel)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, starts, true
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", starts, false
}
