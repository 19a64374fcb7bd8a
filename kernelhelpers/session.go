package kernelhelpers

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// GoNB runs every cell as a new program, so a value computed in one cell is
// gone in the next. Keep and Recall carry results between the cells of one
// kernel session, as JSON files in the session's temporary directory
// ($GONB_TMP_DIR, which GoNB creates per kernel and removes on exit; outside a
// notebook, a directory under os.TempDir() named after the parent process).
// Keep always overwrites, so a re-run cell never leaves a stale value behind;
// a notebook's check cells Recall what the cells above measured.

var validName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func sessionFile(name string) (string, error) {
	if !validName.MatchString(name) {
		return "", fmt.Errorf("kernelhelpers: name %q: use letters, digits, '.', '_' or '-'", name)
	}
	dir := os.Getenv("GONB_TMP_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("lbsim-session-%d", os.Getppid()))
	}
	dir = filepath.Join(dir, "lbsim-kept")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("kernelhelpers: %w", err)
	}
	return filepath.Join(dir, name+".json"), nil
}

// keep stores v (any JSON-encodable value) under name for later cells of this
// kernel session.
func keep(name string, v any) error {
	path, err := sessionFile(name)
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("kernelhelpers: keeping %s: %w", name, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("kernelhelpers: keeping %s: %w", name, err)
	}
	return os.Rename(tmp, path)
}

// recall loads into v the value kept under name, with an error that says which
// cell to run when there is none.
func recall(name string, v any) error {
	path, err := sessionFile(name)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return fmt.Errorf("kernelhelpers: nothing kept under %q in this kernel session: run the cell that computes it first", name)
	}
	if err != nil {
		return fmt.Errorf("kernelhelpers: recalling %s: %w", name, err)
	}
	return json.Unmarshal(b, v)
}
