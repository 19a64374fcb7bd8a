package kernelhelpers

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// queueColors colours queue lengths 0 (idle, grey), 1, 2, ... (green to dark red).
var queueColors = []string{"#d9d9d9", "#a1d99b", "#fed976", "#feb24c", "#fd8d3c",
	"#fc4e2a", "#e31a1c", "#bd0026", "#800026", "#4a0014"}

// Graph draws a small graph whose vertices are coloured by queue length, one
// frame per snapshot on an echarts timeline (a slider with a play button):
// lengths[s][v] is the queue length of vertex v in snapshot s, and edges are
// pairs of vertex indices. Vertices sit on a circle unless Positions is given;
// SnapshotLabels labels the frames, AutoPlay plays them.
func Graph(edges [][2]int, lengths [][]int, options ...Option) *Chart {
	c := newConfig(options)
	id := newID("graph")
	ch := &Chart{id: id, width: c.width, height: c.height}
	if err := c.refuse("Graph", graphOptions); err != nil {
		ch.err = err
		return ch
	}
	if len(lengths) == 0 || len(lengths[0]) == 0 {
		ch.err = errors.New("kernelhelpers.Graph: no snapshots")
		return ch
	}
	n := len(lengths[0])
	maxLen := 1
	for s, snap := range lengths {
		if len(snap) != n {
			ch.err = fmt.Errorf("kernelhelpers.Graph: snapshot %d has %d vertices, snapshot 0 has %d", s, len(snap), n)
			return ch
		}
		for _, l := range snap {
			maxLen = max(maxLen, l)
		}
	}
	for _, e := range edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			ch.err = fmt.Errorf("kernelhelpers.Graph: edge %v outside vertices 0..%d", e, n-1)
			return ch
		}
	}
	if c.positions != nil && len(c.positions) != n {
		ch.err = fmt.Errorf("kernelhelpers.Graph: %d positions for %d vertices", len(c.positions), n)
		return ch
	}

	// go-echarts builds the frame: title, tooltip, the graph series and its links.
	g := charts.NewGraph()
	layout := "circular"
	if c.positions != nil {
		layout = "none"
	}
	title := c.title
	if title == "" {
		title = "queue lengths"
	}
	g.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: id, Width: c.width, Height: c.height}),
		charts.WithTitleOpts(opts.Title{Title: title, Subtitle: c.subtitle, Left: "center"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Formatter: "vertex {b}: {c} task(s)"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithAnimation(c.animation),
	)
	links := make([]opts.GraphLink, len(edges))
	for i, e := range edges {
		links[i] = opts.GraphLink{Source: strconv.Itoa(e[0]), Target: strconv.Itoa(e[1])}
	}
	g.AddSeries("queues", nil, links,
		charts.WithGraphChartOpts(opts.GraphChart{Layout: layout, Roam: opts.Bool(true)}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Formatter: "{c}", Position: "inside"}),
		charts.WithLineStyleOpts(opts.LineStyle{Color: "#888", Width: 1.5}),
		charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.SymbolSize = 30 }),
	)
	var base map[string]any
	if err := json.Unmarshal([]byte(g.RenderSnippet().Option), &base); err != nil {
		ch.err = fmt.Errorf("kernelhelpers.Graph: go-echarts option is not JSON: %v", err)
		return ch
	}

	// Piecewise colour scale over queue lengths, one piece per length.
	var pieces []map[string]any
	top := min(maxLen, len(queueColors)-1)
	for l := 0; l <= top; l++ {
		p := map[string]any{"value": l, "label": "queue " + strconv.Itoa(l), "color": queueColors[l]}
		if l == 0 {
			p["label"] = "idle (0)"
		}
		if l == top && maxLen > top {
			p = map[string]any{"gte": l, "label": "queue ≥ " + strconv.Itoa(l), "color": queueColors[l]}
		}
		pieces = append(pieces, p)
	}
	base["visualMap"] = map[string]any{
		"type": "piecewise", "pieces": pieces, "seriesIndex": 0, "dimension": 0,
		"left": 10, "top": "middle", "orient": "vertical", "showLabel": true,
	}
	labels := c.snapshotLabels
	if len(labels) != len(lengths) {
		labels = make([]string, len(lengths))
		for s := range labels {
			labels[s] = strconv.Itoa(s)
		}
	}
	timeline := map[string]any{
		"axisType": "category", "data": labels, "bottom": 10, "left": 60, "right": 60,
		"autoPlay": c.autoPlay > 0, "loop": true, "playInterval": 1000,
		"label": map[string]any{"show": true},
	}
	if c.autoPlay > 0 {
		timeline["playInterval"] = c.autoPlay.Milliseconds()
	}
	base["timeline"] = timeline
	nodes := func(snap []int) []map[string]any {
		out := make([]map[string]any, n)
		for v, l := range snap {
			out[v] = map[string]any{"name": strconv.Itoa(v), "value": l}
			if c.positions != nil {
				out[v]["x"], out[v]["y"] = c.positions[v][0], c.positions[v][1]
			}
		}
		return out
	}
	if s, ok := base["series"].([]any); ok && len(s) == 1 {
		m := s[0].(map[string]any)
		m["data"] = nodes(lengths[0])
		m["circular"] = map[string]any{"rotateLabel": false}
		// Room for the title, the colour legend (left) and the timeline (bottom).
		m["top"], m["bottom"], m["left"], m["right"] = 60, 80, 140, 60
	}
	frames := make([]map[string]any, len(lengths))
	for s, snap := range lengths {
		frames[s] = map[string]any{
			"title":  map[string]any{"subtext": strings.TrimPrefix(c.subtitle+" · snapshot "+labels[s], " · ")},
			"series": []map[string]any{{"data": nodes(snap)}},
		}
	}
	b, err := json.Marshal(map[string]any{"baseOption": base, "options": frames})
	if err != nil {
		ch.err = fmt.Errorf("kernelhelpers.Graph: %v", err)
		return ch
	}
	ch.option = string(b)
	return ch
}
