package param

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
)

// Every input lbsim reads from a file or a pipe (scenario and sweep files,
// edge lists, conflict graphs, samples, point files) goes through Open or
// ReadAll: bounded (an input that never ends is an error at its limit) and
// cancellable. A named pipe that no process ever opens for writing blocks
// open(2) forever, and a pipe that stays open without data blocks read(2);
// both are waited for in a goroutine, so that once the interrupt context
// (SetInterrupt: the command line's SIGINT/SIGTERM context) is done, the
// blocked Open or Read returns an error wrapping ErrInterrupted at once.
// Regular files, which never block, are read directly.

// ErrInterrupted is matched (errors.Is) by the error of an Open or Read
// cancelled by the interrupt context; it wraps context.Canceled.
var ErrInterrupted = fmt.Errorf("interrupted while reading: %w", context.Canceled)

var (
	interruptMu  sync.Mutex
	interruptCtx = context.Background()
)

// SetInterrupt makes ctx cancel every Open and Read of this package that
// blocks (until restore is called, which puts back the previous context).
// The command line sets its signal context for the time of a command.
func SetInterrupt(ctx context.Context) (restore func()) {
	interruptMu.Lock()
	prev := interruptCtx
	interruptCtx = ctx
	interruptMu.Unlock()
	return func() {
		interruptMu.Lock()
		interruptCtx = prev
		interruptMu.Unlock()
	}
}

// Interrupted returns an error wrapping context.Canceled once the interrupt
// context (SetInterrupt) is done, else nil. It is the cancellation check of
// work that has no context of its own: the validation of a point
// (model.Model.Validate, which a sweep runs for every point before the first
// one starts) and the exact solvers it calls. A loop that can run long calls
// it every few thousand steps and returns its error.
func Interrupted() error {
	if err := interruptContext().Err(); err != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	return nil
}

func interruptContext() context.Context {
	interruptMu.Lock()
	defer interruptMu.Unlock()
	return interruptCtx
}

// Open opens the named file, device or pipe (also /dev/stdin and a
// process substitution /dev/fd/N) for reading at most limit bytes: reading
// beyond them fails with an error wrapping ErrTooLarge. A blocked open or
// read is cancelled by the interrupt context (SetInterrupt). Errors of the
// open are *fs.PathError, as those of os.Open.
func Open(path string, limit int64) (io.ReadCloser, error) {
	ctx := interruptContext()
	if ctx.Err() != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrInterrupted}
	}
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return &input{limitedReader: limitedReader{r: &blocking{r: f, f: f, ctx: ctx, direct: true}, left: limit, limit: limit}, c: f}, nil
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			return nil, o.err
		}
		return &input{limitedReader: limitedReader{r: &blocking{r: o.f, f: o.f, ctx: ctx}, left: limit, limit: limit}, c: o.f}, nil
	case <-ctx.Done():
		go func() { // the open may still succeed (a writer comes): close it then
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrInterrupted}
	}
}

// input is an opened file read through its limit.
type input struct {
	limitedReader
	c io.Closer
}

func (in *input) Close() error { return in.c.Close() }

// blocking reads r, which may block (a pipe), cancellably: each read runs
// in a goroutine into a buffer of its own, and the interrupt context's end
// abandons it (closing f, if set, to wake it) and fails every later read.
// With direct, r does not block and is read in place.
type blocking struct {
	r      io.Reader
	f      *os.File
	ctx    context.Context
	direct bool
	buf    []byte
	err    error
}

// maxChunk bounds one read of a blocking input (and the buffer it needs).
const maxChunk = 64 << 10

type readResult struct {
	n   int
	err error
}

func (b *blocking) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.ctx.Err() != nil {
		b.err = ErrInterrupted
		return 0, b.err
	}
	if b.direct || len(p) == 0 {
		return b.r.Read(p)
	}
	if len(p) > maxChunk {
		p = p[:maxChunk]
	}
	if cap(b.buf) < len(p) {
		b.buf = make([]byte, len(p))
	}
	buf := b.buf[:len(p)]
	ch := make(chan readResult, 1)
	go func() {
		n, err := b.r.Read(buf)
		ch <- readResult{n, err}
	}()
	select {
	case res := <-ch:
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-b.ctx.Done():
		b.err = ErrInterrupted // buf belongs to the abandoned read from now on
		if b.f != nil {
			b.f.Close()
		}
		return 0, b.err
	}
}

// cancellable wraps a reader of unknown kind (standard input) so that a
// blocked read is cancelled by the interrupt context.
func cancellable(r io.Reader) io.Reader {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return r
		}
	}
	return &blocking{r: r, ctx: interruptContext()}
}

// IsInterrupted reports whether err comes from a read cancelled by the
// interrupt context.
func IsInterrupted(err error) bool { return errors.Is(err, ErrInterrupted) }
