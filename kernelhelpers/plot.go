package kernelhelpers

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// palette is echarts' default colour cycle, assigned explicitly so that a
// level's simulation, band and overlay share a colour.
var palette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de",
	"#3ba272", "#fc8452", "#9a60b4", "#ea7ccc", "#2f4554"}

func color(i int) string { return palette[i%len(palette)] }

// Color returns colour i of the palette the charts use (echarts' default
// cycle). Give two series the same Color to pair them, e.g. a simulation and
// its reference curve.
func Color(i int) string { return color(max(i, 0)) }

// Series is one curve of plain data, the input of every line chart: points
// (X[j], Y[j]), with optional 95% confidence half-widths CI95[j] drawn as a
// shaded band. Reference marks a theory or reference curve (a mean-field
// limit, a closed form): it is drawn dashed, with hollow markers and no band.
//
// The style fields are optional: Color (a CSS colour; default: the palette
// colour of the series' position in the chart), Dash ("solid", "dashed" or
// "dotted"; default solid, dashed for references) and Marker (an echarts
// symbol such as "circle", "triangle", "emptyDiamond", or "none"; default a
// circle, a hollow diamond for references, none on series of more than 60
// points). Non-finite values, and values <= 0 on a log axis, are gaps.
type Series struct {
	Name      string
	X, Y      []float64
	CI95      []float64 `json:",omitempty"`
	Reference bool      `json:",omitempty"`
	Color     string    `json:",omitempty"`
	Dash      string    `json:",omitempty"`
	Marker    string    `json:",omitempty"`
}

// Add appends the point (x, y); if the series has half-widths, this point's is NaN (no band).
func (s *Series) Add(x, y float64) {
	s.X, s.Y = append(s.X, x), append(s.Y, y)
	if len(s.CI95) > 0 {
		s.CI95 = append(s.CI95, math.NaN())
	}
}

// AddCI appends the point (x, y) with its 95% half-width ci.
func (s *Series) AddCI(x, y, ci float64) {
	for len(s.CI95) < len(s.X) {
		s.CI95 = append(s.CI95, math.NaN())
	}
	s.X, s.Y, s.CI95 = append(s.X, x), append(s.Y, y), append(s.CI95, ci)
}

// Tail makes the series (i, p[i-1]), i = 1..len(p): a distribution tail
// P(X >= i) in the layout of lbsim.Result.Occupancy and the meanfield fixed
// points, for Tails.
func Tail(name string, p []float64) Series {
	s := Series{Name: name, X: make([]float64, len(p)), Y: append([]float64(nil), p...)}
	for i := range p {
		s.X[i] = float64(i + 1)
	}
	return s
}

// Reference returns a copy of s marked as a reference curve (dashed, no band).
func Reference(s Series) Series {
	s.Reference = true
	return s
}

// Lines draws series against a numeric x axis: data solid with their 95%
// bands, references dashed. LogX, LogY and LogLog set the scales; XLabel,
// YLabel, Title, Subtitle, YMin, NoBand and Size apply. It is the chart of
// time series and trajectories (Trajectory draws an lbsim trajectory with it).
func Lines(series []Series, options ...Option) *Chart {
	return plot("lines", "x", "y", false, series, newConfig(options))
}

// Sweep plots a metric against a parameter, one series per group (with a 95%
// band when the group has CI95); it is Lines with the axes named "parameter"
// and "metric" unless XLabel and YLabel say otherwise.
func Sweep(groups []Series, options ...Option) *Chart {
	return plot("sweep", "parameter", "metric", false, groups, newConfig(options))
}

// Tails plots distribution tails P(queue >= i) against the integer i on a
// log axis (LinearY for a linear one); Levels(k) shows i <= k. Build the
// series with Tail; Stationary draws lbsim occupancies with it.
func Tails(series []Series, options ...Option) *Chart {
	c := newConfig(append([]Option{LogY()}, options...))
	if c.levels > 0 {
		cut := make([]Series, len(series))
		for j, s := range series {
			n := 0
			for n < len(s.X) && s.X[n] <= float64(c.levels) {
				n++
			}
			s.X, s.Y = s.X[:min(n, len(s.X))], s.Y[:min(n, len(s.Y))]
			if len(s.CI95) > n {
				s.CI95 = s.CI95[:n]
			}
			cut[j] = s
		}
		series = cut
	}
	return plot("tail", "i", "P(queue ≥ i)", true, series, c)
}

// plot draws series on a line chart.
func plot(kind, xName, yName string, xInteger bool, series []Series, c *config) *Chart {
	id := newID(kind)
	line := newLine(c, id, xName, yName, xInteger)
	if c.yMin != nil && !(c.logY && !c.linearY && *c.yMin <= 0) {
		line.YAxisList[0].Min = *c.yMin
	}
	applies := plotOptions
	switch kind {
	case "tail":
		applies = levelOptions
	case "traj":
		applies = trajOptions
	}
	if err := c.refuse(chartName(kind), applies); err != nil {
		return finish(line, c, id, err)
	}
	if len(series) == 0 {
		return finish(line, c, id, fmt.Errorf("kernelhelpers.%s: no series", chartName(kind)))
	}
	var omitted []string // log axes: series with points <= 0, which cannot be drawn
	for j, s := range series {
		if len(s.X) != len(s.Y) {
			return finish(line, c, id, fmt.Errorf("kernelhelpers.%s: series %q has %d x and %d y values", chartName(kind), s.Name, len(s.X), len(s.Y)))
		}
		if len(s.CI95) > 0 && len(s.CI95) != len(s.X) {
			return finish(line, c, id, fmt.Errorf("kernelhelpers.%s: series %q has %d points and %d half-widths", chartName(kind), s.Name, len(s.X), len(s.CI95)))
		}
		col := s.Color
		if col == "" {
			col = color(j)
		}
		dash, width := s.Dash, float32(2)
		if dash == "" {
			dash = "solid"
			if s.Reference {
				dash = "dashed"
			}
		}
		if s.Reference {
			width = 1.5
		}
		marker := s.Marker
		if marker == "" {
			switch {
			case len(s.X) > 60:
				marker = "none"
			case s.Reference:
				marker = "emptyDiamond"
			default:
				marker = "circle"
			}
		}
		data := make([]opts.LineData, len(s.X))
		for k := range s.X {
			data[k] = point(s.X[k], s.Y[k], c)
		}
		if n, of := nonPositive(s, c); n > 0 {
			omitted = append(omitted, omittedNote(s.Name, n, of))
		}
		// The line goes first: the legend draws its icon from the first
		// series of a name, and the band's series share the name.
		line.AddSeries(s.Name, data, styled(col, dash, width, marker, marker != "none")...)
		if len(s.CI95) > 0 && !s.Reference && !c.noBand {
			addBand(line, s.Name, col, strconv.Itoa(j), s.X, s.Y, s.CI95, c)
		}
	}
	if len(omitted) > 0 {
		if len(omitted) > 3 {
			omitted = append(omitted[:3], fmt.Sprintf("and %d more series", len(omitted)-3))
		}
		note := "log scale, values ≤ 0 not drawn: " + strings.Join(omitted, "; ")
		if sub := line.BaseConfiguration.Title.Subtitle; sub != "" {
			note = sub + "\n" + note
			// A second line of subtitle: move the plot down.
			if len(line.GridList) > 0 {
				line.GridList[0].Top = "86"
			}
		}
		line.BaseConfiguration.Title.Subtitle = note
	}
	return finish(line, c, id, nil)
}

// nonPositive counts the finite points of s that a log axis cannot show (a
// coordinate <= 0 on a log axis), among its finite points.
func nonPositive(s Series, c *config) (n, finite int) {
	logY := c.logY && !c.linearY
	if !c.logX && !logY {
		return 0, 0
	}
	for k := range s.X {
		x, y := s.X[k], s.Y[k]
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		finite++
		if (c.logX && x <= 0) || (logY && y <= 0) {
			n++
		}
	}
	return n, finite
}

// omittedNote says how many points of a series a log axis leaves out.
func omittedNote(name string, n, of int) string {
	if name == "" {
		name = "a series"
	}
	if n == of {
		return fmt.Sprintf("%s (all %d points: not shown)", name, n)
	}
	return fmt.Sprintf("%s (%d of %d points)", name, n, of)
}

func chartName(kind string) string {
	switch kind {
	case "sweep":
		return "Sweep"
	case "tail":
		return "Tails"
	case "traj":
		return "Trajectories"
	}
	return "Lines"
}

// subscript writes i with Unicode subscript digits (q₁, q₁₂).
func subscript(i int) string {
	var b strings.Builder
	for _, r := range fmt.Sprint(i) {
		b.WriteRune('₀' + (r - '0'))
	}
	return b.String()
}

// num returns v for JSON, or nil (a gap) when it cannot be plotted.
func num(v float64, logAxis bool) any {
	if math.IsNaN(v) || math.IsInf(v, 0) || (logAxis && v <= 0) {
		return nil
	}
	return v
}

func point(x, y float64, c *config) opts.LineData {
	return opts.LineData{Value: []any{num(x, c.logX), num(y, c.logY && !c.linearY)}}
}

func axisType(log bool) string {
	if log {
		return "log"
	}
	return "value"
}

// newLine builds the common frame of the line charts.
func newLine(c *config, id, xName, yName string, xInteger bool) *charts.Line {
	if c.xLabel != "" {
		xName = c.xLabel
	}
	if c.yLabel != "" {
		yName = c.yLabel
	}
	if c.xUnit != "" {
		xName += " (" + c.xUnit + ")"
	}
	if c.yUnit != "" {
		yName += " (" + c.yUnit + ")"
	}
	logY := c.logY && !c.linearY
	line := charts.NewLine()
	x := opts.XAxis{
		Type: axisType(c.logX), Name: xName, NameLocation: "middle", NameGap: 28,
		SplitLine: &opts.SplitLine{Show: opts.Bool(true)},
		AxisLabel: &opts.AxisLabel{Show: opts.Bool(true)},
	}
	if xInteger {
		x.MinInterval = 1
		x.Min = "dataMin"
	}
	if !c.logX && !xInteger {
		x.Scale = opts.Bool(true)
	}
	y := opts.YAxis{
		Type: axisType(logY), Name: yName, NameLocation: "middle", NameGap: 55,
		SplitLine: &opts.SplitLine{Show: opts.Bool(true)},
		AxisLabel: &opts.AxisLabel{Show: opts.Bool(true)},
	}
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: id, Width: c.width, Height: c.height}),
		charts.WithTitleOpts(opts.Title{Title: c.title, Subtitle: c.subtitle, Left: "center"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithGridOpts(opts.Grid{Left: "80", Right: "40", Top: "70", Bottom: "80"}),
		charts.WithXAxisOpts(x),
		charts.WithYAxisOpts(y),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "20",
			Feature: &opts.ToolBoxFeature{SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Title: "save PNG"}}}),
		charts.WithAnimation(c.animation),
	)
	return line
}

// lineStyle options for a series.
func styled(col, dash string, width float32, symbol string, showSymbol bool) []charts.SeriesOpts {
	return []charts.SeriesOpts{
		charts.WithLineChartOpts(opts.LineChart{Symbol: symbol, ShowSymbol: opts.Bool(showSymbol), SymbolSize: 7, ConnectNulls: opts.Bool(false)}),
		charts.WithLineStyleOpts(opts.LineStyle{Color: col, Type: dash, Width: width}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: col}),
	}
}

// addBand adds a 95% band around (xs, ys) as two stacked series named like the
// main series (the legend toggles them together): an invisible lower edge and
// the band's width, filled.
func addBand(line *charts.Line, name, col, stack string, xs, ys, half []float64, c *config) {
	lower := make([]opts.LineData, len(xs))
	width := make([]opts.LineData, len(xs))
	some := false
	for j := range xs {
		lo, w := math.NaN(), math.NaN()
		if j < len(half) && j < len(ys) && !math.IsNaN(half[j]) && !math.IsNaN(ys[j]) {
			lo, w = ys[j]-half[j], 2*half[j]
			if c.logY && !c.linearY && lo <= 0 {
				lo, w = math.NaN(), math.NaN()
			} else {
				some = true
			}
		}
		// (y, x): echarts stacks the first numeric dimension of the data, which
		// would be x on a value x axis; finish() sets encode {x: 1, y: 0}.
		lower[j] = opts.LineData{Value: []any{num(lo, false), num(xs[j], c.logX)}}
		width[j] = opts.LineData{Value: []any{num(w, false), num(xs[j], c.logX)}}
	}
	if !some {
		return
	}
	// bandPrefix ids make finish() hide these series from tooltips and hovering.
	common := []charts.SeriesOpts{
		charts.WithSeriesId(bandPrefix + stack),
		charts.WithLineChartOpts(opts.LineChart{Stack: stack, Symbol: "none", ShowSymbol: opts.Bool(false)}),
		charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0), Width: 0}),
		charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.Color = col }),
	}
	line.AddSeries(name, lower, common...)
	common[0] = charts.WithSeriesId(bandPrefix + stack + "-width")
	line.AddSeries(name, width, append(common,
		charts.WithAreaStyleOpts(opts.AreaStyle{Color: col, Opacity: opts.Float(0.18)}))...)
}

const bandPrefix = "lbsim-band-"

// finish renders the go-echarts option and patches what go-echarts v2.7 has no
// field for: band series get tooltip.show=false, silent and no emphasis.
func finish(line *charts.Line, c *config, id string, err error) *Chart {
	ch := &Chart{id: id, width: c.width, height: c.height, err: err}
	if err != nil {
		return ch
	}
	ch.option = line.RenderSnippet().Option
	var opt map[string]any
	if e := json.Unmarshal([]byte(ch.option), &opt); e != nil {
		ch.err = fmt.Errorf("kernelhelpers: go-echarts produced an option that is not JSON: %v", e)
		return ch
	}
	series, _ := opt["series"].([]any)
	for _, s := range series {
		m, _ := s.(map[string]any)
		if id, _ := m["id"].(string); strings.HasPrefix(id, bandPrefix) {
			m["tooltip"] = map[string]any{"show": false}
			m["silent"] = true
			m["emphasis"] = map[string]any{"disabled": true}
			m["encode"] = map[string]any{"x": 1, "y": 0}
		}
	}
	b, e := json.Marshal(opt)
	if e != nil {
		ch.err = fmt.Errorf("kernelhelpers: %v", e)
		return ch
	}
	ch.option = string(b)
	return ch
}
