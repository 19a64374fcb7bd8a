package kernelhelpers

// Static SVG fallbacks: every chart's HTML carries a picture of the chart,
// rendered from the same echarts option by ECharts' server-side SVG renderer
// in a Node.js process (ssr.js). Where JavaScript runs, the chart's script
// replaces the picture by the interactive chart; where it does not (GitHub,
// nbviewer, VS Code's untrusted view, an HTML export opened with JavaScript
// off, a PDF printed from it) the picture stays.

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// NodeEnv names the environment variable that chooses the Node.js binary that
// renders the static SVG of charts: a path, or "off" for no SVG. By default
// "node" (or "nodejs") is looked up on PATH.
const NodeEnv = "LBSIM_NODE"

//go:embed ssr.js
var ssrJS string

// prepareJS completes an echarts option in the browser and in Node alike, so
// that the picture and the interactive chart agree: log axes get plain tick
// labels in [0.001, 10^4] and 1e-9 style beyond (a long decimal would be
// clipped at the chart's edge).
const prepareJS = `function (option) {
  var base = option.baseOption || option;
  [].concat(base.xAxis || [], base.yAxis || []).forEach(function (a) {
    if (a && a.type === "log" && a.axisLabel && !a.axisLabel.formatter) {
      a.axisLabel.formatter = function (v) {
        return (v >= 1e-3 && v <= 1e4) ? String(+v.toPrecision(3)) : v.toExponential(0);
      };
    }
  });
  return option;
}`

// Static picture size when the chart's CSS size is not in pixels ("100%"):
// about the width of a notebook's output area.
const (
	staticWidth  = 900
	staticHeight = 440
)

// svgTimeout bounds one rendering, including Node's start (about 0.2 s on an
// idle machine); past it the process is killed and the chart has no picture.
var svgTimeout = 30 * time.Second

// errNoNode marks the failures that hold for every chart of the process (no
// Node.js, LBSIM_NODE=off, no echarts bundle): the notebook gets one note.
var errNoNode = errors.New("no static SVG")

type ssrAnswer struct {
	ID    int    `json:"id"`
	SVG   string `json:"svg"`
	Error string `json:"error"`
	Ready string `json:"ready"`
}

// ssrProc is a running ssr.js.
type ssrProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	answers chan ssrAnswer // closed when stdout ends
	stderr  *tailBuffer
	node    string // the binary and
	echarts string // the bundle it runs
}

var ssr struct {
	mu       sync.Mutex
	proc     *ssrProc
	next     int
	failures int // consecutive failed starts
	broken   error
}

// nodeBinary returns the Node.js to run, or an errNoNode error.
func nodeBinary() (string, error) {
	v := os.Getenv(NodeEnv)
	if v == "off" {
		return "", fmt.Errorf("%w: $%s=off", errNoNode, NodeEnv)
	}
	if v != "" {
		if _, err := exec.LookPath(v); err != nil {
			return "", fmt.Errorf("%w: $%s=%q is not an executable", errNoNode, NodeEnv, v)
		}
		return v, nil
	}
	for _, name := range []string{"node", "nodejs"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: Node.js not found on PATH (scripts/setup.sh installs it; or set $%s)", errNoNode, NodeEnv)
}

// startSSR starts ssr.js on the echarts bundle and waits for it to be ready.
func startSSR(node, bundle string) (*ssrProc, error) {
	cmd := exec.Command(node, "-e", "var lbsimPrepare = "+prepareJS+";\n"+ssrJS, bundle)
	// Its own pipes, not the cell's stdout/stderr: GoNB waits for those to
	// close, and Node must not hold them after the cell program exits.
	p := &ssrProc{cmd: cmd, answers: make(chan ssrAnswer, 1), stderr: &tailBuffer{max: 4096}, node: node, echarts: bundle}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: starting %s: %v", errNoNode, node, err)
	}
	go func() {
		dec := json.NewDecoder(stdout)
		for {
			var a ssrAnswer
			if dec.Decode(&a) != nil {
				close(p.answers)
				return
			}
			p.answers <- a
		}
	}()
	a, err := p.wait(0)
	if err != nil {
		return nil, fmt.Errorf("%s cannot render with %s: %v", node, bundle, err)
	}
	if a.Ready == "" {
		p.kill()
		return nil, fmt.Errorf("%s: unexpected first answer %+v", node, a)
	}
	return p, nil
}

// wait returns the answer to request id; on a timeout or an exit the process is killed.
func (p *ssrProc) wait(id int) (ssrAnswer, error) {
	timer := time.NewTimer(svgTimeout)
	defer timer.Stop()
	for {
		select {
		case a, ok := <-p.answers:
			if !ok {
				p.kill()
				return a, fmt.Errorf("renderer exited (%s)", p.exitStatus())
			}
			if a.ID == id {
				return a, nil
			}
		case <-timer.C:
			p.kill()
			return ssrAnswer{}, fmt.Errorf("no answer within %v (killed the renderer)", svgTimeout)
		}
	}
}

func (p *ssrProc) kill() {
	_ = p.stdin.Close()
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	// Unblock the reader if it holds a late answer; it ends at EOF.
	go func() {
		for range p.answers {
		}
	}()
	_ = p.cmd.Wait()
}

func (p *ssrProc) exitStatus() string {
	s := strings.TrimSpace(p.stderr.String())
	if s == "" {
		if p.cmd.ProcessState != nil {
			return p.cmd.ProcessState.String()
		}
		return "no message"
	}
	return s
}

// renderSVG renders an echarts option (JavaScript) at width x height pixels.
// One Node.js process serves every chart of this program (a cell, in GoNB);
// it is started at the first chart and exits with the program.
func renderSVG(option string, width, height int) (string, error) {
	ssr.mu.Lock()
	defer ssr.mu.Unlock()
	if ssr.broken != nil {
		return "", ssr.broken
	}
	bundle, err := EchartsPath()
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoNode, err)
	}
	node, err := nodeBinary()
	if err != nil {
		return "", err
	}
	if ssr.proc != nil && (ssr.proc.echarts != bundle || ssr.proc.node != node) {
		ssr.proc.kill()
		ssr.proc = nil
	}
	if ssr.proc == nil {
		p, err := startSSR(node, bundle)
		if err != nil {
			// Twice in a row: Node or the bundle is unusable, stop trying.
			if ssr.failures++; ssr.failures >= 2 || errors.Is(err, errNoNode) {
				ssr.broken = fmt.Errorf("%w: %v", errNoNode, err)
				return "", ssr.broken
			}
			return "", err
		}
		ssr.proc, ssr.failures = p, 0
	}
	ssr.next++
	req, err := json.Marshal(map[string]any{"id": ssr.next, "option": option, "width": width, "height": height})
	if err != nil {
		return "", err
	}
	if _, err := ssr.proc.stdin.Write(append(req, '\n')); err != nil {
		ssr.proc.kill()
		ssr.proc = nil
		return "", fmt.Errorf("renderer: %v", err)
	}
	a, err := ssr.proc.wait(ssr.next)
	if err != nil {
		ssr.proc = nil
		return "", err
	}
	if a.Error != "" {
		return "", errors.New(a.Error)
	}
	if !strings.HasPrefix(a.SVG, "<svg") {
		return "", fmt.Errorf("renderer answered %.80q, not an SVG", a.SVG)
	}
	return a.SVG, nil
}

// resetSSR stops the renderer and forgets failures (tests).
func resetSSR() {
	ssr.mu.Lock()
	defer ssr.mu.Unlock()
	if ssr.proc != nil {
		ssr.proc.kill()
	}
	ssr.proc, ssr.failures, ssr.broken = nil, 0, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// pixels reads a CSS length in pixels ("440px", "440"), or def.
func pixels(css string, def int) int {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(css), "px"), 64)
	if err != nil || v < 50 || v > 10000 {
		return def
	}
	return int(v)
}

// SVG returns the chart as a static SVG image, rendered once by ECharts'
// server-side SVG renderer in Node.js from the chart's own option (so it
// matches the interactive chart, without animation or toolbox, and with a
// legend that lists every series). Its size is the chart's if given in
// pixels, else 900 x 440. It fails when Node.js or echarts is missing
// (scripts/setup.sh installs both) or the option does not render.
func (c *Chart) SVG() (string, error) {
	if c.err != nil {
		return "", c.err
	}
	c.svgOnce.Do(func() {
		c.svg, c.svgErr = renderSVG(c.option, pixels(c.width, staticWidth), pixels(c.height, staticHeight))
		if c.svgErr != nil {
			c.svgErr = fmt.Errorf("kernelhelpers: static SVG of chart %s: %w", c.id, c.svgErr)
		}
	})
	return c.svg, c.svgErr
}

// WriteSVG writes the chart's static SVG (see SVG) to path.
func (c *Chart) WriteSVG(path string) error {
	s, err := c.SVG()
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// staticHTML is what the chart's container holds until its script replaces
// it: the SVG as an <img> (a data: URL, which HTML sanitizers such as
// GitHub's keep, unlike inline <svg>), or a line saying the chart needs
// JavaScript.
func (c *Chart) staticHTML() string {
	s, err := c.SVG()
	if err != nil {
		return `<div class="lbsim-static-missing" style="color:#777;font-size:small;padding:1em">` +
			escape(c.describe()) + ` (interactive chart: it draws where JavaScript runs; no static picture: ` +
			escape(strings.TrimPrefix(err.Error(), "kernelhelpers: ")) + `)</div>`
	}
	_, names := c.titleAndSeries()
	list, _ := json.Marshal(names)
	return `<img class="lbsim-static" alt="` + escape(c.describe()) + `" data-lbsim-series="` + escape(string(list)) +
		`" src="data:image/svg+xml;base64,` +
		base64.StdEncoding.EncodeToString([]byte(s)) +
		`" style="display:block;width:100%;height:100%;object-fit:contain">`
}

// describe names the chart for alt text: its title and its series.
func (c *Chart) describe() string {
	title, names := c.titleAndSeries()
	text := "chart"
	if title != "" {
		text = "chart: " + title
	}
	if len(names) > 0 {
		text += "; series: " + strings.Join(names, ", ")
	}
	return text
}

// titleAndSeries returns the chart's title and the names of its series, once each.
func (c *Chart) titleAndSeries() (string, []string) {
	var opt struct {
		BaseOption *struct {
			Title  any `json:"title"`
			Series []struct {
				Name string `json:"name"`
			} `json:"series"`
		} `json:"baseOption"`
		Title  any `json:"title"`
		Series []struct {
			Name string `json:"name"`
		} `json:"series"`
	}
	if json.Unmarshal([]byte(c.option), &opt) != nil {
		return "", nil
	}
	title, series := opt.Title, opt.Series
	if opt.BaseOption != nil {
		title, series = opt.BaseOption.Title, opt.BaseOption.Series
	}
	var names []string
	seen := map[string]bool{}
	for _, s := range series {
		if s.Name != "" && !seen[s.Name] {
			seen[s.Name] = true
			names = append(names, s.Name)
		}
	}
	return titleText(title), names
}

func titleText(t any) string {
	switch v := t.(type) {
	case map[string]any:
		s, _ := v["text"].(string)
		return s
	case []any:
		if len(v) > 0 {
			return titleText(v[0])
		}
	}
	return ""
}

const noSVGMarker = ".lbsim-kernelhelpers-nosvg-"

var (
	noSVGToldInProc bool
	noSVGMu         sync.Mutex
)

// svgNote returns the note to show next to a chart whose picture failed: for
// a render failure every time, for a missing Node.js once per kernel session
// (a marker file like the bundle's) or, outside a notebook, once per process.
func svgNote(err error) string {
	if err == nil {
		return ""
	}
	msg := strings.TrimPrefix(err.Error(), "kernelhelpers: ")
	if !errors.Is(err, errNoNode) {
		return `<div class="lbsim-note" style="color:#777;font-size:small">kernelhelpers: this chart has no static picture for viewers without JavaScript: ` + escape(msg) + `</div>`
	}
	noSVGMu.Lock()
	defer noSVGMu.Unlock()
	if noSVGToldInProc {
		return ""
	}
	noSVGToldInProc = true
	if m := sessionMarker(noSVGMarker); m != "" {
		f, err := os.OpenFile(m, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return "" // told already in this kernel session
		}
		f.Close()
	}
	return `<div class="lbsim-note" style="color:#777;font-size:small">kernelhelpers: charts in this notebook carry no static picture, so they show only where JavaScript runs (not on GitHub, nbviewer or in PDF exports): ` +
		escape(msg) + `</div>`
}
