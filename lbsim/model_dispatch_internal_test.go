package lbsim

import (
	"context"
	"encoding/json"
	"testing"
)

// A sweep's dispatch point has its keys completed once, by Model.Point: the
// memory estimate and Validate (within Point), Run and the point file's
// result complete them no more, and its printed scenario is what completing
// its fields afresh gives.
func TestPointKeysCompletedOnce(t *testing.T) {
	for _, keys := range runKeys() {
		v := Keys.New()
		for name, x := range keys {
			if err := v.Set(name, x); err != nil {
				t.Fatal(err)
			}
		}
		n := countCompletions(t)
		pv, err := Dispatch.Point(v, 3, 2)
		if err != nil {
			t.Fatalf("%v: %v", keys, err)
		}
		out, err := Dispatch.Run(context.Background(), pv, 1, nil)
		if err != nil {
			t.Fatalf("%v: %v", keys, err)
		}
		data, err := json.Marshal(out.Result)
		if err != nil {
			t.Fatal(err)
		}
		if *n != 0 {
			t.Errorf("%v: the keys of a point were completed %d times after Model.Point's completion, want 0", keys, *n)
		}
		checkPrinted(t, keys, out.Result.(*Result), data)
	}
}
