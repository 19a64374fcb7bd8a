// ssr.js: the static-SVG renderer of kernelhelpers (svg.go), run by Node.js as
//
//	node -e "var lbsimPrepare = <prepareJS>;\n<this file>" <echarts.min.js>
//
// It loads the same echarts bundle the notebooks embed and renders echarts
// options with ECharts' server-side SVG renderer (no DOM, no canvas). One
// request per line on stdin, {"id": n, "option": "<JavaScript object
// literal>", "width": w, "height": h}; one answer per line on stdout,
// {"id": n, "svg": "<svg ...>"} or {"id": n, "error": "..."}. It exits when
// stdin closes, that is when the Go program that started it exits.
'use strict';
const vm = require('vm');
const echarts = require(process.argv[process.argv.length - 1]);

// Text widths: Node has no fonts, so zrender estimates them with Helvetica's
// metrics (the table below is read from its estimator), and the viewer's
// sans-serif may be wider (DejaVu Sans, Linux's default, by about 10%). The
// picture asks for Helvetica or Arial and measures 12% wider, so that legends
// and labels leave room rather than overlap.
const fontFamily = 'Helvetica, Arial, sans-serif';
(function () {
  const widths = {};
  for (let c = 32; c < 127; c++) {
    const ch = String.fromCharCode(c);
    widths[ch] = new echarts.graphic.Text({style: {text: ch, font: '100px sans-serif'}}).getBoundingRect().width / 100;
  }
  echarts.setPlatformAPI({
    measureText(text, font) {
      const m = /(\d+(?:\.\d+)?)px/.exec(font || '');
      const size = m ? +m[1] : 12;
      let w = 0;
      for (const ch of String(text == null ? '' : text)) {
        w += (widths[ch] > 0 ? widths[ch] : 1) * size;
      }
      return {width: 1.12 * w};
    }
  });
})();

// The option is JavaScript, not only JSON: formatters may be functions. It is
// evaluated in this context (cross-realm objects would confuse echarts' type
// checks), with a time limit for the evaluation itself; Go limits the whole
// request, which covers functions that echarts calls while rendering.
function evaluate(text) {
  return vm.runInThisContext('(' + text + '\n)', {timeout: 5000, filename: 'option.js'});
}

// staticOption adapts an interactive option to a picture: no animation (the
// SVG would show the first frame), no toolbox, and a plain legend that shows
// every entry (a picture cannot scroll).
function staticOption(option) {
  const base = option.baseOption || option;
  base.animation = false;
  delete base.toolbox;
  base.textStyle = Object.assign({fontFamily: fontFamily}, base.textStyle);
  [].concat(base.legend || []).forEach(l => {
    if (l.type === 'scroll') { l.type = 'plain'; }
  });
  if (base.timeline && !Array.isArray(base.timeline)) {
    base.timeline.autoPlay = false;
  }
  return option;
}

// fitLegend makes room for a legend at the bottom that wrapped onto several
// rows: the grid's bottom margin grows by the legend's extra height.
function fitLegend(chart, option) {
  const base = option.baseOption || option;
  const legend = [].concat(base.legend || [])[0];
  const grid = [].concat(base.grid || [])[0];
  if (!legend || legend.show === false || !grid || legend.bottom === undefined) { return false; }
  const model = chart.getModel().getComponent('legend');
  const view = model && chart.getViewOfComponentModel(model);
  if (!view) { return false; }
  const height = view.group.getBoundingRect().height;
  const row = (legend.itemHeight || 14) + 2;
  const extra = height - row;
  if (!(extra > 4)) { return false; }
  const bottom = parseFloat(grid.bottom === undefined ? 60 : grid.bottom);
  grid.bottom = (isNaN(bottom) ? 60 : bottom) + extra;
  return true;
}

// compact rounds the coordinates of paths drawn in pixels (no transform) to
// 0.1 px, leaving arcs alone (a full circle is an arc to a point 1e-4 away
// from its start; rounding would make it vanish), and drops the ecmeta_*
// attributes (for the interactive SSR client, which is not used). Echarts
// writes up to 4 decimals: this halves the size of charts with long series.
function compact(svg) {
  const round = args => args.replace(/-?\d+\.\d+/g, x => String(Math.round(parseFloat(x) * 10) / 10));
  return svg
    .replace(/ ecmeta_[a-z_]+="[^"]*"/g, '')
    .replace(/<path d="([^"]*)"([^>]*)>/g, (m, d, rest) => {
      if (rest.indexOf('transform=') >= 0) { return m; }
      return '<path d="' + d.replace(/([A-Za-z])([^A-Za-z]*)/g, (seg, cmd, args) =>
        (cmd === 'A' || cmd === 'a') ? seg : cmd + round(args)) + '"' + rest + '>';
    });
}

// toSVG renders without CSS animations and hover styles: echarts 5.6's
// renderToSVGString does not pass these switches on to zrender's painter,
// which takes them, so the painter is called directly when it can be.
function toSVG(chart) {
  const painter = chart.getZr().painter;
  if (painter && typeof painter.renderToString === 'function') {
    return painter.renderToString({useViewBox: true, cssAnimation: false, cssEmphasis: false});
  }
  return chart.renderToSVGString({useViewBox: true});
}

function render(req) {
  const option = staticOption(lbsimPrepare(evaluate(req.option)));
  const init = () => echarts.init(null, null, {renderer: 'svg', ssr: true, width: req.width, height: req.height});
  let chart = init();
  try {
    chart.setOption(option);
    if (fitLegend(chart, option)) {
      chart.dispose();
      chart = init();
      chart.setOption(option);
    }
    return compact(toSVG(chart));
  } finally {
    chart.dispose();
  }
}

function handle(line) {
  let id = null;
  let out;
  try {
    const req = JSON.parse(line);
    id = req.id;
    out = {id: id, svg: render(req)};
  } catch (e) {
    out = {id: id, error: String((e && e.message) || e)};
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', chunk => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (line.trim() !== '') { handle(line); }
  }
});
process.stdin.on('end', () => process.exit(0));
// Ready: Go waits for this line, so that a bundle that fails to load is
// reported as such.
process.stdout.write(JSON.stringify({id: 0, ready: echarts.version || '?'}) + '\n');
