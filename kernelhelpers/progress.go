package kernelhelpers

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Bar is a progress bar drawn in the notebook and updated in place (a GoNB
// display id); NewProgressBar makes one, and it is the one progress API: Update
// takes lbsim's reports (sc.Progress = bar.Update), Set a fraction from a
// model's Progress func(float64), Step a loop's count, Finish the end. It is
// safe for concurrent use; redraws are throttled (Interval, default 250ms),
// except the final 100% state, which is always drawn.
type Bar struct {
	mu       sync.Mutex
	id       string
	label    string
	interval time.Duration
	start    time.Time
	last     time.Time
	frac     float64
	note     string
	done     bool
	draws    int
}

// now is the clock, replaced by the tests.
var now = time.Now

// NewProgressBar makes a progress bar labelled label and draws it at 0%.
func NewProgressBar(label string, options ...Option) *Bar {
	c := newConfig(options)
	if err := c.refuse("NewProgressBar", progressOptions); err != nil {
		panic(err)
	}
	b := &Bar{id: newID("progress"), label: label, interval: c.interval, start: now()}
	b.mu.Lock()
	b.drawLocked()
	b.mu.Unlock()
	return b
}

// Set moves the bar to fraction (in [0, 1]) with a note shown next to it.
func (b *Bar) Set(fraction float64, note string) { b.set(fraction, note, fraction >= 1) }

// Step moves the bar to done out of total steps, with the note "done/total",
// for loops over sweep points: bar.Step(j+1, len(points)).
func (b *Bar) Step(done, total int) {
	if total <= 0 {
		return
	}
	b.set(float64(done)/float64(total), fmt.Sprintf("%d/%d", done, total), done >= total)
}

// Finish draws the bar at 100%.
func (b *Bar) Finish() { b.set(1, "", true) }

func (b *Bar) set(fraction float64, note string, final bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	if math.IsNaN(fraction) {
		fraction = 0
	}
	fraction = math.Max(0, math.Min(1, fraction))
	if final {
		fraction = 1
	}
	if fraction > b.frac {
		b.frac = fraction
	}
	if note != "" {
		b.note = note
	}
	t := now()
	if !final && t.Sub(b.last) < b.interval {
		return
	}
	b.done = final
	b.drawLocked()
	if final {
		syncDisplay()
	}
}

// Fraction returns the fraction drawn or pending.
func (b *Bar) Fraction() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.frac
}

// Draws counts the redraws (for tests and curiosity).
func (b *Bar) Draws() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.draws
}

func (b *Bar) drawLocked() {
	b.last = now()
	b.draws++
	if !inNotebook() {
		return
	}
	updateHTML(b.id, b.htmlLocked())
}

func (b *Bar) htmlLocked() string {
	pct := 100 * b.frac
	colour := "#5470c6"
	status := fmt.Sprintf("%.0f%%", math.Floor(pct))
	if b.done {
		colour = "#3ba272"
		status = fmt.Sprintf("100%% in %.1fs", now().Sub(b.start).Seconds())
	}
	note := b.note
	if note != "" {
		note = " · " + note
	}
	return fmt.Sprintf(`<div class="lbsim-progress" data-fraction="%.4f" style="font-family:sans-serif;font-size:13px;margin:4px 0">`+
		`<span style="display:inline-block;min-width:8em">%s</span> `+
		`<span style="display:inline-block;vertical-align:middle;width:320px;height:14px;background:#eee;border-radius:3px;overflow:hidden">`+
		`<span style="display:block;height:100%%;width:%.1f%%;background:%s"></span></span> %s%s</div>`,
		b.frac, escape(b.label), pct, colour, status, escape(note))
}
