package kernelhelpers

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Option configures a chart, a table or a progress bar. An option that does
// not apply to what it is passed to is refused: the chart shows the error
// (Chart.Err), NewTable and NewProgressBar fail the cell.
type Option func(*config)

type config struct {
	title, subtitle string
	xLabel, yLabel  string
	xUnit, yUnit    string
	width, height   string
	logX, logY      bool
	linearY         bool
	yMin            *float64
	levels          int
	mfTimes         []float64
	mfOccupancy     [][]float64
	mfName          string
	noBand          bool
	snapshotLabels  []string
	positions       [][2]float64
	autoPlay        time.Duration
	interval        time.Duration
	animation       bool
	given           []string // the names of the options given, in order
}

// named is the Option called name that applies set.
func named(name string, set func(*config)) Option {
	return func(c *config) {
		c.given = append(c.given, name)
		set(c)
	}
}

// Which options apply to what (the names of named).
var (
	tableOptions    = []string{"Title"}
	progressOptions = []string{"Interval"}
	graphOptions    = []string{"Title", "Subtitle", "Size", "SnapshotLabels", "Positions", "AutoPlay", "NoAnimation"}
	plotOptions     = []string{"Title", "Subtitle", "XLabel", "YLabel", "XUnit", "YUnit", "Size", "LogX", "LogY", "LogLog",
		"LinearY", "YMin", "NoBand", "NoAnimation"}
	levelOptions = append(slices.Clone(plotOptions), "Levels")
	trajOptions  = append(slices.Clone(levelOptions), "MeanField", "MeanFieldName")
)

// refuse returns an error naming the first option given that is not among
// applies, for what (a function's name), or nil.
func (c *config) refuse(what string, applies []string) error {
	for _, name := range c.given {
		if !slices.Contains(applies, name) {
			return fmt.Errorf("kernelhelpers.%s: option %s does not apply (the options of %s are %s)", what, name, what, strings.Join(applies, ", "))
		}
	}
	return nil
}

func newConfig(options []Option) *config {
	c := &config{
		width:     "100%",
		height:    "440px",
		mfName:    "mean field",
		interval:  250 * time.Millisecond,
		animation: true,
	}
	for _, o := range options {
		if o != nil {
			o(c)
		}
	}
	return c
}

// Title sets the chart's title (a table's caption).
func Title(title string) Option { return named("Title", func(c *config) { c.title = title }) }

// Subtitle sets the line under the title.
func Subtitle(s string) Option { return named("Subtitle", func(c *config) { c.subtitle = s }) }

// XLabel names the horizontal axis.
func XLabel(s string) Option { return named("XLabel", func(c *config) { c.xLabel = s }) }

// YLabel names the vertical axis.
func YLabel(s string) Option { return named("YLabel", func(c *config) { c.yLabel = s }) }

// XUnit gives the horizontal axis's unit, shown after its name: XLabel("time
// t"), XUnit("1/μ") give "time t (1/μ)".
func XUnit(u string) Option { return named("XUnit", func(c *config) { c.xUnit = u }) }

// YUnit gives the vertical axis's unit, shown after its name.
func YUnit(u string) Option { return named("YUnit", func(c *config) { c.yUnit = u }) }

// Size sets the chart container's CSS width and height (default "100%" and "440px").
func Size(width, height string) Option {
	return named("Size", func(c *config) {
		if width != "" {
			c.width = width
		}
		if height != "" {
			c.height = height
		}
	})
}

// LogX makes the horizontal axis logarithmic. Points with x <= 0 cannot be
// drawn: the chart's subtitle says which series lost how many.
func LogX() Option { return named("LogX", func(c *config) { c.logX = true }) }

// LogY makes the vertical axis logarithmic. Points with y <= 0 cannot be
// drawn: the chart's subtitle says which series lost how many (a series of
// zeros is named, not silently missing). Stationary plots are log-y already.
func LogY() Option { return named("LogY", func(c *config) { c.logY = true; c.linearY = false }) }

// LogLog makes both axes logarithmic.
func LogLog() Option {
	return named("LogLog", func(c *config) { c.logX, c.logY, c.linearY = true, true, false })
}

// LinearY makes the vertical axis linear, also for Stationary.
func LinearY() Option { return named("LinearY", func(c *config) { c.linearY = true; c.logY = false }) }

// YMin starts the vertical axis at v (ignored for v <= 0 on a log axis).
// Trajectory starts it at 0 on a linear axis.
func YMin(v float64) Option { return named("YMin", func(c *config) { c.yMin = &v }) }

// Levels limits occupancy plots to q_1..q_k. By default trajectories show the
// levels that reach 0.001 somewhere (at most 8) and stationary plots show all.
func Levels(k int) Option { return named("Levels", func(c *config) { c.levels = k }) }

// MeanField overlays a mean-field solution on a trajectory plot as dashed lines
// of the same colours: q[k][i-1] is q_i at times[k] (the layout of
// lbsim.Trajectory.Occupancy).
func MeanField(times []float64, q [][]float64) Option {
	return named("MeanField", func(c *config) { c.mfTimes, c.mfOccupancy = times, q })
}

// MeanFieldName names the overlay in the legend (default "mean field").
func MeanFieldName(name string) Option {
	return named("MeanFieldName", func(c *config) { c.mfName = name })
}

// NoBand drops the 95% confidence bands that trajectory and sweep plots draw
// when the data carry half-widths.
func NoBand() Option { return named("NoBand", func(c *config) { c.noBand = true }) }

// SnapshotLabels labels the graph snapshots on the timeline (default "0", "1", ...).
func SnapshotLabels(labels ...string) Option {
	return named("SnapshotLabels", func(c *config) { c.snapshotLabels = labels })
}

// Positions fixes the vertices' coordinates in a graph drawing (any units;
// echarts scales them to the box). Without it the vertices sit on a circle.
func Positions(xy [][2]float64) Option {
	return named("Positions", func(c *config) { c.positions = xy })
}

// AutoPlay makes the graph timeline play by itself, one snapshot per interval.
func AutoPlay(interval time.Duration) Option {
	return named("AutoPlay", func(c *config) { c.autoPlay = interval })
}

// Interval sets how often a progress bar may redraw (default 250ms); the final
// 100% state is always drawn.
func Interval(d time.Duration) Option { return named("Interval", func(c *config) { c.interval = d }) }

// NoAnimation switches off echarts' entry animation.
func NoAnimation() Option { return named("NoAnimation", func(c *config) { c.animation = false }) }
