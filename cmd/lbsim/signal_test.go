package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Inputs that block: a named pipe no process opens for writing (open(2)
// waits for a writer) and one whose writer never writes (read(2) waits),
// given as every kind of input file; standard input that never ends. Each
// command ends with exit 130, nothing on stdout and one line saying it was
// interrupted, once its context is cancelled (as SIGINT or SIGTERM does).
// The outcome does not depend on when the cancellation comes: the pipe
// never delivers, so the command can only end through it; the wait for the
// command is bounded.
func TestBlockedInputsInterrupted(t *testing.T) {
	for _, mode := range []string{"no writer", "silent writer"} {
		// at(name) is a named pipe of this mode, holding the name's place.
		at := func(name string) string { return blockingPipe(t, name, mode == "silent writer") }
		sweepDir := func(blocked string) string { // a sweep directory whose sweep.json or point file blocks
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "points"), 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, blocked)
			p := at("p")
			if err := os.Rename(p, path); err != nil {
				t.Fatal(err)
			}
			if blocked != "sweep.json" {
				spec := `{"seed": 1, "replications": 1, "base": {"servers": 10, "policy": "jsq", "horizon": 10}, "axes": [{"lambda": [0.5]}]}`
				if err := os.WriteFile(filepath.Join(dir, "sweep.json"), []byte(spec), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			return dir
		}
		out := filepath.Join(t.TempDir(), "m.csv")
		// Inputs read more than once (a graph is checked, then built) must be
		// regular files: a pipe there is refused at once (want: the message,
		// exit 2); the others are read once and a pipe works (want "": exit 130).
		cases := []struct {
			args []string
			want string
		}{
			{[]string{"run", at("scenario.json")}, ""},
			{[]string{"exact", at("scenario.json")}, ""},
			{[]string{"meanfield", at("scenario.json")}, ""},
			{[]string{"redundancy", at("scenario.json")}, ""},
			{[]string{"admission", at("scenario.json")}, ""},
			{[]string{"csma", at("scenario.json")}, ""},
			{[]string{"flows", at("scenario.json")}, ""},
			{[]string{"trickle", at("scenario.json")}, ""},
			{[]string{"sweep", at("spec.json"), "--out", filepath.Join(t.TempDir(), "s")}, ""},
			{[]string{"slurm", at("spec.json"), "--out", t.TempDir()}, ""},
			{[]string{"k8s", at("spec.json"), "--image", "x"}, ""},
			{[]string{"run", "--servers", "4", "--lambda", "0.5", "--policy", "jsqd", "--service", "empirical:file=" + at("samples.txt")}, ""},
			{[]string{"flows", "--servers", "4", "--lambda", "0.5", "--policy", "static", "--service", "empirical:file=" + at("samples.txt")}, ""},
			{[]string{"csma", "--conflict", at("conflict.txt"), "--utility", "log"}, ""},
			{[]string{"trickle", "--nodes", "4", "--graph", at("hearing.txt")}, ""},
			{[]string{"merge", sweepDir("sweep.json"), "--out", out}, ""},
			{[]string{"merge", sweepDir("points/point-000000.json"), "--out", out}, ""},
			{[]string{"run", "--servers", "4", "--lambda", "0.5", "--policy", "neighbour-jsq", "--graph", at("g.txt")}, "not a regular file"},
			{[]string{"run", "--servers", "4", "--lambda", "0.5", "--policy", "compat-jsqd", "--compat-graph", at("c.txt"), "--types", "2"}, "not a regular file"},
			{[]string{"run", "--servers", "4", "--lambda", "0.5", "--policy", "pair-jsq", "--pairs", at("pairs.txt")}, "not a regular file"},
			{[]string{"redundancy", "--servers", "4", "--lambda", "0.5", "--pairs", at("pairs.txt")}, "not a regular file"},
		}
		count := newTally(t)
		for _, c := range cases {
			count.add(c.args)
			if c.want != "" {
				code, stdout, stderr := cli(t, context.Background(), c.args...)
				if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
					t.Errorf("%s: lbsim %q: exit %d, stdout %.80q, stderr %q; want 2 and one line: %s", mode, c.args, code, stdout, stderr, c.want)
				}
				continue
			}
			interrupted(t, mode, c.args, strings.NewReader(""))
		}
		// Standard input that never ends.
		r, w := io.Pipe()
		t.Cleanup(func() { w.Close() })
		count.add([]string{"run"})
		interrupted(t, mode, []string{"run", "-"}, r)
	}
}

// interrupted runs args in-process, cancels its context after it started
// and checks that it ends, within a bounded wait, with exit 130.
func interrupted(t *testing.T, mode string, args []string, stdin io.Reader) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errOut bytes.Buffer
		code := run(ctx, args, stdin, &out, &errOut)
		done <- result{code, out.String(), errOut.String()}
	}()
	time.Sleep(20 * time.Millisecond) // most often blocked by now; the outcome is the same either way
	cancel()
	select {
	case r := <-done:
		if r.code != exitInterrupted || r.stdout != "" || !strings.Contains(r.stderr, "interrupted") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: lbsim %q: exit %d, stdout %.80q, stderr %q; want 130 and one line: interrupted", mode, args, r.code, r.stdout, r.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: lbsim %q: still running 20 s after its context was cancelled", mode, args)
	}
}

// blockingPipe makes a named pipe that blocks its reader: with writer, a
// process opens it for writing and never writes (the read blocks), else
// none does (the open blocks). Cleanup wakes what is still blocked.
func blockingPipe(t *testing.T, name string, writer bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes: %v", err)
	}
	stop := make(chan struct{})
	if writer {
		go func() {
			for {
				f, err := os.OpenFile(path, os.O_WRONLY, 0) // waits for a reader
				if err != nil {
					return
				}
				select {
				case <-stop:
					f.Close()
					return
				case <-time.After(time.Hour):
				}
				f.Close()
			}
		}()
	}
	t.Cleanup(func() {
		close(stop)
		// Wake an open still waiting on either side, then let it go.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		os.Remove(path)
	})
	return path
}

// SIGINT and SIGTERM sent to a real lbsim process blocked on opening a named
// pipe end it with exit 130: the signal is sent once the kernel shows a
// thread of the process waiting in the pipe's open (wait_for_partner in
// /proc/PID/task/*/wchan), so the test does not depend on timing.
func TestSignalWhileBlocked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	exe := buildCommand(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		fifo := blockingPipe(t, "scenario.json", false)
		cmd := exec.Command(exe, "run", fifo)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for !waitsInOpen(cmd.Process.Pid) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%v: the process never blocked in the pipe's open", sig)
			}
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: still running 20 s after the signal", sig)
		}
		if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || stdout.Len() != 0 ||
			!strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 130, nothing, interrupted", sig, code, stdout.String(), stderr.String())
		}
	}
}

// waitsInOpen reports whether a thread of process pid sleeps in the open of
// a named pipe.
func waitsInOpen(pid int) bool {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
	for _, w := range tasks {
		if b, err := os.ReadFile(w); err == nil && strings.Contains(string(b), "wait_for_partner") {
			return true
		}
	}
	return false
}

// SIGINT sent to a real lbsim process half a second into a phase that only
// computes (no input to wait on) ends it with exit 130 within 3 s, nothing on
// stdout and one line on stderr. Each case was still computing, ignoring the
// signal for 4 s to minutes, before its loop polled for the interrupt: the
// scan of an admission system of 10^15 servers at validation, a revenue
// curve of 1.6*10^7 thresholds being formatted and encoded, neighbour JSQ on
// er-implicit at 10^7 servers (each arrival tests about 10^6 servers), the
// construction of a geometric hearing graph of 10^8 edges, the neighbour
// lists of er-implicit at 1.3*10^5 servers (8.5*10^9 pairs tested, 52 s).
func TestSignalWhileComputing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs large inputs")
	}
	exe := buildCommand(t)
	cases := [][]string{
		{"admission", "--servers", "1000000000000000", "--beta", "0.5"},
		{"admission", "--servers", "1000000", "--beta", "0.5", "--thresholds", "0:16000000"},
		{"run", "--servers", "10000000", "--lambda", "0.5", "--policy", "neighbour-jsq", "--topology", "er-implicit", "--degree", "10", "--horizon", "1"},
		{"trickle", "--nodes", "1000000", "--topology", "geometric", "--radius", "0.006", "--horizon", "3"},
		{"run", "--servers", "130000", "--lambda", "0.5", "--policy", "neighbour-jsqd", "--d", "2", "--topology", "er-implicit", "--degree", "10", "--horizon", "0.001"},
	}
	count := newTally(t)
	for _, args := range cases {
		count.add(args)
		cmd := exec.Command(exe, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			t.Errorf("lbsim %q: ended before the signal (exit %d, stderr %q); the case must still be computing after 0.5 s",
				args, cmd.ProcessState.ExitCode(), stderr.String())
			continue
		case <-time.After(500 * time.Millisecond):
		}
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("lbsim %q: still running 3 s after SIGINT", args)
			continue
		}
		latency := time.Since(sent)
		t.Logf("lbsim %s: exit %d %.3f s after SIGINT", args[0], cmd.ProcessState.ExitCode(), latency.Seconds())
		if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || stdout.Len() != 0 ||
			!strings.Contains(stderr.String(), "interrupted") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("lbsim %q: exit %d, stdout %.80q, stderr %q; want 130, nothing, one line: interrupted", args, code, stdout.String(), stderr.String())
		}
	}
}

// buildCommand builds lbsim into a temporary directory and returns its path.
func buildCommand(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "lbsim")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return exe
}
