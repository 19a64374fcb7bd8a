package kernelhelpers

// The real-browser test: Jupyter Notebook 6 + the GoNB kernel + headless
// Debian Chromium driven over the DevTools protocol (chromedp). It runs when
// LBSIM_BROWSER_TEST=1 (make test sets it) and needs scripts/setup.sh to have
// run (Jupyter, bin/gonb, echarts, chromium).
//
// For kernelhelpers/testdata/charts.ipynb (every kind of chart) and the
// notebooks named in LBSIM_BROWSER_NOTEBOOKS (default: defaultBrowserNotebooks,
// three short ones with lines, tails, bands, tables and graph drawings; "all":
// every notebooks/*.ipynb, which `make test` leaves to scripts/run-notebooks.sh
// so that CI does not run every notebook twice), copied
// into artifacts/browser/work/ (inside the repository, so DataPath finds
// data/ from $GONB_DIR), it:
//
//  1. opens the notebook from a Jupyter server on 127.0.0.1 (own random token, free
//     port, own kernel spec running this checkout's bin/gonb with this
//     checkout in its go.work, as scripts/setup.sh registers it), runs all
//     cells with Jupyter.notebook.execute_all_cells() and waits until every
//     code cell has an execution count and the kernel is idle;
//  2. asserts no cell has an error output or a kernelhelpers error box, that
//     the outputs hold the echarts bundle exactly once (if there are charts),
//     and that every chart container holds an echarts canvas whose pixels are
//     not all one colour; takes screenshots into artifacts/browser/;
//  3. saves the notebook, reloads the page (a reopened trusted notebook
//     replays its outputs) and checks the charts draw again; for charts.ipynb
//     it then restarts the kernel, re-runs only the cells before the sweep
//     and the sweep cell, and checks that this cell's new output carries the
//     bundle (a fresh kernel delivers it again);
//  4. exports the saved notebook with `jupyter nbconvert --to html` and
//     checks the charts in that file, opened via file://: with JavaScript
//     the interactive canvases replace the static pictures; with JavaScript
//     disabled (as on GitHub, nbviewer or in a PDF) every chart shows its
//     static SVG picture: loaded, not blank, parsed, with its series drawn
//     (paths in the series' colours) and named (legend texts);
//  5. for charts.ipynb, opens a copy of the saved notebook that Jupyter did
//     not sign (as a downloaded notebook): untrusted, its outputs are
//     sanitized and their scripts do not run, and every chart's picture shows.
//
// Chromium resolves no host name but 127.0.0.1 (--host-resolver-rules) and
// uses no proxy, so everything must work offline: the nbconvert export's
// require.js from a CDN fails to load, as it would on a machine without a
// network.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

const (
	chromiumBin = "/usr/bin/chromium"
	jupyterBin  = "/usr/bin/jupyter"
)

func TestBrowserNotebooks(t *testing.T) {
	if os.Getenv("LBSIM_BROWSER_TEST") != "1" {
		t.Skip("real-browser test skipped: set LBSIM_BROWSER_TEST=1 (make test does) to run Jupyter + headless Chromium")
	}
	t0 := time.Now()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, need := range []string{chromiumBin, jupyterBin, filepath.Join(root, "bin", "gonb")} {
		if _, err := os.Stat(need); err != nil {
			t.Fatalf("%s missing (run scripts/setup.sh): %v", need, err)
		}
	}
	if _, err := EchartsPath(); err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}

	art := filepath.Join(root, "artifacts", "browser")
	work := filepath.Join(art, "work")
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	notebooks := []string{filepath.Join(root, "kernelhelpers", "testdata", "charts.ipynb")}
	more, _ := filepath.Glob(filepath.Join(root, "notebooks", "*.ipynb"))
	notebooks = append(notebooks, browserNotebooks(t, more)...)
	var names []string
	for _, nb := range notebooks {
		b, err := os.ReadFile(nb)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(nb)
		if err := os.WriteFile(filepath.Join(work, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}

	// Jupyter: own data/config/runtime dirs, with a gonb kernel spec for this checkout.
	jdir := t.TempDir()
	env, err := jupyterEnv(jdir, root, filepath.Dir(goBin))
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	token := rand.Text() // 26 random base-32 characters (crypto/rand): no other local user can guess it
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	stopJupyter := startJupyter(t, env, work, port, token, filepath.Join(art, "jupyter.log"))
	defer stopJupyter()
	t.Logf("jupyter up at %s in %.1fs", base, time.Since(t0).Seconds())

	// Chromium, headless, offline apart from 127.0.0.1.
	profile := t.TempDir()
	var chromeLog bytes.Buffer
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumBin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(profile),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.WindowSize(1280, 1000),
		chromedp.CombinedOutput(&chromeLog),
	)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("chromium (%s) did not start: %v\n%s", chromiumBin, err, chromeLog.String())
	}

	for _, name := range names {
		stem := strings.TrimSuffix(name, ".ipynb")
		t.Run(stem, func(t *testing.T) {
			tn := time.Now()
			ctx, cancel := chromedp.NewContext(bctx)
			defer cancel()
			ctx, cancelT := context.WithTimeout(ctx, 6*time.Minute)
			defer cancelT()
			url := fmt.Sprintf("%s/notebooks/%s?token=%s", base, name, token)
			isCharts := name == "charts.ipynb"

			// 1. Run all cells.
			must(t, chromedp.Do(ctx, chromedp.Navigate(url)))
			waitJS(t, ctx, "notebook and kernel ready", 120*time.Second, `(() => {
				const nb = window.Jupyter && Jupyter.notebook;
				return !!(nb && nb._fully_loaded && nb.kernel && nb.kernel.info_reply && nb.kernel.info_reply.status === "ok");
			})()`)
			evalJS(t, ctx, `Jupyter.notebook.clear_all_output(); Jupyter.notebook.execute_all_cells(); true`, nil)
			waitJS(t, ctx, "all cells executed", 300*time.Second, allExecutedJS)
			t.Logf("%s: executed in %.1fs", name, time.Since(tn).Seconds())

			// 2. Outputs and charts.
			rep := checkPage(t, ctx, "live "+name)
			if isCharts && rep.Charts < 4 {
				t.Errorf("live %s: %d charts, want at least 4 (trajectories, stationary, sweep, graph)", name, rep.Charts)
			}
			wantBundles := 0
			if rep.Charts > 0 {
				wantBundles = 1
			}
			if rep.Bundles != wantBundles {
				t.Errorf("live %s: the echarts bundle is in %d outputs, want %d (once per kernel session)", name, rep.Bundles, wantBundles)
			}
			if isCharts && !rep.ProgressDone {
				t.Errorf("live %s: no progress bar at 100%%", name)
			}
			screenshot(t, ctx, filepath.Join(art, stem+"-live.png"), rep.IDs)

			// 3a. Save; export to HTML from the saved notebook.
			evalJS(t, ctx, `Jupyter.notebook.save_notebook().then(() => true)`, nil)
			waitJS(t, ctx, "notebook saved", 30*time.Second, `!Jupyter.notebook.dirty`)
			saved := filepath.Join(art, stem+".executed.ipynb")
			copyFile(t, filepath.Join(work, name), saved)
			if n := savedBundles(t, saved); n != wantBundles {
				t.Errorf("saved %s holds the bundle %d times, want %d", name, n, wantBundles)
			}
			if n := bytes.Count(readFile(t, saved), []byte(`class=\"lbsim-static\"`)); n != rep.Charts {
				t.Errorf("saved %s holds %d static pictures for %d charts", name, n, rep.Charts)
			}

			// 3b. Reopen: the saved (trusted) outputs replay and draw again.
			must(t, chromedp.Do(ctx, chromedp.Navigate(url)))
			waitJS(t, ctx, "notebook reopened", 120*time.Second, `!!(window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded)`)
			checkPage(t, ctx, "reopened "+name)

			// 3c. Fresh kernel, only a later chart cell re-run: its output must carry the bundle again.
			if isCharts {
				evalJS(t, ctx, `(() => {
					const nb = Jupyter.notebook;
					nb.kernel.info_reply = undefined;
					nb.kernel.restart();
					return true;
				})()`, nil)
				waitJS(t, ctx, "kernel restarted", 120*time.Second, `(() => {
					const k = Jupyter.notebook.kernel;
					return !!(k && k.info_reply && k.info_reply.status === "ok");
				})()`)
				var sweep int
				evalJS(t, ctx, `(() => {
					const cells = Jupyter.notebook.get_cells();
					const i = cells.findIndex(c => c.cell_type === "code" && c.get_text().includes("kh.Sweep("));
					// The import and declaration cells (no charts), then the sweep cell.
					cells.forEach((c, j) => { if (c.cell_type === "code" && (j < 3 || j === i)) { if (j === i) c.clear_output(); c.execute(); } });
					return i;
				})()`, &sweep)
				waitJS(t, ctx, "sweep cell re-run", 180*time.Second, fmt.Sprintf(`(() => {
					const c = Jupyter.notebook.get_cell(%d);
					return typeof c.input_prompt_number === "number" && document.querySelector("#kernel_indicator_icon.kernel_idle_icon") !== null;
				})()`, sweep))
				var carries bool
				evalJS(t, ctx, fmt.Sprintf(`Jupyter.notebook.get_cell(%d).output_area.outputs.some(o => o.data && String(o.data["text/html"] || "").includes('data-lbsim-echarts="bundle"'))`, sweep), &carries)
				if !carries {
					t.Errorf("after a kernel restart, the re-run sweep cell's output lacks the echarts bundle")
				}
				checkPage(t, ctx, "restarted "+name)
				evalJS(t, ctx, `Jupyter.notebook.set_dirty(false); window.onbeforeunload = null; Jupyter.notebook.kernel.kill(); true`, nil)
			} else {
				evalJS(t, ctx, `window.onbeforeunload = null; Jupyter.notebook.kernel.kill(); true`, nil)
			}

			// 4. nbconvert --to html of the saved notebook, opened from disk.
			out, err := exec.Command(jupyterBin, "nbconvert", "--to", "html", "--output-dir", art, "--output", stem, saved).CombinedOutput()
			if err != nil {
				t.Fatalf("nbconvert --to html: %v\n%s", err, out)
			}
			htmlPath := filepath.Join(art, stem+".html")
			if n := bytes.Count(readFile(t, htmlPath), []byte(`data-lbsim-echarts="bundle"`)); n != wantBundles {
				t.Errorf("%s holds the bundle %d times, want %d", htmlPath, n, wantBundles)
			}
			must(t, chromedp.Do(ctx, chromedp.Navigate("file://"+htmlPath)))
			waitJS(t, ctx, "export loaded", 60*time.Second, `document.readyState === "complete"`)
			rep = checkPage(t, ctx, "exported "+stem+".html")
			if isCharts && rep.Charts < 4 {
				t.Errorf("exported %s.html: %d charts, want at least 4", stem, rep.Charts)
			}
			screenshot(t, ctx, filepath.Join(art, stem+"-export.png"), rep.IDs)

			// 5. The same export with JavaScript disabled: the static pictures.
			nctx, cancelN := chromedp.NewContext(bctx)
			defer cancelN()
			if _, err := chromedp.Call(nctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
				t.Fatalf("disabling JavaScript: %v", err)
			}
			must(t, chromedp.Do(nctx, chromedp.Navigate("file://"+htmlPath)))
			waitJS(t, nctx, "export loaded without JavaScript", 60*time.Second, `document.readyState === "complete"`)
			static := checkStatic(t, nctx, "exported "+stem+".html without JavaScript")
			if static != rep.Charts {
				t.Errorf("without JavaScript: %d charts show a picture, with JavaScript %d charts drew", static, rep.Charts)
			}
			screenshot(t, nctx, filepath.Join(art, stem+"-nojs.png"), rep.IDs)

			// 6. charts.ipynb as a reader who downloaded it opens it: untrusted
			// (its content differs from what this Jupyter signed), so Jupyter
			// sanitizes the HTML outputs and runs none of their scripts.
			if isCharts {
				untrusted := "untrusted-" + name
				writeUntrusted(t, saved, filepath.Join(work, untrusted))
				must(t, chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/notebooks/%s?token=%s", base, untrusted, token))))
				waitJS(t, ctx, "untrusted notebook opened", 120*time.Second, `!!(window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded)`)
				var u struct {
					Trusted  bool     `json:"trusted"`
					Pictures int      `json:"pictures"`
					Canvases int      `json:"canvases"`
					Problems []string `json:"problems"`
				}
				evalJS(t, ctx, untrustedJS, &u)
				for _, p := range u.Problems {
					t.Errorf("untrusted %s: %s", name, p)
				}
				if u.Trusted || u.Pictures != rep.Charts || u.Canvases != 0 {
					t.Errorf("untrusted %s: trusted %v, %d pictures shown for %d charts, %d canvases (want none: no script runs)", name, u.Trusted, u.Pictures, rep.Charts, u.Canvases)
				}
				screenshot(t, ctx, filepath.Join(art, stem+"-untrusted.png"), nil)
				evalJS(t, ctx, `window.onbeforeunload = null; Jupyter.notebook.kernel.kill(); true`, nil)
			}
			t.Logf("%s: done in %.1fs; export %s", name, time.Since(tn).Seconds(), htmlPath)
		})
	}
	t.Logf("browser test: %.1fs in all", time.Since(t0).Seconds())
}

// allExecutedJS is true once every code cell ran and the kernel is idle.
const allExecutedJS = `(() => {
	const nb = Jupyter.notebook;
	const code = nb.get_cells().filter(c => c.cell_type === "code");
	const done = code.every(c => typeof c.input_prompt_number === "number");
	return done && document.querySelector("#kernel_indicator_icon.kernel_idle_icon") !== null;
})()`

// pageReport is what checkPageJS finds.
type pageReport struct {
	Charts       int      `json:"charts"`
	IDs          []string `json:"ids"`
	Bundles      int      `json:"bundles"`
	ProgressDone bool     `json:"progressDone"`
	Problems     []string `json:"problems"`
}

// checkPageJS waits (a promise) until every chart container drew or gave up,
// then reports: charts, their canvases' pixels, error outputs, error boxes.
const checkPageJS = `new Promise(resolve => {
	const t0 = Date.now();
	const settle = () => {
		const charts = [...document.querySelectorAll("div.lbsim-chart")];
		const pending = charts.filter(el => !el.hasAttribute("data-lbsim-drawn") && !el.hasAttribute("data-lbsim-error"));
		if (pending.length > 0 && Date.now() - t0 < 45000) { setTimeout(settle, 250); return; }
		// Let entry animations finish.
		setTimeout(() => resolve(report(charts)), 1500);
	};
	const report = charts => {
		const problems = [];
		charts.forEach(el => {
			if (el.hasAttribute("data-lbsim-error")) { problems.push(el.id + ": " + el.getAttribute("data-lbsim-error")); return; }
			if (!el.hasAttribute("data-lbsim-drawn")) { problems.push(el.id + ": never drawn (window.echarts " + typeof window.echarts + ")"); return; }
			if (el.querySelector(".lbsim-static, .lbsim-static-missing")) { problems.push(el.id + ": the static picture is still there next to the interactive chart"); return; }
			const cv = el.querySelector("canvas");
			if (!cv) { problems.push(el.id + ": no canvas"); return; }
			if (cv.width < 50 || cv.height < 50) { problems.push(el.id + ": canvas " + cv.width + "x" + cv.height); return; }
			const px = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
			let differ = 0;
			for (let i = 4; i < px.length; i += 4) {
				if (px[i] !== px[0] || px[i+1] !== px[1] || px[i+2] !== px[2] || px[i+3] !== px[3]) differ++;
			}
			if (differ < 0.005 * px.length / 4) problems.push(el.id + ": canvas blank (" + differ + " pixels differ from the first)");
		});
		let bundles = 0;
		if (window.Jupyter && Jupyter.notebook) {
			Jupyter.notebook.get_cells().forEach((c, i) => {
				if (c.cell_type !== "code") return;
				c.output_area.outputs.forEach(o => {
					if (o.output_type === "error") problems.push("cell " + i + ": error output " + o.ename + ": " + String(o.evalue).slice(0, 300));
					if (o.data && String(o.data["text/html"] || "").includes('data-lbsim-echarts="bundle"')) bundles++;
				});
			});
		} else {
			bundles = document.querySelectorAll("script[data-lbsim-echarts]").length;
		}
		document.querySelectorAll(".output_error, .jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr'] .ansi-red-fg").forEach(e => {
			if (e.closest(".output_error") || e.classList.contains("output_error")) problems.push("error output: " + e.textContent.slice(0, 300));
		});
		document.querySelectorAll(".lbsim-error").forEach(e => problems.push("kernelhelpers error: " + e.textContent.slice(0, 300)));
		const bars = [...document.querySelectorAll(".lbsim-progress")];
		const progressDone = bars.length > 0 && bars.every(b => b.getAttribute("data-fraction") === "1.0000");
		return {charts: charts.length, ids: charts.map(c => c.id), bundles, progressDone, problems};
	};
	settle();
})`

func checkPage(t *testing.T, ctx context.Context, what string) pageReport {
	t.Helper()
	var rep pageReport
	evalJS(t, ctx, checkPageJS, &rep)
	for _, p := range rep.Problems {
		t.Errorf("%s: %s", what, p)
	}
	if len(rep.Problems) > 0 {
		// Later phases would only wait for the same failure again.
		t.Fatalf("%s: %d problems among %d charts", what, len(rep.Problems), rep.Charts)
	}
	t.Logf("%s: %d charts drawn, each canvas non-blank; no error output", what, rep.Charts)
	return rep
}

// staticReport is what checkStaticJS finds for one chart.
type staticReport struct {
	ID       string   `json:"id"`
	Problems []string `json:"problems"`
	Series   int      `json:"series"`
	Paths    int      `json:"paths"`
}

// checkStaticJS checks each chart's static picture on a page whose scripts do
// not run (DevTools' evaluation still does): the <img> loaded, drawn on a
// canvas it is not one colour, its SVG parses, paths in the palette's colours
// draw the series, and the legend names every series (data-lbsim-series).
const checkStaticJS = `(async (palette) => {
	const out = [];
	for (const el of document.querySelectorAll("div.lbsim-chart")) {
		const r = {id: el.id, problems: [], series: 0, paths: 0};
		out.push(r);
		if (el.querySelector("canvas")) r.problems.push("a canvas although JavaScript is off");
		const img = el.querySelector("img.lbsim-static");
		if (!img) { r.problems.push("no static picture: " + el.textContent.slice(0, 200)); continue; }
		if (!img.complete) await new Promise(ok => { img.onload = img.onerror = ok; });
		if (!(img.naturalWidth > 100 && img.naturalHeight > 100)) { r.problems.push("picture not loaded (" + img.naturalWidth + "x" + img.naturalHeight + ")"); continue; }
		if (img.getBoundingClientRect().width < 100) r.problems.push("picture laid out " + img.getBoundingClientRect().width + " px wide");
		const cv = document.createElement("canvas");
		cv.width = img.naturalWidth; cv.height = img.naturalHeight;
		const g = cv.getContext("2d");
		g.fillStyle = "#fff"; g.fillRect(0, 0, cv.width, cv.height);
		g.drawImage(img, 0, 0);
		const px = g.getImageData(0, 0, cv.width, cv.height).data;
		let ink = 0;
		for (let i = 0; i < px.length; i += 4) if (px[i] < 235 || px[i+1] < 235 || px[i+2] < 235) ink++;
		if (ink < 0.01 * px.length / 4) r.problems.push("picture blank (" + ink + " non-white pixels)");
		const src = img.getAttribute("src");
		const bytes = Uint8Array.from(atob(src.slice(src.indexOf(",") + 1)), c => c.charCodeAt(0));
		const svg = new DOMParser().parseFromString(new TextDecoder().decode(bytes), "image/svg+xml");
		if (svg.querySelector("parsererror") || !svg.documentElement || svg.documentElement.nodeName !== "svg") { r.problems.push("the picture's SVG does not parse"); continue; }
		const colours = new Set();
		svg.querySelectorAll("path").forEach(p => {
			const stroke = (p.getAttribute("stroke") || "").toLowerCase(), fill = (p.getAttribute("fill") || "").toLowerCase();
			const vertices = ((p.getAttribute("d") || "").match(/[ML]/g) || []).length;
			if (palette.series.includes(stroke) && vertices >= 2) { r.paths++; colours.add(stroke); }
			if (palette.graph.includes(fill)) { r.paths++; colours.add(fill); }
		});
		r.series = colours.size;
		if (r.paths === 0) r.problems.push("no series drawn (no path in the palette's colours)");
		const texts = new Set([...svg.querySelectorAll("text")].map(t => t.textContent.trim()));
		const names = JSON.parse(img.getAttribute("data-lbsim-series") || "[]");
		if (!el.id.startsWith("lbsim-graph-")) {
			names.forEach(n => { if (!texts.has(n)) r.problems.push("legend lacks " + JSON.stringify(n)); });
		}
	}
	return out;
})(` + "%s" + `)`

// checkStatic checks the static pictures of a page shown without JavaScript
// and returns how many charts show one.
func checkStatic(t *testing.T, ctx context.Context, what string) int {
	t.Helper()
	colours, _ := json.Marshal(map[string][]string{"series": palette, "graph": queueColors})
	var reps []staticReport
	evalJS(t, ctx, fmt.Sprintf(checkStaticJS, strings.ToLower(string(colours))), &reps)
	ok := 0
	for _, r := range reps {
		for _, p := range r.Problems {
			t.Errorf("%s: %s: %s", what, r.ID, p)
		}
		if len(r.Problems) == 0 {
			ok++
		}
	}
	t.Logf("%s: %d of %d charts show their static picture with the series drawn", what, ok, len(reps))
	return ok
}

// untrustedJS waits for the outputs of an untrusted notebook and reports its
// static pictures: sanitized <img> elements with an SVG data URL, loaded.
const untrustedJS = `new Promise(resolve => setTimeout(() => {
	const imgs = [...document.querySelectorAll(".output_html img")].filter(i => (i.getAttribute("src") || "").startsWith("data:image/svg+xml"));
	const problems = imgs.filter(i => !(i.complete && i.naturalWidth > 100)).map(i => "picture not loaded: " + (i.getAttribute("alt") || "").slice(0, 100));
	resolve({trusted: Jupyter.notebook.trusted, pictures: imgs.length, canvases: document.querySelectorAll(".output_html canvas").length, problems});
}, 3000))`

// writeUntrusted copies a notebook with one metadata field added, so that its
// signature is unknown to Jupyter and it opens untrusted.
func writeUntrusted(t *testing.T, from, to string) {
	t.Helper()
	var nb map[string]any
	if err := json.Unmarshal(readFile(t, from), &nb); err != nil {
		t.Fatal(err)
	}
	meta, _ := nb["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["lbsim_untrusted_copy"] = true
	nb["metadata"] = meta
	b, err := json.Marshal(nb)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// screenshot saves the whole page (the notebook's scrolling #site unrolled) and
// each chart, and prints the paths.
func screenshot(t *testing.T, ctx context.Context, path string, ids []string) {
	t.Helper()
	var h float64
	evalJS(t, ctx, `(() => {
		const s = document.getElementById("site");
		if (s) { s.style.height = "auto"; s.style.overflow = "visible"; document.body.style.overflow = "visible"; document.body.style.height = "auto"; }
		return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight);
	})()`, &h)
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, int64(min(h, 16000))),
		chromedp.Sleep(500*time.Millisecond)); err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err2 := chromedp.Do(ctx, chromedp.ResetViewport()); err == nil {
		err = err2
	}
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Error(err)
		return
	}
	fmt.Printf("browser test screenshot: %s\n", path)
	for i, id := range ids {
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#"+id)))
		if err != nil {
			t.Errorf("screenshot of chart %s: %v", id, err)
			continue
		}
		p := strings.TrimSuffix(path, ".png") + "-chart" + strconv.Itoa(i+1) + ".png"
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Error(err)
		}
	}
}

func evalJS(t *testing.T, ctx context.Context, js string, out any) {
	t.Helper()
	res, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %.80q: %v", js, err)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			t.Fatalf("result of %.80q: %v (%s)", js, err, res)
		}
	}
}

// waitJS polls the expression until it is true.
func waitJS(t *testing.T, ctx context.Context, what string, timeout time.Duration, js string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { try { return JSON.stringify(Jupyter.notebook.get_cells().map(c => c.input_prompt_number)) + " kernel " + (document.querySelector("#kernel_indicator_icon") || {}).className; } catch (e) { return String(e); } })()`))
			t.Fatalf("timeout after %v waiting for %s (last error %v; prompts %s)", timeout, what, err, state)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// savedBundles counts the outputs of a saved notebook that carry the echarts bundle.
func savedBundles(t *testing.T, path string) int {
	t.Helper()
	var nb struct {
		Cells []struct {
			Outputs []struct {
				Data map[string]json.RawMessage `json:"data"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(readFile(t, path), &nb); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	n := 0
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			var text any
			_ = json.Unmarshal(o.Data["text/html"], &text)
			if strings.Contains(fmt.Sprint(text), `data-lbsim-echarts="bundle"`) {
				n++
			}
		}
	}
	return n
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.WriteFile(to, readFile(t, from), 0o644); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// jupyterEnv returns the environment for Jupyter: private data, config and
// runtime directories (the user's gonb kernel spec may point at another
// clone), a gonb kernel spec for this checkout, quick mode, offline Go.
func jupyterEnv(dir, root, goDir string) ([]string, error) {
	kdir := filepath.Join(dir, "data", "kernels", "gonb")
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		return nil, err
	}
	spec, _ := json.MarshalIndent(map[string]any{
		"argv":           []string{filepath.Join(root, "bin", "gonb"), "--go_work=" + root, "--kernel", "{connection_file}"},
		"display_name":   "Go (gonb)",
		"language":       "go",
		"interrupt_mode": "message",
		"env":            map[string]string{"PATH": filepath.Join(root, "bin") + ":" + goDir + ":${PATH}"},
	}, "", " ")
	if err := os.WriteFile(filepath.Join(kdir, "kernel.json"), spec, 0o644); err != nil {
		return nil, err
	}
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_PATH", "GOPROXY", "LBSIM_QUICK", "PATH":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"JUPYTER_DATA_DIR="+filepath.Join(dir, "data"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(dir, "config"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(dir, "runtime"),
		"GOPROXY=off",
		"LBSIM_QUICK=1",
		"PATH="+filepath.Join(root, "bin")+":"+goDir+":"+os.Getenv("PATH"),
	), nil
}

// startJupyter starts Jupyter Notebook in dir and waits for its API; the
// returned function stops it (SIGTERM, which also shuts its kernels down).
func startJupyter(t *testing.T, env []string, dir string, port int, token, logPath string) func() {
	t.Helper()
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"notebook", "--no-browser", "--ip=127.0.0.1", "--port=" + strconv.Itoa(port),
		"--port-retries=0", "--NotebookApp.token=" + token, "--notebook-dir=" + dir}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-root")
	}
	cmd := exec.Command(jupyterBin, args...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		logf.Close()
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/api/status?token=%s", port, token)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return stop
			}
		}
		select {
		case err := <-exited:
			exited <- err
			logf.Close()
			t.Fatalf("jupyter exited at start (%v); log %s:\n%s", err, logPath, readFile(t, logPath))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("jupyter did not answer on port %d within 60s; log %s:\n%s", port, logPath, readFile(t, logPath))
		}
	}
}

// defaultBrowserNotebooks are the notebooks the browser test runs besides
// charts.ipynb unless LBSIM_BROWSER_NOTEBOOKS says otherwise.
var defaultBrowserNotebooks = []string{"00-quickstart", "02-optimal-topologies", "10-admission-qed"}

// browserNotebooks picks from all (paths of notebooks/*.ipynb) those named
// by LBSIM_BROWSER_NOTEBOOKS (space- or comma-separated stems, or "all").
func browserNotebooks(t *testing.T, all []string) []string {
	want := defaultBrowserNotebooks
	if env := strings.TrimSpace(os.Getenv("LBSIM_BROWSER_NOTEBOOKS")); env == "all" {
		return all
	} else if env != "" {
		want = strings.FieldsFunc(env, func(r rune) bool { return r == ',' || r == ' ' })
	}
	var out []string
	for _, stem := range want {
		found := false
		for _, p := range all {
			if strings.TrimSuffix(filepath.Base(p), ".ipynb") == stem {
				out, found = append(out, p), true
			}
		}
		if !found {
			t.Fatalf("LBSIM_BROWSER_NOTEBOOKS: no notebook %q in notebooks/", stem)
		}
	}
	return out
}
