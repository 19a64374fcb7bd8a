#!/usr/bin/env bash
# scripts/run-notebooks.sh — execute notebooks headless and fail if any cell errors.
#
# Usage: scripts/run-notebooks.sh [NOTEBOOK.ipynb ...]   (default: notebooks/*.ipynb)
#
# Each notebook runs with `jupyter nbconvert --to notebook --execute` on Debian's
# /usr/bin/jupyter, offline (GOPROXY=off) and in quick mode (LBSIM_QUICK=1 unless
# set otherwise). A notebook fails if any cell produced an error (its source and
# outputs are printed), on a cell timeout, or if the kernel died. Source notebooks
# are not modified (unless NB_IN_PLACE=1): executed copies and kernel logs go to $NB_OUT_DIR (default
# artifacts/notebooks/). Prerequisite: scripts/setup.sh. Last line printed:
# "notebooks: N passed, M failed".
#
# Environment:
#   NB_OUT_DIR   output directory              (default: <repo>/artifacts/notebooks)
#   NB_TIMEOUT   per-cell timeout in seconds   (default: 1200)
#   LBSIM_QUICK  passed to the notebooks       (default: 1 when unset)
#   NB_PUBLISH   if 1, also sign each executed copy (so Jupyter trusts its saved
#                outputs and draws the charts when it is opened) and export it to
#                HTML next to it, as `make reproduce` does  (default: 0)
#   NB_IN_PLACE  if 1, a notebook that passed replaces its source (notebooks/NAME.ipynb)
#                by the executed, stamped (and, with NB_PUBLISH, signed) copy, and its
#                main chart's picture is written to notebooks/thumbnails/NAME.svg, as
#                `make reproduce` does (default: 0: sources are never modified). With
#                LBSIM_QUICK=0 each notebook first runs in quick mode (into $NB_OUT_DIR/quick/),
#                must pass there too, and the stamp states both run times.
#
# Every executed copy starts with a stamp cell (scripts/nbstamp.py): the commit, date, mode
# and run time of the execution, and the hash of the notebook's cells in its metadata.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JUPYTER=/usr/bin/jupyter
PYTHON=/usr/bin/python3
OUT="${NB_OUT_DIR:-$ROOT/artifacts/notebooks}"
TIMEOUT="${NB_TIMEOUT:-1200}"

export LBSIM_QUICK="${LBSIM_QUICK-1}"
export GOPROXY=off
# Go for the kernel comes from kernel.json; this is for nbconvert's own shell only.
export PATH="$ROOT/bin:$PATH:/usr/local/go/bin"

log() { printf '[notebooks] %s\n' "$*"; }

# What the stamp of each executed copy states; taken once, before any notebook is rewritten.
COMMIT="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
DIRTY=0
if [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ]; then DIRTY=1; fi
GOVERSION="$(PATH="$PATH" go env GOVERSION 2>/dev/null || echo unknown)"
MODE=quick
[ "$LBSIM_QUICK" = 1 ] || MODE=full

[ -x "$JUPYTER" ] || { log "ERROR: $JUPYTER missing: run scripts/setup.sh (or make setup)"; exit 1; }
# The registered gonb kernel spec is per user, and another clone that ran setup.sh
# later re-points it. So these runs use a private copy of the spec that runs this
# checkout's bin/gonb, found first through JUPYTER_PATH, with this checkout in the
# kernel's go.work (-go_work, as scripts/setup.sh writes it).
[ -x "$ROOT/bin/gonb" ] || { log "ERROR: $ROOT/bin/gonb missing: run scripts/setup.sh"; exit 1; }
KERNELS="$(mktemp -d)"
trap 'rm -rf "$KERNELS"' EXIT
mkdir -p "$KERNELS/kernels/gonb"
"$PYTHON" - "$ROOT" "$KERNELS/kernels/gonb/kernel.json" <<'PY'
import json, sys
root, path = sys.argv[1], sys.argv[2]
json.dump({
    "argv": [root + "/bin/gonb", "--go_work=" + root, "--kernel", "{connection_file}"],
    "display_name": "Go (gonb)",
    "env": {"PATH": root + "/bin:/usr/local/go/bin:${PATH}"},
    "interrupt_mode": "message",
    "language": "go",
}, open(path, "w"), indent=1)
PY
export JUPYTER_PATH="$KERNELS${JUPYTER_PATH:+:$JUPYTER_PATH}"

if [ $# -gt 0 ]; then
  notebooks=("$@")
else
  shopt -s nullglob
  notebooks=("$ROOT"/notebooks/*.ipynb)
  shopt -u nullglob
fi
mkdir -p "$OUT"

# Prints the failing cells of an executed notebook (source + text outputs); exit 1 if any.
check_outputs() {
  "$PYTHON" - "$1" <<'PY'
import html.parser, json, sys

class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.out = []; self.skip = 0
    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"): self.skip += 1
    def handle_endtag(self, tag):
        if tag in ("style", "script"): self.skip -= 1
    def handle_data(self, data):
        if not self.skip: self.out.append(data)

def text(x):
    return "".join(x) if isinstance(x, list) else (x or "")

nb = json.load(open(sys.argv[1]))
bad = 0
for i, cell in enumerate(nb["cells"]):
    outs = cell.get("outputs", [])
    if not any(o.get("output_type") == "error" for o in outs):
        continue
    bad += 1
    if bad > 3:
        continue
    print(f"--- cell {i + 1} (execution_count={cell.get('execution_count')}) failed:")
    print("    | " + text(cell["source"]).replace("\n", "\n    | "))
    for o in outs:
        t = o.get("output_type")
        if t == "stream":
            body = text(o.get("text"))
        elif t == "error":
            body = f"{o.get('ename')}: {o.get('evalue')}"
        elif "text/plain" in o.get("data", {}):
            body = text(o["data"]["text/plain"])
        elif "text/html" in o.get("data", {}):
            p = Text(); p.feed(text(o["data"]["text/html"])); body = "".join(p.out)
        else:
            continue
        lines = [l for l in body.strip().splitlines() if l.strip()]
        print("\n".join("    " + l for l in lines[:40]))
if bad:
    print(f"--- {bad} failing cell(s)")
sys.exit(1 if bad else 0)
PY
}

# execute NOTEBOOK OUTDIR LOG: runs the notebook headless into OUTDIR/NAME.ipynb (logs in LOG) and
# fails if nbconvert fails or a cell has an error output.
execute() {
  local nb="$1" outdir="$2" logf="$3" name t0=$SECONDS
  name="$(basename "$1" .ipynb)"
  mkdir -p "$outdir"
  rm -f "$outdir/$name.ipynb"
  # --allow-errors keeps the executed copy (with the error outputs) for inspection; errors are
  # then detected from the outputs. Timeouts and dead kernels still make nbconvert fail.
  # The kernel starts in the notebook's own directory (nbconvert's default), whatever our cwd.
  if ! "$JUPYTER" nbconvert --to notebook --execute --allow-errors \
      --ExecutePreprocessor.timeout="$TIMEOUT" \
      --ExecutePreprocessor.startup_timeout=300 \
      --output-dir "$outdir" --output "$name" \
      "$nb" >"$logf" 2>&1; then
    log "FAIL $name: nbconvert failed ($((SECONDS - t0))s); full log: $logf"
    awk '/^[A-Za-z_.]+(Error|Exception): /{p=1} p' "$logf" | head -40 | sed 's/^/    /' || true
    return 1
  fi
  if ! check_outputs "$outdir/$name.ipynb"; then
    log "FAIL $name: cell error ($((SECONDS - t0))s); executed copy: $outdir/$name.ipynb, kernel log: $logf"
    return 1
  fi
}

passed=0
failed=0
failed_names=()
for nb in "${notebooks[@]}"; do
  [ -f "$nb" ] || { log "ERROR: no such notebook: $nb"; failed=$((failed + 1)); failed_names+=("$nb"); continue; }
  name="$(basename "$nb" .ipynb)"
  logf="$OUT/$name.log"
  outnb="$OUT/$name.ipynb"
  t0=$SECONDS
  log "run  $name (LBSIM_QUICK=$LBSIM_QUICK, GOPROXY=off, timeout ${TIMEOUT}s/cell)"
  # --allow-errors keeps the executed copy (with the error outputs) for inspection; errors are
  # then detected from the outputs. Timeouts and dead kernels still make nbconvert fail.
  # The kernel starts in the notebook's own directory (nbconvert's default), whatever our cwd.
  ok=1
  quick_args=()
  if [ "${NB_IN_PLACE:-0}" = 1 ] && [ "$MODE" = full ]; then
    # A notebook written in place must pass in quick mode too (what CI runs): run it so first, and
    # let the stamp state that run's time next to the full run's.
    tq=$SECONDS
    log "run  $name in quick mode first (LBSIM_QUICK=1)"
    if LBSIM_QUICK=1 execute "$nb" "$OUT/quick" "$OUT/quick/$name.log"; then
      quick_args=(--quick-seconds "$((SECONDS - tq))")
      log "     $name: quick mode passed ($((SECONDS - tq))s)"
    else
      ok=0
      log "FAIL $name: quick mode failed; executed copy: $OUT/quick/$name.ipynb"
    fi
    t0=$SECONDS
  fi
  if [ "$ok" = 1 ] && ! execute "$nb" "$OUT" "$logf"; then
    ok=0
  fi
  if [ "$ok" = 1 ] && ! "$PYTHON" "$ROOT/scripts/nbstamp.py" stamp "$outnb" --mode "$MODE" \
      --commit "$COMMIT" --dirty "$DIRTY" --seconds "$((SECONDS - t0))" --go "$GOVERSION" "${quick_args[@]}" >>"$logf" 2>&1; then
    ok=0
    log "FAIL $name: stamping the executed copy failed; log: $logf"
  fi
  if [ "$ok" = 1 ] && [ "${NB_PUBLISH:-0}" = 1 ]; then
    # Sign with nbformat's notary (Debian has no `jupyter trust`), then export.
    if ! "$PYTHON" -c 'import sys, nbformat
from nbformat.sign import NotebookNotary
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookNotary().sign(nb)
nbformat.write(nb, sys.argv[1])' "$outnb" >>"$logf" 2>&1 \
      || ! "$JUPYTER" nbconvert --to html --output-dir "$OUT" --output "$name" "$outnb" >>"$logf" 2>&1; then
      ok=0
      log "FAIL $name: signing or HTML export failed; log: $logf"
    else
      log "     $name: signed, and exported to ${OUT#"$ROOT"/}/$name.html"
    fi
  fi
  if [ "$ok" = 1 ] && [ "${NB_IN_PLACE:-0}" = 1 ]; then
    thumbs="$(dirname "$nb")/thumbnails"
    mkdir -p "$thumbs"
    if cp "$outnb" "$nb.tmp" && mv "$nb.tmp" "$nb" \
        && "$PYTHON" "$ROOT/scripts/nbstamp.py" thumbnail "$nb" "$thumbs/$name.svg" >>"$logf" 2>&1; then
      log "     $name: executed copy written in place, thumbnail in ${thumbs#"$ROOT"/}/$name.svg"
    else
      ok=0
      log "FAIL $name: writing in place or the thumbnail failed; log: $logf"
    fi
  fi
  if [ "$ok" = 1 ]; then
    passed=$((passed + 1))
    log "ok   $name ($((SECONDS - t0))s) -> ${outnb#"$ROOT"/}"
  else
    failed=$((failed + 1))
    failed_names+=("$name")
  fi
done

if [ "$failed" -gt 0 ]; then
  log "failed: ${failed_names[*]}"
fi
echo "notebooks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
