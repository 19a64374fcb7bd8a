package kernelhelpers

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
)

// points returns the (x, y) pairs of an echarts line series, nil for gaps.
func points(t *testing.T, s map[string]any) [][2]any {
	t.Helper()
	var out [][2]any
	for _, d := range s["data"].([]any) {
		v := d.(map[string]any)["value"].([]any)
		out = append(out, [2]any{v[0], v[1]})
	}
	return out
}

// mainSeries returns the drawn (non-band) series of a chart by name, in order.
func mainSeries(t *testing.T, m map[string]any) []map[string]any {
	var out []map[string]any
	for _, s := range seriesList(t, m) {
		if id, _ := s["id"].(string); !strings.HasPrefix(id, bandPrefix) {
			out = append(out, s)
		}
	}
	return out
}

func lineType(s map[string]any) any { return s["lineStyle"].(map[string]any)["type"] }

func TestLinesDrawsTheGivenSeries(t *testing.T) {
	data := Series{Name: "sim", X: []float64{1, 2, 3}, Y: []float64{0.5, math.NaN(), 0.25}, CI95: []float64{0.01, 0.02, 0.03}}
	ref := Reference(Series{Name: "theory", X: []float64{1, 3}, Y: []float64{0.5, 0.2}})
	m := decode(t, Lines([]Series{data, ref}, XLabel("t"), YMin(0)))
	ss := mainSeries(t, m)
	if len(ss) != 2 || ss[0]["name"] != "sim" || ss[1]["name"] != "theory" {
		t.Fatalf("series %v", ss)
	}
	want := [][2]any{{1.0, 0.5}, {2.0, nil}, {3.0, 0.25}}
	if got := points(t, ss[0]); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("data points %v, want %v (NaN as a gap)", got, want)
	}
	if got := points(t, ss[1]); len(got) != 2 || got[1] != [2]any{3.0, 0.2} {
		t.Errorf("reference points %v", got)
	}
	if lineType(ss[0]) != "solid" || lineType(ss[1]) != "dashed" || ss[1]["symbol"] != "emptyDiamond" || ss[0]["symbol"] != "circle" {
		t.Errorf("styles: data %v %v, reference %v %v", lineType(ss[0]), ss[0]["symbol"], lineType(ss[1]), ss[1]["symbol"])
	}
	// The band: lower edge y - h and width 2h, stored (y, x), for points 1 and 3; a gap at 2.
	var bands []map[string]any
	for _, s := range seriesList(t, m) {
		if id, _ := s["id"].(string); strings.HasPrefix(id, bandPrefix) {
			bands = append(bands, s)
		}
	}
	if len(bands) != 2 || bands[0]["name"] != "sim" {
		t.Fatalf("%d band series (want 2, for sim only)", len(bands))
	}
	lo, w := points(t, bands[0]), points(t, bands[1])
	if lo[0][0] != 0.49 || lo[0][1] != 1.0 || math.Abs(w[2][0].(float64)-0.06) > 1e-12 || lo[1][0] != nil {
		t.Errorf("band lower %v, width %v", lo, w)
	}
	x := m["xAxis"].([]any)[0].(map[string]any)
	y := m["yAxis"].([]any)[0].(map[string]any)
	if x["name"] != "t" || y["min"] != 0.0 || x["type"] != "value" {
		t.Errorf("axes x %v, y %v", x, y)
	}
	// Colours: by position unless given; a given colour pairs two series.
	if ss[0]["lineStyle"].(map[string]any)["color"] != Color(0) || ss[1]["lineStyle"].(map[string]any)["color"] != Color(1) {
		t.Errorf("default colours %v %v", ss[0]["lineStyle"], ss[1]["lineStyle"])
	}
	ref.Color = Color(0)
	if c := mainSeries(t, decode(t, Lines([]Series{data, ref})))[1]["lineStyle"].(map[string]any)["color"]; c != Color(0) {
		t.Errorf("Color ignored: %v", c)
	}
	if Lines(nil).Err() == nil || Lines([]Series{{Name: "a", X: []float64{1}, Y: []float64{1}, CI95: []float64{1, 2}}}).Err() == nil {
		t.Error("no series, or mismatched half-widths: no error")
	}
	if nb := seriesList(t, decode(t, Lines([]Series{data}, NoBand()))); len(nb) != 1 {
		t.Errorf("NoBand: %d series", len(nb))
	}
}

func TestLinesLogAxesAndLongSeries(t *testing.T) {
	long := Series{Name: "long"}
	for k := range 100 {
		long.Add(float64(k), math.Exp(-float64(k)/10))
	}
	m := decode(t, Lines([]Series{long}, LogLog()))
	if m["xAxis"].([]any)[0].(map[string]any)["type"] != "log" || m["yAxis"].([]any)[0].(map[string]any)["type"] != "log" {
		t.Error("LogLog: axes not log")
	}
	s := mainSeries(t, m)[0]
	if s["symbol"] != "none" {
		t.Errorf("a 100-point series has markers %v", s["symbol"])
	}
	if p := points(t, s); p[0][0] != nil || p[1][0] != 1.0 {
		t.Errorf("x = 0 on a log axis: %v, want a gap", p[:2])
	}
}

func TestSeriesAdd(t *testing.T) {
	var s Series
	s.Add(1, 2)
	s.AddCI(2, 3, 0.5)
	s.Add(3, 4)
	if len(s.X) != 3 || len(s.CI95) != 3 || !math.IsNaN(s.CI95[0]) || s.CI95[1] != 0.5 || !math.IsNaN(s.CI95[2]) {
		t.Errorf("%+v", s)
	}
}

func TestTails(t *testing.T) {
	tail := Tail("JSQ(2)", []float64{0.9, 0.729, 0.478, 0})
	if tail.X[3] != 4 || tail.Y[2] != 0.478 {
		t.Errorf("Tail: %+v", tail)
	}
	m := decode(t, Tails([]Series{tail, Reference(Tail("fp", []float64{0.9, 0.73, 0.48, 0.2, 0.04}))}, Levels(3)))
	if m["yAxis"].([]any)[0].(map[string]any)["type"] != "log" || m["xAxis"].([]any)[0].(map[string]any)["minInterval"] != 1.0 {
		t.Errorf("Tails axes: %v %v", m["xAxis"], m["yAxis"])
	}
	for _, s := range mainSeries(t, m) {
		if n := len(points(t, s)); n != 3 {
			t.Errorf("Levels(3): %s has %d points", s["name"], n)
		}
	}
	if p := points(t, mainSeries(t, decode(t, Tails([]Series{tail})))[0]); p[3][1] != nil {
		t.Errorf("P = 0 on the log axis: %v", p[3])
	}
}

func TestAxisUnits(t *testing.T) {
	s := Series{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}
	m := decode(t, Sweep([]Series{s}, XLabel("load λ"), XUnit("tasks/s"), YUnit("s")))
	x := m["xAxis"].([]any)[0].(map[string]any)
	y := m["yAxis"].([]any)[0].(map[string]any)
	if x["name"] != "load λ (tasks/s)" || y["name"] != "metric (s)" {
		t.Errorf("axis names %q, %q", x["name"], y["name"])
	}
}

func TestLogAxisSaysWhatItOmits(t *testing.T) {
	subtitle := func(c *Chart) string {
		t.Helper()
		s, _ := decode(t, c)["title"].(map[string]any)["subtext"].(string)
		return s
	}
	tail := Tail("JSQ(2)", []float64{0.9, 0.729, 0.478, 0})
	zeros := Tail("never waits", []float64{0, 0, 0})
	got := subtitle(Tails([]Series{tail, zeros}, Subtitle("λ = 0.9")))
	want := "λ = 0.9\nlog scale, values ≤ 0 not drawn: JSQ(2) (1 of 4 points); never waits (all 3 points: not shown)"
	if got != want {
		t.Errorf("subtitle %q, want %q", got, want)
	}
	// Nothing to say on a linear axis, or when every point is positive.
	if s := subtitle(Tails([]Series{tail, zeros}, LinearY())); s != "" {
		t.Errorf("linear axis: subtitle %q", s)
	}
	if s := subtitle(Tails([]Series{tail}, Levels(3))); s != "" {
		t.Errorf("no point <= 0 shown: subtitle %q", s)
	}
	// Log x: x <= 0 counts; NaN (a gap) does not.
	s := Series{Name: "sweep", X: []float64{0, 0.1, math.NaN(), 1}, Y: []float64{1, 2, 3, 4}}
	if got := subtitle(Sweep([]Series{s}, LogX())); !strings.HasSuffix(got, "sweep (1 of 3 points)") {
		t.Errorf("log x: subtitle %q", got)
	}
}

func TestAdapters(t *testing.T) {
	res := &lbsim.Result{Occupancy: []float64{0.9, 0.7}, OccupancyCI95: []float64{0.01, 0.02}}
	s := ResultTail("JSQ(2)", res)
	if s.Name != "JSQ(2)" || s.X[1] != 2 || s.Y[1] != 0.7 || s.CI95[1] != 0.02 || s.Reference {
		t.Errorf("ResultTail: %+v", s)
	}
	tr := testTrajectory()
	ls := LevelSeries(Traj("run", tr), 2)
	if len(ls) != 2 || ls[1].Name != "run q₂" || ls[1].Y[5] != tr.Occupancy[5][1] || ls[1].X[5] != 5 || ls[1].CI95[5] != 0.01 || ls[1].Color != Color(1) {
		t.Errorf("LevelSeries: %+v", ls[1])
	}
	// Stationary pairs sim[j] with theory[j] in colour, theory dashed.
	m := decode(t, Stationary([]Curve{{"a", []float64{0.5, 0.2}}, {"b", []float64{0.6}}}, []Curve{{"a fp", []float64{0.5, 0.25}}}))
	ss := mainSeries(t, m)
	if len(ss) != 3 || ss[2]["name"] != "a fp" || lineType(ss[2]) != "dashed" ||
		ss[2]["lineStyle"].(map[string]any)["color"] != ss[0]["lineStyle"].(map[string]any)["color"] {
		t.Errorf("Stationary series %v", ss)
	}
	if p := points(t, ss[0]); p[1] != [2]any{2.0, 0.2} {
		t.Errorf("Stationary points %v", p)
	}
	if Stationary(nil, nil).Err() == nil {
		t.Error("Stationary with no curves: no error")
	}
	// Trajectory: the mean-field overlay is a reference per level, in the level's colour.
	mf := [][]float64{{0, 0}, {0.9, 0.7}}
	ts := mainSeries(t, decode(t, Trajectory(tr, Levels(2), MeanField([]float64{0, 19}, mf))))
	if len(ts) != 4 || ts[3]["name"] != "mean field" || lineType(ts[3]) != "dashed" ||
		ts[3]["lineStyle"].(map[string]any)["color"] != Color(1) || points(t, ts[3])[1] != [2]any{19.0, 0.7} {
		t.Errorf("Trajectory series %v", ts)
	}
	if h := ResultsTable([]*lbsim.Result{{Policy: "p", MeanSojourn: 2, MeanSojournCI95: 0.1}}).HTML(); !strings.Contains(h, "2 ± 0.1") {
		t.Errorf("ResultsTable: %s", h)
	}
}

func TestNotebookHelpers(t *testing.T) {
	var out bytes.Buffer
	old := checkOut
	checkOut = &out
	defer func() { checkOut = old }()

	t.Setenv("LBSIM_QUICK", "1")
	if !Quick() || Pick(1, 2) != 1 {
		t.Error("quick mode not seen")
	}
	t.Setenv("LBSIM_QUICK", "")
	if Quick() || Pick("q", "f") != "f" {
		t.Error("full mode not seen")
	}

	Check("q_1", 0.901, 0.9, 0.002, "4 half-widths")
	if l := out.String(); !strings.HasPrefix(l, "PASS  q_1: got 0.901, want 0.9, |diff| 0.001, tol 0.002 (4 half-widths)") {
		t.Errorf("check line %q", l)
	}
	fails := func(f func()) (line string) {
		defer func() {
			if r := recover(); r != nil {
				line = r.(CheckFailure).Line
			}
		}()
		f()
		return ""
	}
	if l := fails(func() { Check("q_2", 0.8, 0.7, 0.05, "") }); !strings.Contains(l, "|diff| 0.1") {
		t.Errorf("failed check: %q", l)
	}
	if fails(func() { Check("nan", math.NaN(), 0.7, 1, "") }) == "" {
		t.Error("NaN passes")
	}
	if !strings.Contains(out.String(), "FAIL  q_2") {
		t.Errorf("no FAIL line in %q", out.String())
	}
	CheckThat("order", true, "%d < %d", 1, 2)
	if l := fails(func() { CheckThat("order", false, "%d < %d", 2, 1) }); l != "order: 2 < 1" {
		t.Errorf("CheckThat: %q", l)
	}

	if Must(3, nil) != 3 {
		t.Error("Must")
	}
	t.Setenv("GONB_TMP_DIR", t.TempDir())
	MustKeep("xs", []float64{1, 2})
	if xs := MustRecall[[]float64]("xs"); len(xs) != 2 || xs[1] != 2 {
		t.Errorf("recalled %v", xs)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("MustRecall of nothing does not fail")
			}
		}()
		MustRecall[int]("never-kept")
	}()
}
