// Package modeltest holds the helpers the models' tests share: a point of a
// registered model built from keys and run, as a sweep runs it, and a
// figure of its outcome by name.
package modeltest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/lbsim/notebooks/lbsim/model"
)

// Point builds the point of the registered model name from the keys kv
// (Model.Point with seed and reps, as a sweep does) and runs it on workers
// goroutines (0: one per core). It fails t if the model is not registered
// or a key is refused; an error of the point or the run is returned.
func Point(t testing.TB, name string, kv map[string]any, seed uint64, reps, workers int) (*model.Model, *model.Outcome, error) {
	t.Helper()
	m, err := model.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	v := m.Keys.New()
	for k, x := range kv {
		if err := v.Set(k, x); err != nil {
			t.Fatal(err)
		}
	}
	v, err = m.Point(v, seed, reps)
	if err != nil {
		return m, nil, err
	}
	out, err := m.Run(context.Background(), v, workers, nil)
	if err != nil {
		return m, out, err
	}
	// Run makes its files (a trace a key names) for its caller to write, as
	// the command line and sweeps do once the point has succeeded; a file
	// that exists already is refused, never replaced.
	for _, f := range out.Files {
		file, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return m, out, err
		}
		err = f.Write(file)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return m, out, nil
}

// Figure returns the figure of out named name, or nil.
func Figure(out *model.Outcome, name string) *model.Figure {
	for i := range out.Figures {
		if out.Figures[i].Name == name {
			return &out.Figures[i]
		}
	}
	return nil
}

// JSONBytes fails t unless the JSON encodings of values (encoding/json, one
// line each) are byte for byte the file golden: the check that a result's
// encoding writes what its command has always written.
func JSONBytes(t testing.TB, golden string, values ...any) {
	t.Helper()
	var got bytes.Buffer
	for _, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(b)
		got.WriteByte('\n')
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("JSON:\n%s\nwant (%s):\n%s", got.Bytes(), golden, want)
	}
}
