// Package atomicfile writes files that appear complete or not at all: the
// content goes to a temporary file in the target's directory, is synced,
// and is then renamed (or hard-linked, to never replace a file) into
// place.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes what write produces to path atomically. With replace, an
// existing file at path is replaced (rename); without, Write fails if path
// exists, even if it was created while writing (a hard link, which never
// replaces). The temporary file is removed in every case.
func Write(path string, replace bool, write func(w io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil && replace {
		err = os.Rename(tmp, path)
	} else if err == nil {
		err = os.Link(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("writing %q: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // make the rename durable; not all file systems support it
		d.Close()
	}
	return nil
}
