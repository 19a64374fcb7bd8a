package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/lbsim/notebooks/lbsim"
)

// progressPrinter reports an lbsim.Progress stream on a writer: on a terminal
// as one line rewritten in place at most 10 times a second, elsewhere (a log
// file, a pipe) as a new line at most once a second. The last report, when
// every replication is done, is always shown.
type progressPrinter struct {
	w      io.Writer
	prefix string
	tty    bool
	every  time.Duration
	start  time.Time

	mu    sync.Mutex
	last  time.Time
	shown bool // a line is on screen
}

func newProgressPrinter(w io.Writer, prefix string) *progressPrinter {
	p := &progressPrinter{w: w, prefix: prefix, every: time.Second, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty, p.every = true, 100*time.Millisecond
		}
	}
	return p
}

// update is the lbsim.Scenario.Progress callback.
func (p *progressPrinter) update(pr lbsim.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	final := pr.Done == pr.Replications
	if !final && now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start)
	eta := "?"
	if pr.Fraction > 0 {
		eta = round(time.Duration(float64(elapsed) * (1 - pr.Fraction) / pr.Fraction)).String()
	}
	line := fmt.Sprintf("%s: %5.1f%% done, %d/%d replications finished, elapsed %s, ETA %s",
		p.prefix, 100*pr.Fraction, pr.Done, pr.Replications, round(elapsed), eta)
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.shown = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// end finishes the line on a terminal. It may be called on a nil printer.
func (p *progressPrinter) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

func round(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
