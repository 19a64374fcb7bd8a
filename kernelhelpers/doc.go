// Package kernelhelpers draws plain data inline in GoNB notebooks (Jupyter
// Notebook 6) with Apache ECharts, writes the same charts as standalone HTML
// files outside a notebook, and holds the helpers every notebook needs.
//
// # Plain data
//
// Charts are drawn from plain series, with no reference to the simulator:
// a Series is a name, X and Y, optional 95% half-widths CI95 (drawn as a
// shaded band) and a Reference flag for theory curves (drawn dashed, no band).
// Tables are a header and rows of strings and numbers.
//
//	kernelhelpers.Lines(series, kernelhelpers.XLabel("t")).Display() // any x-y data, trajectories
//	kernelhelpers.Sweep(groups, kernelhelpers.LogLog(), kernelhelpers.XLabel("1-λ")).Display()
//	kernelhelpers.Tails([]kernelhelpers.Series{sim, kernelhelpers.Reference(kernelhelpers.Tail("fixed point", fp))}).Display()
//	kernelhelpers.NewTable(header, rows).Display()
//
// Series.Add and Series.AddCI append points; Tail makes the series (i, p_i)
// of a distribution tail P(X >= i); Color pairs series by colour.
//
// # Adapters
//
// The file adapt.go alone knows lbsim: it turns results into plain data and
// keeps the one-line calls for them.
//
//	kernelhelpers.Trajectory(res.Trajectory, kernelhelpers.MeanField(ts, q)).Display() // LevelSeries, then Lines
//	kernelhelpers.Stationary([]kernelhelpers.Curve{{"JSQ(2)", res.Occupancy}}, []kernelhelpers.Curve{{"fixed point", fp}}).Display() // Tails
//	kernelhelpers.Tails([]kernelhelpers.Series{kernelhelpers.ResultTail("JSQ(2)", res)}).Display() // with the 95% band
//	kernelhelpers.ResultsTable(results).Display() // NewTable
//	sc.Progress = kernelhelpers.NewProgressBar("JSQ(2)").Update // Bar.Update takes lbsim.Progress
//
// Graph draws a small graph coloured by queue length over snapshots.
// Constructors take functional options (Title, XLabel, LogY, Levels, NoBand,
// YMin, ...). Chart.WriteHTML(path), Chart.WriteTo(w) and WriteHTML(path,
// title, items...) write standalone pages with echarts inline. Charts are
// built with go-echarts (Chart.Option gives the option as JSON); the graph's
// timeline, which go-echarts lacks, is assembled around go-echarts' graph
// option.
//
// # Notebook helpers
//
// A notebook's first code cell is its imports: the kernel starts with this
// repository in its go.work (scripts/setup.sh registers it with GoNB's
// -go_work flag), so nothing has to be set up in the notebook. Then:
//
//   - Quick reports quick mode (LBSIM_QUICK=1, as in make test), and
//     Pick(quick, full) chooses a parameter by mode: Horizon: kh.Pick(2000.0, 20000.0).
//   - Must(v, err) returns v or fails the cell: res := kh.Must(lbsim.Run(ctx, sc)).
//   - The evidence layer (evidence.go, on lbsim/evidence): Agree(name, est,
//     ref, Need(0.05)) compares an Estimate (Reps of replications, Occ and
//     Sojourn of a run, FromCI95, Slope of a fit) with a reference that
//     carries its own error (Exact with its bound, or another estimate) by a
//     t test at a stated level (AtLevel, default 1%), and prints one line
//     with the test and what it detects with 80% power, absolute and
//     relative; it fails the cell when the test rejects or when it cannot
//     detect the deviation the claim needs (weak evidence). Less(name, a, b)
//     shows a < b one-sidedly. ControlAgree and ControlLess run the same
//     check on a deliberately wrong model: a line starting CONTROL, and a
//     failed cell when the wrong model is not rejected. Sanity(name, got,
//     want, tol, why) prints an identity that holds by construction, with
//     no power claim; SanityAtMost(name, got, bound, tol, why) a bound that
//     holds by construction. Within(name, est, ref, margin) shows
//     |est - ref| < margin by two one-sided tests (ControlWithin its
//     control); SlopeOverReplications(x, ys) is the mean of per-replication
//     power-law slopes as an estimate with R - 1 degrees of freedom.
//     EveryLess(name, a, b) shows an order between two laws at every level
//     of their tails (ControlEveryLess its control; TailOf, TailLevels and
//     ExactLaw make the estimates). FitLine fits a straight line through
//     estimates by weighted least squares (its intercept and slope as
//     estimates, the error widened when the points scatter beyond theirs).
//   - Check(name, got, want, tol, why) and CheckThat(name, ok, format, ...)
//     are the older checks with a hand-set tolerance, which print no power;
//     notebooks move to the evidence layer.
//   - MustKeep(name, v) and MustRecall[T](name) carry values from cell to
//     cell (GoNB runs each cell as a new program), and fail the cell on error. DataPath finds the repository's data/ directory;
//     RecomputeSweep re-runs points of a committed sweep from its sweep file
//     and compares them with its CSV, column by column; SweepSizes,
//     SweepPoint, RowFloat, RowOccupancy and RowEstimate read a committed
//     sweep's rows (RowEstimate as an estimate over its replications).
//   - MaxDistance(a, b, levels) is sup over times and levels of |a - b| for two
//     trajectories on the same grid (a simulation against meanfield.Trajectory);
//     FitPowerLaw(x, y) fits y = C x^p on log-log axes with the standard error
//     of p, for checks of a trend in N.
//
// A cell fails by panicking: GoNB shows the message, and headless runs
// (scripts/run-notebooks.sh) count the notebook as failed.
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
// # Static pictures
//
// Each chart's container holds, until its script draws, a static SVG picture
// of the chart (Chart.SVG, Chart.WriteSVG), so that a saved notebook shows
// its charts where JavaScript does not run: GitHub, a downloaded notebook
// opened untrusted in Jupyter (whose sanitizer keeps the <img>), an HTML
// export opened with JavaScript off, a PDF printed from one; nbviewer and
// VS Code show the picture or, where they run the output's scripts, the
// interactive chart. The picture is rendered from the chart's own option by ECharts'
// server-side SVG renderer, echarts.init(null, null, {renderer: "svg", ssr:
// true, width, height}), in Node.js (ssr.js, run with `node -e`), loading
// the same echarts.min.js as the notebook. One Node.js process serves every
// chart of a program (of a cell, in GoNB): it starts at the first chart
// (about 0.2 s on an idle machine), renders each chart in 0.05 to 0.15 s,
// and exits when its stdin closes, that is with the program; a kernel-wide
// server would save the start once per cell, which is small next to
// compiling the cell. The option is evaluated as JavaScript, so function
// formatters work; prepareJS, which adds the log axes' tick formatter, runs
// on the option in the browser and in Node alike. The picture drops the
// animation (it would show the first frame) and the toolbox, lists every
// legend entry (a scrolling legend would hide some) and moves the plot up to
// make room for them; text widths are estimated 12% wide, as Node has no
// fonts. Path coordinates are rounded to 0.1 px (arcs and scaled symbols
// are kept exact): a 121-point, 4-level trajectory with bands is about 29 KB.
//
// The picture is an <img> with a data:image/svg+xml;base64 URL, not inline
// <svg>: HTML sanitizers (GitHub's, an untrusted notebook's) keep images with
// data URLs and strip inline SVG (Notebook 6's sanitizer also strips the
// style and class attributes: the picture then shows at its own size). The chart's script empties the container
// before echarts.init, so the interactive chart replaces the picture.
//
// Nothing here fails a cell. Without Node.js (PATH has no node or nodejs;
// $LBSIM_NODE names another binary, or "off"), charts carry a line saying
// they need JavaScript, and the first chart of the kernel session (a marker
// file, like the bundle's) shows a grey note saying why. A chart whose
// rendering fails (an error in its option, or no answer within 30 s: the
// renderer is killed and the next chart starts a new one) shows a note
// under it.
//
// The progress bar uses a GoNB display id (gonbui.UpdateHTML), so it is
// redrawn in place; redraws are throttled and the final 100% is always drawn.
// Outside a notebook (gonbui.IsNotebook false) Display and the progress bar
// draw nothing.
package kernelhelpers
