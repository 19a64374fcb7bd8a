package kernelhelpers

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lbsim/notebooks/lbsim"
)

// fakeNotebook replaces the gonbui hooks; it returns what was displayed.
type fakeNotebook struct {
	mu      sync.Mutex
	shown   []string
	updates map[string][]string
	syncs   int
}

func useFakeNotebook(t *testing.T, sessionDir string) *fakeNotebook {
	t.Helper()
	f := &fakeNotebook{updates: map[string][]string{}}
	oldIn, oldD, oldU, oldS := inNotebook, displayHTML, updateHTML, syncDisplay
	inNotebook = func() bool { return true }
	displayHTML = func(h string) { f.mu.Lock(); f.shown = append(f.shown, h); f.mu.Unlock() }
	updateHTML = func(id, h string) { f.mu.Lock(); f.updates[id] = append(f.updates[id], h); f.mu.Unlock() }
	syncDisplay = func() { f.mu.Lock(); f.syncs++; f.mu.Unlock() }
	t.Setenv("GONB_TMP_DIR", sessionDir)
	newProcess()
	t.Cleanup(func() {
		inNotebook, displayHTML, updateHTML, syncDisplay = oldIn, oldD, oldU, oldS
		newProcess()
	})
	return f
}

// newProcess forgets the in-process flags (bundle delivered, note about
// missing SVG pictures shown), as a new cell program would.
func newProcess() {
	bundleMu.Lock()
	deliveredInProc = false
	bundleMu.Unlock()
	noSVGMu.Lock()
	noSVGToldInProc = false
	noSVGMu.Unlock()
}

func decode(t *testing.T, c *Chart) map[string]any {
	t.Helper()
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(c.Option()), &m); err != nil {
		t.Fatalf("option is not JSON: %v\n%s", err, c.Option())
	}
	return m
}

func seriesList(t *testing.T, m map[string]any) []map[string]any {
	var out []map[string]any
	for _, s := range m["series"].([]any) {
		out = append(out, s.(map[string]any))
	}
	return out
}

func testTrajectory() *lbsim.Trajectory {
	tr := &lbsim.Trajectory{}
	for k := range 20 {
		t := float64(k)
		tr.Times = append(tr.Times, t)
		tr.Occupancy = append(tr.Occupancy, []float64{0.9 * (1 - math.Exp(-t)), 0.7 * (1 - math.Exp(-t/2)), 0.2, 1e-5})
		tr.CI95 = append(tr.CI95, []float64{0.01, 0.01, math.NaN(), 0})
	}
	return tr
}

func TestTrajectoryOptions(t *testing.T) {
	tr := testTrajectory()
	mf := [][]float64{{0, 0, 0}, {0.9, 0.73, 0.2}}
	c := Trajectories([]Run{Traj("JSQ(2)", tr), Traj("random", tr)},
		MeanField([]float64{0, 19}, mf), Title("Trajectories <b>"), XLabel("time"))
	m := decode(t, c)
	ss := seriesList(t, m)
	names := map[string]int{}
	dashed, bands := 0, 0
	for _, s := range ss {
		names[s["name"].(string)]++
		if ls, ok := s["lineStyle"].(map[string]any); ok && ls["type"] == "dashed" {
			dashed++
			if s["name"] != "mean field" {
				t.Errorf("dashed series %v is not the overlay", s["name"])
			}
		}
		if id, _ := s["id"].(string); strings.HasPrefix(id, bandPrefix) {
			bands++
			if s["stack"] == nil || s["tooltip"].(map[string]any)["show"] != false {
				t.Errorf("band series %v: no stack or visible in tooltip", id)
			}
		}
	}
	// Levels: q_1..q_3 reach 0.001, q_4 does not.
	for _, n := range []string{"JSQ(2) q₁", "JSQ(2) q₃", "random q₂", "mean field"} {
		if names[n] == 0 {
			t.Errorf("no series %q in %v", n, names)
		}
	}
	if names["JSQ(2) q₄"] != 0 {
		t.Errorf("q₄ (never above 0.001) is plotted by default")
	}
	if dashed != 3 {
		t.Errorf("%d dashed overlay series, want 3 (one per level)", dashed)
	}
	// Bands: levels 1 and 2 of both runs (level 3 has NaN half-widths), two series each.
	if bands != 8 {
		t.Errorf("%d band series, want 8", bands)
	}
	if !strings.Contains(c.HTML(), "Trajectories \\u003cb\\u003e") {
		t.Errorf("title not escaped in the script: %s", c.HTML())
	}
	if strings.Contains(c.HTML(), "<b>") {
		t.Error("raw <b> from the title in the HTML")
	}

	nb := decode(t, Trajectory(tr, NoBand(), Levels(4)))
	for _, s := range seriesList(t, nb) {
		if id, _ := s["id"].(string); strings.HasPrefix(id, bandPrefix) {
			t.Error("NoBand still draws bands")
		}
	}
	if n := len(seriesList(t, nb)); n != 4 {
		t.Errorf("Levels(4): %d series", n)
	}
	if Trajectory(nil).Err() == nil {
		t.Error("nil trajectory: no error")
	}
}

func TestStationaryLogAxis(t *testing.T) {
	sim := []Curve{{"JSQ(2)", []float64{0.9, 0.73, 0.48, 0.2, 0}}, {"random", []float64{0.9, 0.81, 0.73}}}
	th := []Curve{{"JSQ(2) fixed point", []float64{0.9, 0.729, 0.478, 0.206, 0.038}}}
	m := decode(t, Stationary(sim, th, Title("P(Q ≥ i)")))
	y := m["yAxis"].([]any)[0].(map[string]any)
	if y["type"] != "log" {
		t.Errorf("y axis type %v, want log", y["type"])
	}
	var theory map[string]any
	for _, s := range seriesList(t, m) {
		if s["name"] == "JSQ(2) fixed point" {
			theory = s
		}
		if s["name"] == "JSQ(2)" {
			// The zero at i = 5 is a gap on a log axis.
			last := s["data"].([]any)[4].(map[string]any)["value"].([]any)
			if last[1] != nil {
				t.Errorf("P(Q>=5)=0 plotted as %v on a log axis", last[1])
			}
		}
	}
	if theory == nil || theory["lineStyle"].(map[string]any)["type"] != "dashed" || theory["symbol"] != "emptyDiamond" {
		t.Errorf("theory series not dashed with markers: %v", theory)
	}
	lin := decode(t, Stationary(sim, nil, LinearY()))
	if lin["yAxis"].([]any)[0].(map[string]any)["type"] != "value" {
		t.Error("LinearY ignored")
	}
}

func TestSweepLogLog(t *testing.T) {
	g := []Series{{Name: "JSQ(2)", X: []float64{0.5, 0.1, 0.01}, Y: []float64{1.2, 2, 3}, CI95: []float64{0.1, 0.1, 0.2}},
		{Name: "random", X: []float64{0.5, 0.1, 0.01}, Y: []float64{2, 10, 100}}}
	m := decode(t, Sweep(g, LogLog(), XLabel("1-λ"), YLabel("mean sojourn")))
	x := m["xAxis"].([]any)[0].(map[string]any)
	y := m["yAxis"].([]any)[0].(map[string]any)
	if x["type"] != "log" || y["type"] != "log" || x["name"] != "1-λ" || y["name"] != "mean sojourn" {
		t.Errorf("axes: x %v, y %v", x, y)
	}
	if !strings.Contains(Sweep(g).Option(), `"type":"value"`) {
		t.Error("linear sweep has no value axis")
	}
	if Sweep([]Series{{Name: "bad", X: []float64{1}, Y: nil}}).Err() == nil {
		t.Error("mismatched lengths: no error")
	}
}

func TestGraphTimeline(t *testing.T) {
	edges := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}}
	lengths := [][]int{{0, 1, 2, 0}, {1, 1, 0, 3}, {0, 0, 0, 12}}
	m := decode(t, Graph(edges, lengths, SnapshotLabels("t=0", "t=1", "t=2")))
	base := m["baseOption"].(map[string]any)
	tl := base["timeline"].(map[string]any)
	if got := tl["data"].([]any); len(got) != 3 || got[1] != "t=1" {
		t.Errorf("timeline data %v", got)
	}
	frames := m["options"].([]any)
	if len(frames) != 3 {
		t.Fatalf("%d frames", len(frames))
	}
	last := frames[2].(map[string]any)["series"].([]any)[0].(map[string]any)["data"].([]any)
	if v := last[3].(map[string]any)["value"]; v != 12.0 {
		t.Errorf("vertex 3 in frame 2: %v", v)
	}
	// A zero length is kept (go-echarts' GraphNode would drop it: omitempty).
	if v, ok := last[0].(map[string]any)["value"]; !ok || v != 0.0 {
		t.Errorf("zero queue length lost: %v", last[0])
	}
	s := base["series"].([]any)[0].(map[string]any)
	if s["type"] != "graph" || len(s["links"].([]any)) != 4 {
		t.Errorf("graph series %v", s)
	}
	if base["visualMap"] == nil {
		t.Error("no visualMap")
	}
	if Graph(edges, [][]int{{0, 1}}).Err() == nil {
		t.Error("edge out of range: no error")
	}
}

func TestUniqueIDs(t *testing.T) {
	seen := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				id := Sweep([]Series{{Name: "a", X: []float64{1}, Y: []float64{1}}}).ID()
				mu.Lock()
				if seen[id] {
					t.Errorf("duplicate id %s", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	c := Sweep([]Series{{Name: "a", X: []float64{1}, Y: []float64{1}}})
	if !strings.Contains(c.HTML(), `id="`+c.ID()+`"`) {
		t.Error("container does not carry the chart id")
	}
}

func TestTableEscapes(t *testing.T) {
	tb := NewTable([]string{"policy", "<q1>"}, [][]any{{"<script>alert(1)</script>", 0.123456789}, {"a&b", math.NaN()}}, Title("x < y"))
	h := tb.HTML()
	for _, bad := range []string{"<script>", "<q1>", "a&b", "x < y"} {
		if strings.Contains(h, bad) {
			t.Errorf("unescaped %q in %s", bad, h)
		}
	}
	for _, want := range []string{"&lt;script&gt;", "&lt;q1&gt;", "a&amp;b", "0.12346", "x &lt; y"} {
		if !strings.Contains(h, want) {
			t.Errorf("missing %q in %s", want, h)
		}
	}
	res := &lbsim.Result{Policy: "JSQ(2)", MeanTasksPerServer: 1.5, MeanTasksPerServerCI95: 0.01,
		MeanSojourn: 2, MeanSojournCI95: math.NaN(), Replications: 4}
	res.Scenario.Servers, res.Scenario.Lambda = 100, 0.9
	if h := ResultsTable([]*lbsim.Result{res}).HTML(); !strings.Contains(h, "JSQ(2)") || !strings.Contains(h, "1.5 ± 0.01") {
		t.Errorf("results table: %s", h)
	}
}

func TestProgressThrottlesAndFinishes(t *testing.T) {
	f := useFakeNotebook(t, t.TempDir())
	clock := time.Unix(0, 0)
	var cmu sync.Mutex
	now = func() time.Time { cmu.Lock(); defer cmu.Unlock(); return clock }
	defer func() { now = time.Now }()
	advance := func(d time.Duration) { cmu.Lock(); clock = clock.Add(d); cmu.Unlock() }

	bar := NewProgressBar("JSQ(2) <x>", Interval(time.Second))
	update := bar.Update
	// 8 goroutines x 100 reports within 50 simulated ms: throttled to the first draw.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 100 {
				update(lbsim.Progress{Replication: g, Replications: 8, Fraction: float64(k) / 1000})
			}
		}()
	}
	wg.Wait()
	if d := bar.Draws(); d != 1 {
		t.Errorf("%d draws within the interval, want 1 (the initial one)", d)
	}
	advance(2 * time.Second)
	update(lbsim.Progress{Replications: 8, Done: 3, Fraction: 0.5})
	update(lbsim.Progress{Replications: 8, Done: 3, Fraction: 0.4}) // late report: no step back
	if bar.Fraction() != 0.5 || bar.Draws() != 2 {
		t.Errorf("fraction %v draws %d, want 0.5 and 2", bar.Fraction(), bar.Draws())
	}
	// The last report has Done == Replications; its fraction may be 0.9999999.
	update(lbsim.Progress{Replications: 8, Done: 8, Fraction: 0.9999999})
	update(lbsim.Progress{Replications: 8, Done: 7, Fraction: 0.98})
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.updates) != 1 {
		t.Fatalf("%d display ids, want 1 (updated in place)", len(f.updates))
	}
	for _, hs := range f.updates {
		last := hs[len(hs)-1]
		if !strings.Contains(last, `data-fraction="1.0000"`) || !strings.Contains(last, "100% in") {
			t.Errorf("last draw is not 100%%: %s", last)
		}
		if strings.Contains(last, "<x>") {
			t.Error("label not escaped")
		}
		if len(hs) != 3 {
			t.Errorf("%d draws, want 3", len(hs))
		}
	}
	if f.syncs == 0 {
		t.Error("no Sync after the final draw")
	}
}

func TestProgressRealRun(t *testing.T) {
	f := useFakeNotebook(t, t.TempDir())
	sc := lbsim.Scenario{Servers: 50, Lambda: 0.8, Policy: lbsim.JSQd(2), Horizon: 200, Replications: 4, Seed: 1}
	bar := NewProgressBar("JSQ(2)", Interval(time.Millisecond))
	sc.Progress = bar.Update
	if _, err := lbsim.Run(t.Context(), sc); err != nil {
		t.Fatal(err)
	}
	if bar.Fraction() != 1 {
		t.Errorf("bar at %v after the run", bar.Fraction())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, hs := range f.updates {
		if last := hs[len(hs)-1]; !strings.Contains(last, "100% in") || !strings.Contains(last, "4/4 replications done") {
			t.Errorf("last draw, want 100%% and 4/4: %s", last)
		}
	}
}

// The last replication reports a fraction of 1 before it is counted; the bar
// must not stop there, at n-1/n.
func TestProgressEndsAtNofN(t *testing.T) {
	f := useFakeNotebook(t, t.TempDir())
	bar := NewProgressBar("run", Interval(time.Hour))
	bar.Update(lbsim.Progress{Replications: 8, Done: 7, Fraction: 1})
	bar.Update(lbsim.Progress{Replications: 8, Done: 8, Fraction: 1})
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, hs := range f.updates {
		if last := hs[len(hs)-1]; !strings.Contains(last, "8/8 replications done") {
			t.Errorf("last draw: %s", last)
		}
	}
}

func fakeBundle(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "echarts.min.js")
	js := `!function(t,e){"object"==typeof exports&&"undefined"!=typeof module?e(exports):"function"==typeof define&&define.amd?define(["exports"],e):e((t="undefined"!=typeof globalThis?globalThis:t||self).echarts={})}(this,(function(t){t.version="fake-echarts-bundle"}));`
	if err := os.WriteFile(p, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EchartsEnv, p)
	bundleMu.Lock()
	bundleCache = ""
	bundleMu.Unlock()
	t.Cleanup(func() { bundleMu.Lock(); bundleCache = ""; bundleMu.Unlock() })
	return p
}

func TestBundleOncePerSession(t *testing.T) {
	fakeBundle(t)
	session1 := t.TempDir()
	f := useFakeNotebook(t, session1)
	chart := func() *Chart { return Sweep([]Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}) }

	// Cell 1 of session 1: two charts, the first carries the bundle.
	for range 2 {
		if err := chart().Display(); err != nil {
			t.Fatal(err)
		}
	}
	// Cells 2 and 3 are new processes of the same kernel.
	newProcess()
	chart().Display()
	newProcess()
	Sweep(nil).Display() // an error box, no bundle
	chart().Display()
	count := func(from int) int {
		n := 0
		for _, h := range f.shown[from:] {
			n += strings.Count(h, "fake-echarts-bundle")
		}
		return n
	}
	if n := count(0); n != 1 {
		t.Fatalf("session 1: bundle displayed %d times, want 1", n)
	}
	if !strings.Contains(f.shown[0], "fake-echarts-bundle") || !strings.Contains(f.shown[0], "(function (define, exports, module)") {
		t.Errorf("the first chart does not carry the wrapped bundle: %.300s", f.shown[0])
	}
	if f.syncs < 4 {
		t.Errorf("%d syncs for 4 charts", f.syncs)
	}

	// A new kernel (restart, or a reopened notebook where only a later cell runs).
	seen := len(f.shown)
	t.Setenv("GONB_TMP_DIR", t.TempDir())
	newProcess()
	chart().Display()
	chart().Display()
	if n := count(seen); n != 1 {
		t.Errorf("session 2: bundle displayed %d times, want 1", n)
	}

	// Setup always embeds it, and charts after it do not.
	seen = len(f.shown)
	newProcess()
	if err := Setup(); err != nil {
		t.Fatal(err)
	}
	chart().Display()
	if n := count(seen); n != 1 || !strings.Contains(f.shown[seen], "fake-echarts-bundle") {
		t.Errorf("Setup: bundle displayed %d times", n)
	}
}

func TestMissingBundle(t *testing.T) {
	f := useFakeNotebook(t, t.TempDir())
	t.Setenv(EchartsEnv, filepath.Join(t.TempDir(), "nope.js"))
	bundleMu.Lock()
	bundleCache = ""
	bundleMu.Unlock()
	err := Sweep([]Series{{Name: "a", X: []float64{1}, Y: []float64{1}}}).Display()
	if err == nil || !strings.Contains(err.Error(), EchartsEnv) {
		t.Fatalf("error %v", err)
	}
	if len(f.shown) != 1 || !strings.Contains(f.shown[0], "lbsim-error") {
		t.Errorf("error not shown: %v", f.shown)
	}
	// Nothing was recorded: the next chart tries again.
	bundleMu.Lock()
	d := deliveredInProc
	bundleMu.Unlock()
	if d {
		t.Error("failed delivery recorded as done")
	}
}

func TestStandaloneHTMLHasEchartsOnce(t *testing.T) {
	p, err := EchartsPath()
	if err != nil {
		t.Skipf("real bundle not installed (scripts/setup.sh): %v", err)
	}
	js, _ := os.ReadFile(p)
	marker := string(js[len(js)-200:]) // the bundle's tail
	tr := testTrajectory()
	a := Trajectory(tr)
	b := Stationary([]Curve{{"x", []float64{0.5, 0.25}}}, nil)
	var buf bytes.Buffer
	if _, err := a.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), marker); n != 1 {
		t.Errorf("single chart page: bundle %d times", n)
	}
	path := filepath.Join(t.TempDir(), "page.html")
	if err := WriteHTML(path, "two charts", a, b, NewTable([]string{"a"}, [][]any{{1}})); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(path)
	s := string(page)
	if n := strings.Count(s, marker); n != 1 {
		t.Errorf("page: bundle %d times", n)
	}
	if strings.Count(s, "data-lbsim-echarts=") != 1 || !strings.Contains(s, a.ID()) || !strings.Contains(s, b.ID()) || !strings.Contains(s, "lbsim-table") {
		t.Error("page lacks a chart, the table or has the bundle twice")
	}
	if strings.Count(strings.ToLower(s), "</script") != strings.Count(strings.ToLower(s), "<script") {
		t.Error("unbalanced script tags")
	}
}

func TestOutsideNotebookIsNoop(t *testing.T) {
	if inNotebook() {
		t.Skip("running inside GoNB")
	}
	if err := Sweep([]Series{{Name: "a", X: []float64{1}, Y: []float64{1}}}).Display(); err != nil {
		t.Fatal(err)
	}
	NewProgressBar("x").Update(lbsim.Progress{Replications: 1, Done: 1, Fraction: 1})
}
