#!/usr/bin/env bash
# scripts/setup.sh — install everything the notebooks need, idempotently.
#
# What it installs (each step is skipped when already done):
#   1. Debian packages (Jupyter Notebook, nbconvert, nbclient, ipykernel; Chromium and
#      chromium-driver for the browser test; slurm-wlm and munge for the Slurm test) via apt-get.
#      As root directly; as another user through `sudo -n` when available,
#      otherwise it fails with a hint (or is skipped with --user).
#   2. Go tools pinned in tools/go.mod and tools/gopls/go.mod, built into ./bin:
#      gonb (the Go Jupyter kernel), goimports, gopls.
#   3. The root module's dependencies (`go mod download`), so notebooks can run
#      later with GOPROXY=off.
#   4. The GoNB kernel spec "gonb" in the user's Jupyter data dir
#      (${JUPYTER_DATA_DIR:-~/.local/share/jupyter}/kernels/gonb), with PATH set so
#      the kernel finds ./bin (goimports, gopls) and Go even when Jupyter is
#      started from a shell whose PATH lacks them, and with GoNB's -go_work flag
#      naming this checkout, so every notebook can import this repository's
#      packages (and the modules its go.mod requires) with no set-up cell.
#   5. The npm package echarts (pinned) into ./third_party/node_modules.
#
# Usage: scripts/setup.sh [--system|--user|--all]   (default --all)
#   --system  only the apt part (needs root or sudo); used by the Dockerfile as root
#   --user    everything except apt (fails if the Debian packages are missing)
#   --all     both
# Environment: EXTRA_APT_PACKAGES="pkg ..." adds Debian packages (Dockerfile: jupyterhub);
#   LBSIM_NO_BROWSER=1 leaves out Chromium, LBSIM_NO_SLURM=1 leaves out Slurm and munge.
set -euo pipefail

MODE=all
case "${1:-}" in
  ""|--all) MODE=all ;;
  --system) MODE=system ;;
  --user) MODE=user ;;
  -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
  *) echo "setup.sh: unknown argument: $1 (use --system, --user or --all)" >&2; exit 2 ;;
esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"

# chromium + chromium-driver: the real-browser test of kernelhelpers (kernelhelpers/browser_test.go,
# LBSIM_BROWSER_TEST=1 in make test) drives Debian's /usr/bin/chromium headless. An image
# that only serves notebooks (the Dockerfile) sets LBSIM_NO_BROWSER=1 to leave them out.
BROWSER_PACKAGES="chromium chromium-driver"
[ "${LBSIM_NO_BROWSER:-0}" = 1 ] && BROWSER_PACKAGES=""
# slurm-wlm + munge: scripts/slurm-test.sh (run by make test) starts a real single-node Slurm
# to test lbsim slurm/sweep/merge. LBSIM_NO_SLURM=1 leaves them out; the test then reports
# "NOT RUN" (it needs the same variable set, otherwise it fails saying Slurm is missing).
SLURM_PACKAGES="slurm-wlm munge"
[ "${LBSIM_NO_SLURM:-0}" = 1 ] && SLURM_PACKAGES=""
APT_PACKAGES="jupyter-notebook jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel $BROWSER_PACKAGES $SLURM_PACKAGES ${EXTRA_APT_PACKAGES:-}"
# npm (for echarts) from Debian only when there is none (e.g. in the Docker image); a
# Node.js installed some other way (NodeSource ships npm) is left alone.
command -v npm >/dev/null 2>&1 || APT_PACKAGES="$APT_PACKAGES nodejs npm"
read -r -a _pkgs <<<"$APT_PACKAGES" && APT_PACKAGES="${_pkgs[*]}"  # normalise spaces
ECHARTS_VERSION="5.6.0"
JUPYTER=/usr/bin/jupyter   # Debian's; never a pyenv/venv one earlier on PATH
PYTHON=/usr/bin/python3    # the interpreter Debian's Jupyter runs on

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- 1. apt
missing_apt_packages() {
  local p missing=()
  for p in $APT_PACKAGES; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
  done
  echo "${missing[*]:-}"
}

install_apt() {
  local missing
  missing="$(missing_apt_packages)"
  if [ -z "$missing" ]; then
    log "apt: all packages present ($APT_PACKAGES)"
    return
  fi
  local SUDO=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      SUDO=(sudo -n)
    else
      die "Debian packages missing ($missing) and not root, no passwordless sudo. Run as root: scripts/setup.sh --system"
    fi
  fi
  log "apt: installing $missing"
  local t0=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  for p in $missing; do
    apt-cache show "$p" >/dev/null 2>&1 || die "apt: package $p not found in the Debian archive (check /etc/apt/sources.list)"
  done
  # shellcheck disable=SC2086
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends $missing >/dev/null
  log "apt: done in $((SECONDS - t0))s"
}

if [ "$MODE" != user ]; then
  install_apt
fi
if [ "$MODE" = system ]; then
  exit 0
fi
missing="$(missing_apt_packages)"
[ -z "$missing" ] || die "Debian packages missing: $missing (run scripts/setup.sh as root, or with --system as root first)"
[ -x "$JUPYTER" ] || die "$JUPYTER not found although the Debian packages are installed"

# ---------------------------------------------------------------- 2. Go tools
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    die "go not found (expected on PATH or at /usr/local/go/bin/go)"
  fi
fi
GO="$(command -v go)"
GOBIN_DIR="$(dirname "$(readlink -f "$GO")")"
GO_VERSION="$(go env GOVERSION)"
log "go: $GO ($GO_VERSION)"

mkdir -p "$BIN"
# The stamp records the pinned versions (module files) and the Go version used to build.
tools_stamp() {
  cat "$ROOT/tools/go.mod" "$ROOT/tools/go.sum" "$ROOT/tools/gopls/go.mod" "$ROOT/tools/gopls/go.sum"
  echo "$GO_VERSION"
}
STAMP="$BIN/.tools.stamp"
want_stamp="$(tools_stamp | sha256sum | cut -d' ' -f1)"
if [ -x "$BIN/gonb" ] && [ -x "$BIN/goimports" ] && [ -x "$BIN/gopls" ] &&
   [ "$(cat "$STAMP" 2>/dev/null)" = "$want_stamp" ]; then
  log "go tools: up to date in bin/ (gonb, goimports, gopls)"
else
  t0=$SECONDS
  log "go tools: building gonb, goimports (tools/go.mod) and gopls (tools/gopls/go.mod) into bin/ ..."
  rm -f "$STAMP"
  (cd "$ROOT/tools" &&
    go build -buildvcs=false -o "$BIN/gonb" github.com/janpfeifer/gonb &&
    go build -buildvcs=false -o "$BIN/goimports" golang.org/x/tools/cmd/goimports)
  (cd "$ROOT/tools/gopls" && go build -buildvcs=false -o "$BIN/gopls" golang.org/x/tools/gopls)
  echo "$want_stamp" >"$STAMP"
  log "go tools: built in $((SECONDS - t0))s"
fi

# ---------------------------------------------------------------- 3. root module deps
# Cheap when everything is cached; needed so notebooks work with GOPROXY=off.
if (cd "$ROOT" && GOPROXY=off go mod download >/dev/null 2>&1); then
  log "go mod download: all root-module dependencies in the module cache"
else
  log "go mod download: fetching root-module dependencies ..."
  (cd "$ROOT" && go mod download)
fi

# ---------------------------------------------------------------- 4. Jupyter kernel
DATA_DIR="${JUPYTER_DATA_DIR:-$HOME/.local/share/jupyter}"
KERNEL_DIR="$DATA_DIR/kernels/gonb"
# PATH for the kernel: our tools first, then Go, then the PATH Jupyter was started with
# (jupyter_client >= 7 substitutes ${VAR} in kernel.json "env" from its own environment).
KERNEL_PATH="$BIN:$GOBIN_DIR:\${PATH}"
# -go_work=$ROOT: at start, the kernel runs `go work init; go work use . $ROOT` in its scratch
# module and adds the matching go.mod replace rule (what `%goworkfix` does), so cells import
# github.com/lbsim/notebooks/... from this checkout, offline. (GoNB splits the value at commas.)
case "$ROOT" in *,*) die "the checkout's path contains a comma, which GoNB's -go_work cannot take: $ROOT" ;; esac
kernel_json() {
  "$PYTHON" - "$BIN/gonb" "$KERNEL_PATH" "$ROOT" <<'PY'
import json, sys
gonb, path, root = sys.argv[1], sys.argv[2], sys.argv[3]
print(json.dumps({
    "argv": [gonb, "--go_work=" + root, "--kernel", "{connection_file}"],
    "display_name": "Go (gonb)",
    "language": "go",
    "interrupt_mode": "message",
    "env": {"PATH": path},
}, indent=1, sort_keys=True))
PY
}
want_kernel="$(kernel_json)"
if [ -f "$KERNEL_DIR/kernel.json" ] && [ "$(cat "$KERNEL_DIR/kernel.json")" = "$want_kernel" ]; then
  log "kernel: gonb registered in $KERNEL_DIR"
else
  log "kernel: registering gonb in $KERNEL_DIR"
  # gonb --install writes kernel.json (+ logo) into $JUPYTER_DATA_DIR/kernels/gonb and checks that
  # goimports and gopls are on PATH; it records no environment, so we rewrite kernel.json with PATH.
  PATH="$BIN:$GOBIN_DIR:$PATH" JUPYTER_DATA_DIR="$DATA_DIR" "$BIN/gonb" --install --logtostderr >/dev/null 2>&1 ||
    PATH="$BIN:$GOBIN_DIR:$PATH" JUPYTER_DATA_DIR="$DATA_DIR" "$BIN/gonb" --install --logtostderr
  printf '%s\n' "$want_kernel" >"$KERNEL_DIR/kernel.json"
fi
kernels="$("$JUPYTER" kernelspec list 2>/dev/null || true)"
if ! grep -q "^ *gonb  *$KERNEL_DIR\$" <<<"$kernels"; then
  printf '%s\n' "$kernels" >&2
  die "kernel: $JUPYTER does not see the gonb kernel in $KERNEL_DIR (JUPYTER_DATA_DIR/JUPYTER_PATH set differently?)"
fi

# ---------------------------------------------------------------- 5. npm: echarts
NODE_DIR="$ROOT/third_party"
have_echarts="$(node -p "require('$NODE_DIR/node_modules/echarts/package.json').version" 2>/dev/null || true)"
if [ "$have_echarts" = "$ECHARTS_VERSION" ]; then
  log "npm: echarts $ECHARTS_VERSION present in third_party/node_modules"
elif ! command -v npm >/dev/null 2>&1; then
  die "npm not found: needed to install echarts into third_party/ (apt-get install nodejs npm)"
else
  log "npm: installing echarts@$ECHARTS_VERSION into third_party/node_modules"
  mkdir -p "$NODE_DIR"
  # Trust the system CA store too (a TLS-intercepting proxy's CA is often only there).
  if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r /etc/ssl/certs/ca-certificates.crt ]; then
    export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
  fi
  # npm ci installs exactly what third_party/package-lock.json pins and never rewrites
  # it, so setup leaves the checkout as it was.
  npm ci --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error >/dev/null
fi

log "ok: run 'make notebook' (Jupyter on 127.0.0.1:8888) or 'make test'"
