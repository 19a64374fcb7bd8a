package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Write replaces a file only when asked, never leaves its temporary file
// behind, and leaves no file when the writer fails.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	put := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := Write(path, false, put("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, false, put("two")); err == nil {
		t.Error("replaced an existing file without replace")
	}
	if data, _ := os.ReadFile(path); string(data) != "one" {
		t.Errorf("content %q, want one", data)
	}
	if err := Write(path, true, put("three")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "three" {
		t.Errorf("content %q, want three", data)
	}
	failed := filepath.Join(dir, "g.txt")
	if err := Write(failed, false, func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Error("a failing writer gave no error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only f.txt", len(entries))
	}
}
