package kernelhelpers

import (
	"math"
	"strings"
	"testing"
)

func TestSanityAtMost(t *testing.T) {
	out, failed := capture(func() { SanityAtMost("p99.99 within Erlang(5)", 15.6, 17.8, 0.6, "enforced") })
	if failed != "" || !strings.HasPrefix(out, "PASS  sanity: p99.99 within Erlang(5): got 15.6, at most 17.8, margin 2.2, tol 0.6 (enforced)") {
		t.Errorf("below the bound: %q (failed %q)", out, failed)
	}
	// Above the bound but within tol passes; beyond it fails; NaN fails.
	if _, failed := capture(func() { SanityAtMost("x", 9.24, 9.21, 0.3, "") }); failed != "" {
		t.Errorf("within tol: failed %q", failed)
	}
	if _, failed := capture(func() { SanityAtMost("x", 10, 9.21, 0.3, "") }); !strings.HasPrefix(failed, "sanity: x: got 10") {
		t.Errorf("beyond tol: %q", failed)
	}
	if _, failed := capture(func() { SanityAtMost("x", math.NaN(), 9.21, 0.3, "") }); failed == "" {
		t.Error("NaN passed")
	}
}
