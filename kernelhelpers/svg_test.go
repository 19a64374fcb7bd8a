package kernelhelpers

import (
	"encoding/base64"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// needSSR skips when the real echarts bundle is not installed (the bundle tests
// do the same); Node.js itself is required: scripts/setup.sh installs it.
func needSSR(t *testing.T) {
	t.Helper()
	if _, err := EchartsPath(); err != nil {
		t.Skipf("real bundle not installed (scripts/setup.sh): %v", err)
	}
	if _, err := nodeBinary(); err != nil {
		t.Fatalf("%v: scripts/setup.sh installs Node.js, which the static SVG of charts needs", err)
	}
	resetSSR()
	t.Cleanup(resetSSR)
}

// svgDoc is what a test looks for in a rendered SVG.
type svgDoc struct {
	Width, Height string
	Texts         []string
	// Paths maps a stroke colour to the path data drawn in it.
	Paths map[string][]string
}

func parseSVG(t *testing.T, s string) svgDoc {
	t.Helper()
	doc := svgDoc{Paths: map[string][]string{}}
	dec := xml.NewDecoder(strings.NewReader(s))
	var inText bool
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not XML: %v\n%.500s", err, s)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch e.Name.Local {
			case "svg":
				if doc.Width == "" {
					doc.Width, doc.Height = attr["width"], attr["height"]
				}
			case "path", "polyline":
				d := attr["d"] + attr["points"]
				doc.Paths[strings.ToLower(attr["stroke"])] = append(doc.Paths[strings.ToLower(attr["stroke"])], d)
			case "text", "tspan":
				inText = true
			}
		case xml.CharData:
			if inText {
				text.Write(e)
			}
		case xml.EndElement:
			if e.Name.Local == "text" {
				doc.Texts = append(doc.Texts, strings.TrimSpace(text.String()))
				text.Reset()
				inText = false
			}
		}
	}
	return doc
}

func (d svgDoc) hasText(s string) bool {
	for _, t := range d.Texts {
		if t == s {
			return true
		}
	}
	return false
}

// vertices counts the points of a path's data (M and L commands).
func vertices(d string) int { return strings.Count(d, "M") + strings.Count(d, "L") }

// longest returns the path drawn in colour with the most vertices.
func (d svgDoc) longest(colour string) int {
	n := 0
	for _, p := range d.Paths[strings.ToLower(colour)] {
		n = max(n, vertices(p))
	}
	return n
}

func TestChartSVGDrawsTheSeries(t *testing.T) {
	needSSR(t)
	var sim, ref Series
	sim.Name, ref.Name = "simulated", "exact e^(−t)"
	for k := 0; k <= 40; k++ {
		x := float64(k) / 8
		sim.AddCI(x, math.Exp(-x)*(1+0.03*math.Sin(5*x)), 0.02)
		ref.Add(x, math.Exp(-x))
	}
	c := Lines([]Series{sim, Reference(ref)}, XLabel("time t (s)"), YLabel("fraction busy"), Title("Decay"), Size("", "400px"))
	s, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, s)
	if doc.Width != "900" || doc.Height != "400" {
		t.Errorf("size %s x %s, want 900 x 400 (100%% wide: 900; the height given)", doc.Width, doc.Height)
	}
	for _, want := range []string{"Decay", "simulated", "exact e^(−t)", "time t (s)", "fraction busy"} {
		if !doc.hasText(want) {
			t.Errorf("no text %q (title, legend, axis names) among %q", want, doc.Texts)
		}
	}
	// Each series is a line of 41 points in its colour (the band is a filled
	// area in the same colour, drawn without stroke).
	for i, name := range []string{"simulated", "reference"} {
		if n := doc.longest(Color(i)); n < 41 {
			t.Errorf("%s: longest path in %s has %d vertices, want >= 41; paths by colour: %v", name, Color(i), n, keys(doc.Paths))
		}
	}
	if !strings.Contains(s, `fill-opacity="0.18"`) {
		t.Error("no 95% band (an area of opacity 0.18)")
	}
	if strings.Contains(s, "@keyframes") || strings.Contains(s, "save PNG") {
		t.Error("the picture has animation or the toolbox")
	}
	// Same chart, same picture.
	again := c.HTML()
	if !strings.Contains(again, base64.StdEncoding.EncodeToString([]byte(s))) {
		t.Error("HTML does not embed the SVG")
	}
	if os.Getenv("LBSIM_SVG_OUT") != "" {
		_ = c.WriteSVG(filepath.Join(os.Getenv("LBSIM_SVG_OUT"), "lines.svg"))
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+":"+strings.Repeat("|", len(v)))
	}
	return out
}

func TestChartSVGLogAxesAndLegendThatFits(t *testing.T) {
	needSSR(t)
	// Twelve series with long names: the picture's legend lists them all (no
	// scrolling in a picture) on several rows, and the plot area shrinks so
	// that the rows do not cover the axis.
	var series []Series
	for j := range 12 {
		s := Series{Name: "policy number " + string(rune('A'+j)) + " with a long name"}
		for i := 1; i <= 10; i++ {
			s.Add(float64(i), math.Pow(0.5+0.03*float64(j), float64(i)))
		}
		series = append(series, s)
	}
	c := Tails(series, Title("tails"))
	s, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, s)
	for _, s := range series {
		if !doc.hasText(s.Name) {
			t.Errorf("legend lacks %q", s.Name)
		}
	}
	// The log axis's tick labels come from the JavaScript formatter that the
	// chart's script and the renderer share: 0.001 plain, 1e-5 style below.
	if !doc.hasText("0.001") && !doc.hasText("0.01") {
		t.Errorf("no plain log tick label among %q", doc.Texts)
	}
	if !doc.hasText("1e-5") && !doc.hasText("1e-4") && !doc.hasText("1e-6") {
		t.Errorf("no 1e-n tick label among %q", doc.Texts)
	}
	// The x axis (a horizontal line across the plot) sits above every legend row.
	axisY, legendTop := axisAndLegend(t, s)
	if axisY <= 0 || legendTop <= 0 || axisY+20 > legendTop {
		t.Errorf("x axis at y=%.0f, legend's first row at y=%.0f: they overlap", axisY, legendTop)
	}
	if os.Getenv("LBSIM_SVG_OUT") != "" {
		_ = c.WriteSVG(filepath.Join(os.Getenv("LBSIM_SVG_OUT"), "tails.svg"))
	}
}

// axisAndLegend returns the y of the x axis line (the lowest long horizontal
// stroke in the axis colour) and the top of the legend (the smallest y of a
// translate() of a legend text).
func axisAndLegend(t *testing.T, s string) (axisY, legendTop float64) {
	t.Helper()
	for _, m := range regexp.MustCompile(`d="M(\d+(?:\.\d+)?) (\d+(?:\.\d+)?)L(\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"[^>]*stroke="#6E7079"`).FindAllStringSubmatch(s, -1) {
		x0, y0, x1, y1 := atof(m[1]), atof(m[2]), atof(m[3]), atof(m[4])
		if y0 == y1 && x1-x0 > 300 {
			axisY = max(axisY, y0)
		}
	}
	legendTop = math.Inf(1)
	for _, m := range regexp.MustCompile(`transform="translate\((\d+(?:\.\d+)?) (\d+(?:\.\d+)?)\)"[^>]*>policy number`).FindAllStringSubmatch(s, -1) {
		legendTop = min(legendTop, atof(m[2]))
	}
	return axisY, legendTop
}

func atof(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

func TestChartSVGGraphAndFunctions(t *testing.T) {
	needSSR(t)
	g := Graph([][2]int{{0, 1}, {1, 2}, {2, 0}}, [][]int{{0, 3, 1}, {2, 0, 0}}, Title("triangle"))
	s, err := g.SVG()
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, s)
	for _, want := range []string{"triangle", "idle (0)", "queue 3"} {
		if !doc.hasText(want) {
			t.Errorf("graph picture lacks %q among %q", want, doc.Texts)
		}
	}
	// The vertices are circles in their queue's colour: an arc that ends
	// next to its start (one that ends at its start draws nothing).
	for _, col := range []string{queueColors[0], queueColors[1], queueColors[3]} {
		found := false
		for _, m := range regexp.MustCompile(`d="M(\S+) (\S+)A\S+ \S+ \S+ \S+ \S+ (\S+) ([^"A]+)"[^>]*fill="`+col+`"`).FindAllStringSubmatch(s, -1) {
			if m[1] != m[3] || m[2] != m[4] {
				found = true
			}
		}
		if !found {
			t.Errorf("no vertex drawn in %s", col)
		}
	}
	// An option written in JavaScript, with function formatters: the picture
	// shows what the functions return.
	c := &Chart{id: "fn", width: "600px", height: "300px", option: `{
		xAxis: {type: "value", name: "load", axisLabel: {formatter: function (v) { return v + " rps"; }}},
		yAxis: {type: "value"},
		legend: {bottom: 0, formatter: function (name) { return "<" + name.toUpperCase() + ">"; }},
		grid: {bottom: 60},
		series: [{name: "jsq", type: "line", data: [[1, 2], [2, 3], [4, 1]]}]
	}`}
	s, err = c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	doc = parseSVG(t, s)
	if doc.Width != "600" || !doc.hasText("2 rps") || !doc.hasText("<JSQ>") {
		t.Errorf("function formatters not applied: width %s, texts %q", doc.Width, doc.Texts)
	}
}

func TestChartSVGFailuresNeverFailTheCell(t *testing.T) {
	needSSR(t)
	// A formatter that never returns: the renderer is killed after the
	// timeout and the next chart gets a new one.
	svgTimeout = 3 * time.Second
	t.Cleanup(func() { svgTimeout = 30 * time.Second })
	f := useFakeNotebook(t, t.TempDir())
	bundleDelivered(t)
	hang := &Chart{id: "hang", width: "100%", height: "300px", option: `{xAxis: {type: "value", axisLabel: {formatter: function () { for (;;) {} }}}, yAxis: {}, series: [{type: "line", data: [[1, 1]]}]}`}
	bad := &Chart{id: "bad", width: "100%", height: "300px", option: `{xAxis: ]`}
	for _, c := range []*Chart{hang, bad} {
		if err := c.Display(); err != nil {
			t.Fatalf("Display failed: %v", err)
		}
		if _, err := c.SVG(); err == nil {
			t.Fatalf("chart %s rendered", c.id)
		}
	}
	last := f.shown[len(f.shown)-1]
	if !strings.Contains(last, "lbsim-static-missing") || !strings.Contains(last, "lbsim-note") || strings.Contains(last, "<img") {
		t.Errorf("a failed picture shows no note: %.400s", last)
	}
	if _, err := Sweep([]Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}).SVG(); err != nil {
		t.Errorf("the renderer did not recover: %v", err)
	}
}

// bundleDelivered marks the bundle as delivered, so Display shows the chart only.
func bundleDelivered(*testing.T) {
	bundleMu.Lock()
	deliveredInProc = true
	bundleMu.Unlock()
}

func TestNoNodeMeansNoPictureAndOneNote(t *testing.T) {
	needSSR(t)
	f := useFakeNotebook(t, t.TempDir())
	bundleDelivered(t)
	t.Setenv(NodeEnv, filepath.Join(t.TempDir(), "no-node"))
	chart := func() *Chart { return Sweep([]Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}) }
	for cell := range 3 {
		if cell > 0 {
			newProcess() // a new cell program of the same kernel
			bundleDelivered(t)
			resetSSR()
		}
		for range 2 {
			if err := chart().Display(); err != nil {
				t.Fatalf("Display failed: %v", err)
			}
		}
	}
	notes := 0
	for _, h := range f.shown {
		notes += strings.Count(h, `class="lbsim-note"`)
		if !strings.Contains(h, "lbsim-static-missing") || !strings.Contains(h, "no-node") {
			t.Errorf("chart without picture does not say why: %.300s", h)
		}
	}
	if notes != 1 {
		t.Errorf("%d notes about the missing Node.js in 6 charts of one kernel session, want 1", notes)
	}
	t.Setenv(NodeEnv, "off")
	resetSSR()
	if _, err := chart().SVG(); !errors.Is(err, errNoNode) || !strings.Contains(err.Error(), "off") {
		t.Errorf("LBSIM_NODE=off: %v", err)
	}
}

// benchChart is a trajectory-sized chart: 4 levels of 121 points with bands.
func benchChart() *Chart {
	tr := testTrajectory()
	for k := 20; k < 121; k++ {
		t := float64(k)
		tr.Times = append(tr.Times, t)
		tr.Occupancy = append(tr.Occupancy, []float64{0.9, 0.7 - 0.001*t, 0.2, 1e-5})
		tr.CI95 = append(tr.CI95, []float64{0.01, 0.01, 0.02, 0})
	}
	return Trajectory(tr)
}

// BenchmarkChartSVG: one chart's picture from the running renderer (the
// second and later charts of a cell).
func BenchmarkChartSVG(b *testing.B) {
	if _, err := benchChart().SVG(); err != nil {
		b.Skip(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := benchChart().SVG(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChartSVGNewProcess: the first chart of a cell, Node's start included.
func BenchmarkChartSVGNewProcess(b *testing.B) {
	for range b.N {
		resetSSR()
		if _, err := benchChart().SVG(); err != nil {
			b.Skip(err)
		}
	}
	resetSSR()
}
