package main

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/lbsim/notebooks/lbsim/model"
)

// The memory estimates of the models other than dispatch (Model.Memory,
// which `--max-memory` checks before anything is allocated) bound the peak
// of the live heap of a whole command, from parsing to encoding (sampled
// every millisecond), at each model's cost drivers, and are at most 6 times
// it. The estimate is read from the refusal at a limit of 1 byte.
func TestModelMemoryEstimates(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates hundreds of megabytes")
	}
	for _, args := range [][]string{
		{"admission", "--servers", "100", "--beta", "0.5", "--thresholds", "0:300000"},
		{"trickle", "--nodes", "200000", "--horizon", "3"},
		{"trickle", "--nodes", "200000", "--topology", "geometric", "--radius", "0.006", "--horizon", "3"},
		{"trickle", "--nodes", "250000", "--topology", "torus", "--radius", "0.006", "--horizon", "3"},
		{"csma", "--conflict", "path:20000", "--targets", "0.3x20000", "--windows", "3"},
		{"flows", "--servers", "100000", "--lambda", "0.8", "--policy", "jsq", "--horizon", "20"},
		{"flows", "--servers", "1000", "--lambda", "0.8", "--policy", "bins", "--bins", "2000000", "--horizon", "20"},
		{"flows", "--servers", "20000", "--lambda", "0.8", "--policy", "sticky", "--packets-per-flow", "1000", "--packet-rate", "0.01", "--horizon", "5"},
		{"redundancy", "--servers", "100000", "--lambda", "0.5", "--horizon", "2"},
		{"redundancy", "--servers", "100000", "--lambda", "0.5", "--d", "10", "--horizon", "2"},
	} {
		code, _, stderr := cli(t, context.Background(), append(args, "--max-memory", "1")...)
		_, after, ok := strings.Cut(stderr, "needs about ")
		estimate, err := model.ParseBytes(strings.ReplaceAll(strings.SplitN(after, " of memory", 2)[0], " ", ""))
		if code != exitUsage || !ok || err != nil {
			t.Fatalf("lbsim %q at --max-memory 1: exit %d, %q; want a refusal stating the estimate", args, code, stderr)
		}
		var peak float64
		if code, _, stderr := peakHeap(t, &peak, args); code != 0 {
			t.Fatalf("lbsim %q: exit %d, %s", args, code, stderr)
		}
		t.Logf("lbsim %s: estimate %s, peak live heap %s", strings.Join(args, " "), model.FormatBytes(estimate), model.FormatBytes(peak))
		if !(peak <= estimate && estimate <= 6*peak) {
			t.Errorf("lbsim %q: estimate %s, peak live heap %s: want peak <= estimate <= 6 peak", args,
				model.FormatBytes(estimate), model.FormatBytes(peak))
		}
	}
}

// peakHeap runs args in-process, stores in *peak the largest live heap
// (heap objects, runtime/metrics) seen every millisecond above the heap
// before the run, and returns what cli returns.
func peakHeap(t *testing.T, peak *float64, args []string) (int, string, string) {
	t.Helper()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() float64 { metrics.Read(sample); return float64(sample[0].Value.Uint64()) }
	runtime.GC()
	base := read()
	stop, done := make(chan struct{}), make(chan float64)
	go func() {
		most := 0.0
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				done <- most
				return
			case <-tick.C:
				most = max(most, read()-base)
			}
		}
	}()
	code, stdout, stderr := cli(t, context.Background(), args...)
	close(stop)
	*peak = <-done
	return code, stdout, stderr
}
