// Package kernelhelpers draws lbsim results inline in GoNB notebooks (Jupyter
// Notebook 6) with Apache ECharts, and writes the same charts as standalone
// HTML files outside a notebook.
//
// # Use
//
// The common case is one line per chart:
//
//	kernelhelpers.Trajectory(res.Trajectory, kernelhelpers.MeanField(ts, q)).Display()
//	kernelhelpers.Stationary([]kernelhelpers.Curve{{"JSQ(2)", res.Occupancy}}, []kernelhelpers.Curve{{"fixed point", fp}}).Display()
//	kernelhelpers.Sweep(groups, kernelhelpers.LogLog(), kernelhelpers.XLabel("1-λ")).Display()
//	kernelhelpers.Graph(edges, lengths, kernelhelpers.SnapshotLabels(labels...)).Display()
//	kernelhelpers.ResultsTable(results).Display()
//	sc.Progress = kernelhelpers.ProgressBar("JSQ(2)")
//
// Constructors take functional options (Title, XLabel, LogY, Levels, NoBand,
// ...). Chart.WriteHTML(path), Chart.WriteTo(w) and WriteHTML(path, title,
// items...) write standalone pages with echarts inline. Charts are built with
// go-echarts (RenderSnippet gives the option as JSON); the graph's timeline,
// which go-echarts lacks, is assembled around go-echarts' graph option.
//
// # Rendering design
//
// A chart's output is a <div> with a unique id (time, a counter and random
// bytes, so re-running a cell never collides) and a script that polls every
// 100 ms until window.echarts exists and the <div> is attached to the page
// with a width, then calls echarts.init and setOption. Polling is needed
// twice over: Jupyter Notebook 6 runs an output's scripts before inserting
// the output into the page, and echarts may arrive in a later output. If
// window.echarts is still missing after 30 s the container says so (in red),
// which the browser test detects.
//
// The echarts bundle (third_party/node_modules/echarts/dist/echarts.min.js,
// installed from npm by scripts/setup.sh, about 1 MB) is embedded in the
// outputs rather than loaded from a URL, so that everything works offline:
// in the live notebook, in a saved notebook reopened later, and in the
// `jupyter nbconvert --to html` export opened from disk. It is embedded as
//
//	<script>(function (define, exports, module) { if (window.echarts) return; ...bundle... }).call(window)</script>
//
// Jupyter Notebook 6 loads RequireJS, so a UMD bundle would otherwise call
// the global define (registering an anonymous AMD module, or failing with
// "Mismatched anonymous define()") and never set window.echarts; the
// parameters shadow define, exports and module, and `this` is window, so the
// UMD header takes its browser-global branch. The early return avoids
// evaluating it twice when a reopened notebook replays its saved outputs.
//
// The bundle goes out once per kernel session: the first chart displayed in
// a session carries it, later charts do not, so a notebook run from the top
// holds exactly one copy in its saved outputs however many charts it has
// (the export stays small and every chart below the first finds
// window.echarts). GoNB runs each cell as a new process, so the flag "already
// delivered" cannot be a Go variable: it is a file in $GONB_TMP_DIR named
// with the parent pid. GONB_TMP_DIR is the directory GoNB creates for each
// kernel process (/tmp/gonb_<random id>) and deletes when the kernel exits,
// and the parent of every cell program is that kernel process. Hence:
//
//   - Restart & Run All: a new kernel, a new directory, so the first chart
//     carries the bundle again (the old outputs were cleared).
//   - A reopened notebook in a fresh kernel where only, say, cell 5 is re-run:
//     the page still has the first chart's saved output (and so echarts), but
//     the new kernel has not delivered it, so cell 5 carries the bundle too,
//     and the notebook saved afterwards renders even if cell 1 is re-run or
//     cleared later.
//   - GONB_JUPYTER_KERNEL_ID would be the wrong key: Jupyter keeps the kernel
//     id across restarts, and a restarted kernel must deliver again.
//
// One case is not covered: re-running the very cell that carried the bundle
// in the same kernel replaces its output by one without it. The live page
// keeps working (echarts is loaded), but the notebook saved afterwards lacks
// the bundle until it is run from the top. Call Setup() in a cell of its own
// near the top to pin the bundle there: Setup always embeds it.
//
// The bundle is found at run time: $LBSIM_ECHARTS_JS if set, else
// third_party/node_modules/echarts/dist/echarts.min.js in the first directory
// walking up from the working directory, from $GONB_DIR (the notebook's
// directory) or from this package's source; a missing bundle is a clear error
// shown in the cell. After each display gonbui.Sync waits until GoNB has
// forwarded the output: a 1 MB output can otherwise be lost when the cell
// program exits (notably in headless nbconvert runs).
//
// The progress bar uses a GoNB display id (gonbui.UpdateHTML), so it is
// redrawn in place; redraws are throttled and the final 100% is always drawn.
// Outside a notebook (gonbui.IsNotebook false) Display and the progress bar
// draw nothing.
package kernelhelpers
