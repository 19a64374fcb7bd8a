package param

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// endless is a reader that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '1'
	}
	return len(p), nil
}

func TestReadAllBounded(t *testing.T) {
	data, err := ReadAll(strings.NewReader("abc"), 3)
	if err != nil || string(data) != "abc" {
		t.Errorf("at the limit: %q, %v", data, err)
	}
	if _, err := ReadAll(strings.NewReader("abcd"), 3); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "larger than 3 bytes") {
		t.Errorf("above the limit: %v", err)
	}
	if _, err := ReadAll(endless{}, 1<<20); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("endless: %v", err)
	}
	// A streaming parser sees the error once the limit is passed, having read
	// at most limit+1 bytes.
	r := LimitReader(endless{}, 10)
	n, err := io.Copy(io.Discard, r)
	if !errors.Is(err, ErrTooLarge) || n != 11 {
		t.Errorf("LimitReader: %d bytes, %v", n, err)
	}
	if _, err := ReadFile("/nonexistent/x", 10); err == nil {
		t.Error("ReadFile of a missing file")
	}
}
