package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Output files are staged: each is written in full to a temporary file in
// its own directory, and only when everything succeeded (and the context is
// not cancelled) are they renamed into place, just before the result goes to
// stdout. So a failed or interrupted command leaves no output file and
// removes nothing but its own temporary files; an existing file at the path
// is replaced only if it is a regular file.

// checkOutputPath refuses, before a run, an output path whose directory does
// not exist or that names something other than a regular file.
func checkOutputPath(key, path string) error {
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return failure(fmt.Errorf("%s = %q: its directory does not exist", key, path))
	}
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return failure(fmt.Errorf("%s = %q: exists and is not a regular file (%s); lbsim only replaces regular files",
			key, path, describeMode(st.Mode())))
	}
	return nil
}

func describeMode(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&(os.ModeDevice|os.ModeCharDevice) != 0:
		return "a device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	}
	return "not a regular file"
}

// A staged file is an output written to a temporary file beside its path;
// keep, if set, means that an existing file at path is never replaced (the
// temporary file is hard-linked into place, which fails on an existing file).
type staged struct {
	key, path, tmp string
	keep           bool
}

// outputs is the set of files a command stages.
type outputs struct{ files []*staged }

// stage writes an output through write into a temporary file beside path.
// On failure the temporary file is removed and path is untouched.
func (o *outputs) stage(key, path string, write func(io.Writer) error) error {
	if err := checkOutputPath(key, path); err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+strings.TrimPrefix(base, ".")+".lbsim-tmp-*")
	if err != nil {
		return failure(fmt.Errorf("%s = %q: %w", key, path, pathErr(err)))
	}
	bw := bufio.NewWriterSize(f, 1<<16)
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
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		os.Remove(f.Name())
		return failure(fmt.Errorf("%s = %q: writing: %w", key, path, pathErr(err)))
	}
	o.files = append(o.files, &staged{key: key, path: path, tmp: f.Name()})
	return nil
}

// discard removes the temporary files (after a failure).
func (o *outputs) discard() {
	for _, s := range o.files {
		os.Remove(s.tmp)
	}
	o.files = nil
}

// commit renames the staged files into place and then writes data (the
// command's result) to stdout, unless ctx is cancelled first (a signal during
// the run or the encoding): then nothing is renamed or written and the
// temporary files are removed.
func (o *outputs) commit(ctx context.Context, stdout io.Writer, data []byte) error {
	if err := ctx.Err(); err != nil {
		o.discard()
		return err
	}
	for i, s := range o.files {
		if err := checkOutputPath(s.key, s.path); err != nil {
			(&outputs{o.files[i:]}).discard()
			return err
		}
		var err error
		if s.keep {
			if err = os.Link(s.tmp, s.path); err == nil {
				os.Remove(s.tmp)
			}
		} else {
			err = os.Rename(s.tmp, s.path)
		}
		if err != nil {
			(&outputs{o.files[i:]}).discard()
			return failure(fmt.Errorf("%s = %q: %w", s.key, s.path, pathErr(err)))
		}
	}
	o.files = nil
	return writeResult(ctx, stdout, data)
}

// keepExisting refuses, before a run, an output path that exists: for the
// outputs that lbsim never replaces (stage them with keep).
func keepExisting(key, path string) error {
	if _, err := os.Lstat(path); err == nil {
		return usageErr("%s = %q: exists; lbsim does not replace it (remove it or choose another path)", key, path)
	}
	return nil
}

// writeOutput writes data to path as one staged output with mode perm; with
// keep, an existing file at path is refused, never replaced.
func writeOutput(ctx context.Context, key, path string, data []byte, perm os.FileMode, keep bool) error {
	var o outputs
	defer o.discard()
	if keep {
		if err := keepExisting(key, path); err != nil {
			return err
		}
	}
	err := o.stage(key, path, func(w io.Writer) error { _, err := w.Write(data); return err })
	if err == nil {
		o.files[0].keep = keep
	}
	if err == nil && perm != 0o644 {
		if err = os.Chmod(o.files[0].tmp, perm); err != nil {
			err = failure(fmt.Errorf("%s = %q: %w", key, path, pathErr(err)))
		}
	}
	if err != nil {
		return err
	}
	return o.commit(ctx, io.Discard, nil)
}

// errNoTrajectory is the failure of an output that the run did not record.
var errNoTrajectory = errors.New("the run recorded none")
