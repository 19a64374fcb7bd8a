package kernelhelpers

import (
	"strings"
	"testing"
)

func TestKeepRecall(t *testing.T) {
	t.Setenv("GONB_TMP_DIR", t.TempDir())
	type summary struct {
		Q  []float64
		OK bool
	}
	if err := keep("stationary", summary{Q: []float64{0.9, 0.729}, OK: true}); err != nil {
		t.Fatal(err)
	}
	if err := keep("stationary", summary{Q: []float64{0.5}}); err != nil { // overwrite
		t.Fatal(err)
	}
	var got summary
	if err := recall("stationary", &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Q) != 1 || got.Q[0] != 0.5 || got.OK {
		t.Fatalf("recalled %+v, want the last kept value", got)
	}
	if err := recall("missing", &got); err == nil || !strings.Contains(err.Error(), "run the cell") {
		t.Fatalf("missing key: %v", err)
	}
	if err := keep("../escape", 1); err == nil {
		t.Fatal("a name with a path separator was accepted")
	}
}
