package param

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

// ErrTooLarge is matched (errors.Is) by the error of a read beyond its limit.
var ErrTooLarge = errors.New("input too large")

// ReadAll reads r to its end, at most limit bytes: a longer input (a file
// that never ends, such as /dev/zero or an endless pipe) is an error saying
// the limit, and nothing more than limit+1 bytes is read or held. A read
// that blocks (standard input from a pipe) is cancelled by the interrupt
// context (see Open).
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(LimitReader(cancellable(r), limit))
	if err != nil {
		return nil, err
	}
	return data, nil
}

// LimitReader returns a reader of r that fails with an error wrapping
// ErrTooLarge once more than limit bytes would be read, for parsers that
// stream their input (edge lists, empirical samples).
func LimitReader(r io.Reader, limit int64) io.Reader {
	return &limitedReader{r: r, left: limit, limit: limit}
}

type limitedReader struct {
	r           io.Reader
	left, limit int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, l.tooLarge()
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, l.tooLarge()
	}
	return n, err
}

func (l *limitedReader) tooLarge() error {
	return fmt.Errorf("larger than %s, the limit of this input: %w", formatSize(l.limit), ErrTooLarge)
}

func formatSize(b int64) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d bytes", b)
}

// ReadFile reads the named file (or a device or pipe) through Open: at most
// limit bytes, cancellably.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the path quoted: it may hold any byte
			return nil, fmt.Errorf("%q: %s: %w", path, pe.Op, pe.Err)
		}
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", path, err)
	}
	return data, nil
}

// checkKeys walks the JSON value data and refuses, in any object, a key given
// twice or two keys that differ only in case (encoding/json would keep the
// last one silently); with lower, also a key with an upper-case letter
// (encoding/json matches struct fields without regard to case, and every key
// lbsim declares is lower case). Malformed JSON is left to the decoder.
func checkKeys(data []byte, lower bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// The path to the current value, as segments (".key", "[i]"), joined only
	// for an error message: building it at every level would cost the square
	// of the depth.
	var path []string
	where := func() string { return strings.TrimPrefix(strings.Join(path, ""), ".") }
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return nil // the decoder reports it
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		if len(path) >= MaxDepth {
			return fmt.Errorf("nested deeper than %d levels", MaxDepth)
		}
		switch d {
		case '[':
			for i := 0; dec.More(); i++ {
				path = append(path, "["+strconv.Itoa(i)+"]")
				err := walk()
				path = path[:len(path)-1]
				if err != nil {
					return err
				}
			}
		case '{':
			seen := map[string]string{} // lower-case key -> key as given
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return nil
				}
				key, _ := tok.(string)
				path = append(path, "."+key)
				if prev, dup := seen[strings.ToLower(key)]; dup {
					if prev == key {
						return fmt.Errorf("%s: duplicate key %q (give each key once)", where(), key)
					}
					return fmt.Errorf("%s: keys %q and %q differ only in case (give each key once, in lower case)", where(), prev, key)
				}
				if lower && key != strings.ToLower(key) {
					return fmt.Errorf("%s: key %q must be lower case (%q)", where(), key, strings.ToLower(key))
				}
				seen[strings.ToLower(key)] = key
				err = walk()
				path = path[:len(path)-1]
				if err != nil {
					return err
				}
			}
		}
		_, _ = dec.Token() // the closing delimiter
		return nil
	}
	return walk()
}

// MaxDepth bounds the nesting of the JSON (and YAML) inputs lbsim reads;
// every input it declares is a few levels deep.
const MaxDepth = 100
