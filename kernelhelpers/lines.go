package kernelhelpers

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/lbsim/notebooks/lbsim"
)

// palette is echarts' default colour cycle, assigned explicitly so that a
// level's simulation, band and overlay share a colour.
var palette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de",
	"#3ba272", "#fc8452", "#9a60b4", "#ea7ccc", "#2f4554"}

func color(i int) string { return palette[i%len(palette)] }

// Run is one occupancy trajectory: Occupancy[k][i-1] is q_i at Times[k], and
// CI95 (optional, same shape) its 95% confidence half-width.
type Run struct {
	Name      string
	Times     []float64
	Occupancy [][]float64
	CI95      [][]float64
}

// Traj makes a Run from an lbsim trajectory (Result.Trajectory).
func Traj(name string, tr *lbsim.Trajectory) Run {
	if tr == nil {
		return Run{Name: name}
	}
	return Run{Name: name, Times: tr.Times, Occupancy: tr.Occupancy, CI95: tr.CI95}
}

// Curve is a named sequence: for Stationary, Values[i-1] = P(queue >= i).
type Curve struct {
	Name   string
	Values []float64
}

// Series is a named set of points (X[j], Y[j]), with optional 95% half-widths CI95[j].
type Series struct {
	Name string
	X, Y []float64
	CI95 []float64
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

// Trajectory plots q_i(t), i = 1..k, of one lbsim trajectory with its 95%
// band. Typical use: kernelhelpers.Trajectory(res.Trajectory).Display().
func Trajectory(tr *lbsim.Trajectory, options ...Option) *Chart {
	return Trajectories([]Run{Traj("", tr)}, options...)
}

// Trajectories plots q_i(t) of several runs: one colour per level i; the first
// run solid, the others dotted with markers. A MeanField option overlays the
// mean-field solution as dashed lines in the level's colour; runs with CI95
// get a shaded 95% band unless NoBand is given.
func Trajectories(runs []Run, options ...Option) *Chart {
	c := newConfig(options)
	id := newID("traj")
	line := newLine(c, id, "time t", "qᵢ(t): fraction of servers with ≥ i tasks", false)
	if !c.logY || c.linearY {
		line.YAxisList[0].Min = 0 // occupancies are fractions; keeps bands from pushing the axis below 0
	}
	if len(runs) == 0 {
		return finish(line, c, id, errors.New("kernelhelpers.Trajectories: no runs"))
	}
	levels := c.levels
	if levels <= 0 {
		for _, r := range runs {
			for _, row := range r.Occupancy {
				for i, q := range row {
					if q >= 1e-3 && i+1 > levels {
						levels = i + 1
					}
				}
			}
		}
		levels = max(1, min(levels, 8))
	}
	symbols := []string{"circle", "triangle", "rect", "diamond", "pin"}
	for ri, r := range runs {
		if len(r.Times) == 0 || len(r.Occupancy) < len(r.Times) {
			return finish(line, c, id, fmt.Errorf("kernelhelpers.Trajectories: run %d (%q) has %d times and %d occupancy rows (nil trajectory? set Scenario.Grid > 0)",
				ri, r.Name, len(r.Times), len(r.Occupancy)))
		}
		for i := 1; i <= levels; i++ {
			name := "q" + subscript(i)
			if r.Name != "" {
				name = r.Name + " " + name
			}
			ys := make([]float64, len(r.Times))
			var half []float64
			data := make([]opts.LineData, len(r.Times))
			for k, t := range r.Times {
				ys[k] = at(r.Occupancy[k], i-1)
				data[k] = point(t, ys[k], c)
			}
			// The line goes first: the legend draws its icon from the first
			// series of a name, and the band's series share the name.
			if ri == 0 {
				line.AddSeries(name, data, styled(color(i-1), "solid", 2, "none", false)...)
			} else {
				sym := symbols[(ri-1)%len(symbols)]
				line.AddSeries(name, data, styled(color(i-1), "dotted", 2, sym, len(r.Times) <= 60)...)
			}
			if !c.noBand && len(r.CI95) >= len(r.Times) {
				half = make([]float64, len(r.Times))
				for k := range r.Times {
					half[k] = at(r.CI95[k], i-1)
				}
				addBand(line, name, color(i-1), fmt.Sprintf("%d-%d", ri, i), r.Times, ys, half, c)
			}
		}
	}
	if c.mfTimes != nil {
		if len(c.mfOccupancy) < len(c.mfTimes) {
			return finish(line, c, id, fmt.Errorf("kernelhelpers.MeanField: %d times but %d rows", len(c.mfTimes), len(c.mfOccupancy)))
		}
		for i := 1; i <= levels; i++ {
			data := make([]opts.LineData, len(c.mfTimes))
			for k, t := range c.mfTimes {
				data[k] = point(t, at(c.mfOccupancy[k], i-1), c)
			}
			line.AddSeries(c.mfName, data, styled(color(i-1), "dashed", 2, "none", false)...)
		}
	}
	return finish(line, c, id, nil)
}

func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return math.NaN()
}

// Stationary plots P(queue ≥ i) against i on a log scale, for each policy in
// sim (solid, filled markers) next to theory (dashed, hollow markers); sim[j]
// and theory[j] share a colour. Values ≤ 0 are left out (log axis). Result.Occupancy
// and the meanfield fixed points are in this form.
func Stationary(sim, theory []Curve, options ...Option) *Chart {
	c := newConfig(append([]Option{LogY()}, options...))
	id := newID("stat")
	line := newLine(c, id, "i", "P(queue ≥ i)", true)
	if len(sim)+len(theory) == 0 {
		return finish(line, c, id, errors.New("kernelhelpers.Stationary: no curves"))
	}
	add := func(cv Curve, j int, th bool) {
		n := len(cv.Values)
		if c.levels > 0 {
			n = min(n, c.levels)
		}
		data := make([]opts.LineData, n)
		for i := range n {
			data[i] = point(float64(i+1), cv.Values[i], c)
		}
		if th {
			line.AddSeries(cv.Name, data, styled(color(j), "dashed", 1.5, "emptyDiamond", true)...)
		} else {
			line.AddSeries(cv.Name, data, styled(color(j), "solid", 2, "circle", true)...)
		}
	}
	for j, cv := range sim {
		add(cv, j, false)
	}
	for j, cv := range theory {
		add(cv, j, true)
	}
	return finish(line, c, id, nil)
}

// Sweep plots a metric against a parameter, one line per group (with a 95%
// band when the group has CI95); LogLog, LogX, LogY set the scales, XLabel and
// YLabel name the axes.
func Sweep(groups []Series, options ...Option) *Chart {
	c := newConfig(options)
	id := newID("sweep")
	line := newLine(c, id, "parameter", "metric", false)
	if len(groups) == 0 {
		return finish(line, c, id, errors.New("kernelhelpers.Sweep: no groups"))
	}
	for j, g := range groups {
		if len(g.X) != len(g.Y) {
			return finish(line, c, id, fmt.Errorf("kernelhelpers.Sweep: group %q has %d x and %d y values", g.Name, len(g.X), len(g.Y)))
		}
		data := make([]opts.LineData, len(g.X))
		for k := range g.X {
			data[k] = point(g.X[k], g.Y[k], c)
		}
		line.AddSeries(g.Name, data, styled(color(j), "solid", 2, "circle", true)...)
		if len(g.CI95) > 0 && !c.noBand {
			addBand(line, g.Name, color(j), strconv.Itoa(j), g.X, g.Y, g.CI95, c)
		}
	}
	return finish(line, c, id, nil)
}
