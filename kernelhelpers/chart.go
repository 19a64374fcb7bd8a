package kernelhelpers

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Item is anything that renders as an HTML fragment: *Chart and *Table.
type Item interface {
	// HTML returns the fragment, without the echarts bundle.
	HTML() string
}

// Chart is a rendered echarts chart: a container <div> with a unique id and
// the echarts option, holding a static SVG picture of the chart until the
// chart's script draws the interactive chart in its place. Display shows it
// in the notebook; WriteHTML and WriteTo write it as a standalone page; SVG
// and WriteSVG give the picture alone.
type Chart struct {
	id            string
	option        string // JavaScript object literal (go-echarts' JSON)
	width, height string
	err           error

	svgOnce sync.Once
	svg     string
	svgErr  error
}

var idCounter atomic.Uint64

// newID returns an id that no other chart of any run of any cell shares:
// process start time and a counter, plus random bytes.
func newID(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("lbsim-%s-%s-%d-%s", prefix,
		strconv.FormatInt(time.Now().UnixNano(), 36), idCounter.Add(1), hex.EncodeToString(b[:]))
}

// ID returns the id of the chart's container element.
func (c *Chart) ID() string { return c.id }

// Option returns the echarts option as JavaScript (JSON in practice).
func (c *Chart) Option() string { return c.option }

// withErr makes c a chart that shows err instead of drawing.
func (c *Chart) withErr(err error) *Chart {
	c.err, c.option = err, ""
	return c
}

// Err returns the error met while building the chart, if any; Display shows it.
func (c *Chart) Err() error { return c.err }

// scriptSafe keeps a JSON text from closing the <script> element it sits in.
func scriptSafe(js string) string {
	js = strings.ReplaceAll(js, "</", `<\/`)
	return strings.ReplaceAll(js, "<!--", `<\!--`)
}

// HTML returns the chart's container, holding the static SVG picture, and the
// script that replaces the picture by the interactive chart once
// window.echarts and the container are there (it polls: in Jupyter the
// output is inserted after its scripts ran, and the bundle may come later).
// If echarts never loads, an error shows above the picture after 30 s.
func (c *Chart) HTML() string {
	if c.err != nil {
		return `<pre class="lbsim-error" style="color:#a00">` + escape(c.err.Error()) + `</pre>`
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="lbsim-chart" id="%s" style="width:%s;height:%s;">%s</div>`+"\n",
		c.id, html.EscapeString(c.width), html.EscapeString(c.height), c.staticHTML())
	fmt.Fprintf(&b, `<script type="text/javascript">
(function () {
  var id = %q, tries = 0, start = Date.now();
  function draw() {
    var el = document.getElementById(id);
    if (!window.echarts || !el || !el.isConnected || el.clientWidth === 0) {
      tries++;
      if (!window.echarts && Date.now() - start > 30000) {
        if (el) {
          el.setAttribute("data-lbsim-error", "echarts not loaded");
          el.insertAdjacentHTML("afterbegin", '<pre class="lbsim-error" style="color:#a00">kernelhelpers: echarts did not load (window.echarts is undefined after 30 s). Run kernelhelpers.Setup() in a cell, or re-run the notebook.</pre>');
        }
        return;
      }
      setTimeout(draw, tries < 100 ? 100 : 500);
      return;
    }
    if (el.getAttribute("data-lbsim-drawn")) { return; }
    var option = (%s)(%s);
    el.innerHTML = "";
    var chart = window.echarts.init(el, null, {renderer: "canvas"});
    chart.setOption(option);
    el.setAttribute("data-lbsim-drawn", "1");
    window.addEventListener("resize", function () { chart.resize(); });
  }
  draw();
})();
</script>
`, c.id, prepareJS, scriptSafe(strings.TrimSpace(c.option)))
	return b.String()
}

// Display shows the chart as the output of the current cell. The first chart
// of a kernel session also carries the echarts bundle (see the package
// documentation). Outside a notebook it does nothing. Errors (bad input, no
// echarts.min.js) are shown in the cell and returned.
func (c *Chart) Display() error {
	if !inNotebook() {
		return c.err
	}
	if c.err != nil {
		showError(c.err)
		return c.err
	}
	bundle, err := bundleForSession()
	if err != nil {
		showError(err)
		return err
	}
	h := c.HTML()
	_, svgErr := c.SVG()
	displayHTML(bundle + svgNote(svgErr) + h)
	syncDisplay()
	return nil
}

// WriteTo writes the chart as a standalone HTML page with echarts inline.
func (c *Chart) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	if err := WritePage(&buf, "", c); err != nil {
		return 0, err
	}
	return buf.WriteTo(w)
}

// WriteHTML writes the chart as a standalone HTML file (echarts inline, no network needed).
func (c *Chart) WriteHTML(path string) error { return WriteHTML(path, "", c) }

// WriteHTML writes items (charts, tables) into one standalone HTML file with
// the echarts bundle inline, once.
func WriteHTML(path, title string, items ...Item) error {
	var buf bytes.Buffer
	if err := WritePage(&buf, title, items...); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// WritePage writes items as one standalone HTML page to w, with the echarts
// bundle inline once.
func WritePage(w io.Writer, title string, items ...Item) error {
	for _, it := range items {
		if c, ok := it.(*Chart); ok && c.err != nil {
			return c.err
		}
	}
	bundle, err := bundleScript()
	if err != nil {
		return err
	}
	if title == "" {
		title = "lbsim charts"
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>")
	b.WriteString(escape(title))
	b.WriteString("</title>\n")
	b.WriteString(bundle)
	b.WriteString("</head>\n<body style=\"font-family:sans-serif;max-width:1100px;margin:1em auto\">\n")
	for _, it := range items {
		b.WriteString(it.HTML())
		b.WriteString("\n")
		if c, ok := it.(*Chart); ok {
			if _, err := c.SVG(); err != nil && svgNote(err) != "" {
				fmt.Fprintf(os.Stderr, "%v (the page's charts show only where JavaScript runs)\n", err)
			}
		}
	}
	b.WriteString("</body>\n</html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

func escape(s string) string { return html.EscapeString(s) }
