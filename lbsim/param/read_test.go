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

// Keys given twice, or in two cases, are refused at any depth (encoding/json
// would keep the last silently); DecodeStrict also refuses upper case, which
// encoding/json would match to a field without regard to case.
func TestDuplicateKeys(t *testing.T) {
	s := NewSet("test", "")
	s.Add(Key{Name: "servers", Kind: Int, Doc: "n"}, Key{Name: "lambda", Kind: Float, Doc: "l"})
	for _, c := range []struct{ json, want string }{
		{`{"servers": 1, "servers": 2}`, `servers: duplicate key "servers"`},
		{`{"servers": 1, "Servers": 2}`, `Servers: keys "servers" and "Servers" differ only in case`},
		{`{"SERVERS": 1, "lambda": 0.5, "Lambda": 0.6}`, `Lambda: keys "lambda" and "Lambda" differ only in case`},
	} {
		if _, err := s.DecodeJSON([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DecodeJSON(%s): %v, want %q", c.json, err, c.want)
		}
	}
	var opts struct {
		Out  string         `json:"out"`
		Base map[string]int `json:"base"`
		List []struct {
			From int `json:"from"`
		} `json:"list"`
	}
	for _, c := range []struct{ json, want string }{
		{`{"Out": "x"}`, `Out: key "Out" must be lower case ("out")`},
		{`{"out": "x", "out": "y"}`, `out: duplicate key "out"`},
		{`{"base": {"a": 1, "a": 2}}`, `base.a: duplicate key "a"`},
		{`{"list": [{"from": 1}, {"from": 1, "From": 2}]}`, `list[1].From: keys "from" and "From"`},
	} {
		if err := DecodeStrict([]byte(c.json), &opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DecodeStrict(%s): %v, want %q", c.json, err, c.want)
		}
	}
	if err := DecodeStrict([]byte(`{"out": "Out", "base": {"a": 1, "b": 2}, "list": [{"from": 1}, {"from": 2}]}`), &opts); err != nil {
		t.Errorf("valid: %v", err)
	}
}
