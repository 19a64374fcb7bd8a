#!/usr/bin/python3
"""Stamp an executed notebook and take its thumbnail (used by scripts/run-notebooks.sh only).

  nbstamp.py stamp EXECUTED.ipynb --mode quick|full --commit SHA --dirty 0|1 --seconds S --go VERSION [--quick-seconds Q]
      Puts (or replaces) the first cell, a markdown cell with id "lbsim-executed", stating the
      commit, the date, the mode and the run time of this execution (and, with --quick-seconds, the
      time of the quick-mode run that `make reproduce` makes just before), and records the same in the
      notebook's metadata "lbsim" -> "executed", with "sources_sha256": the hash of every other
      cell's type and source (kernelhelpers' saved-notebook test recomputes it, so a notebook whose
      cells changed after it was executed is caught as stale).
  nbstamp.py thumbnail EXECUTED.ipynb OUT.svg
      Writes the static SVG picture of the notebook's main chart: the chart numbered by the
      notebook metadata "lbsim" -> "thumbnail" (0 = the first chart in document order; default 0).
"""
import argparse
import base64
import datetime
import hashlib
import json
import os
import platform
import re
import sys

STAMP_ID = "lbsim-executed"


def text(x):
    return "".join(x) if isinstance(x, list) else (x or "")


def sources_sha256(cells):
    """The hash of the notebook's own cells (not the stamp): type and source of each, in order.
    kernelhelpers/saved_test.go computes the same."""
    h = hashlib.sha256()
    for c in cells:
        if c.get("id") == STAMP_ID:
            continue
        h.update(c["cell_type"].encode())
        h.update(b"\0")
        h.update(text(c.get("source")).encode())
        h.update(b"\0")
    return h.hexdigest()


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores" + (f", {cpu}" if cpu else "") + f", {platform.system()} {platform.machine()}"


def duration(s):
    s = int(round(s))
    if s < 120:
        return f"{s} s"
    return f"{s // 60} min {s % 60:02d} s"


def stamp(args):
    with open(args.notebook) as f:
        nb = json.load(f)
    cells = [c for c in nb["cells"] if c.get("id") != STAMP_ID]
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    mode = "full mode (`LBSIM_QUICK=0`)" if args.mode == "full" else "quick mode (`LBSIM_QUICK=1`)"
    short = args.commit[:12]
    dirty = " plus uncommitted changes" if args.dirty == "1" else ""
    body = (
        f"*Executed with lbsim commit `{short}`{dirty} on {now:%Y-%m-%d} at {now:%H:%M} UTC, in {mode}: "
        f"{duration(args.seconds)} of wall time on {machine()} (load average {load:.1f} at the end), "
        f"Go {args.go.removeprefix('go')}."
        + (f" Quick mode (`LBSIM_QUICK=1`, what CI runs) passed just before on the same machine in {duration(args.quick_seconds)}."
           if args.quick_seconds is not None else "")
        + f" The outputs below come from that run; `make reproduce` runs every notebook again "
        f"in full mode and rewrites them in place.*"
    )
    cell = {"cell_type": "markdown", "id": STAMP_ID, "metadata": {}, "source": body}
    nb["cells"] = [cell] + cells
    meta = nb.setdefault("metadata", {}).setdefault("lbsim", {})
    meta["executed"] = {
        "commit": args.commit,
        "uncommitted_changes": args.dirty == "1",
        "date": now.isoformat().replace("+00:00", "Z"),
        "mode": args.mode,
        "wall_seconds": round(args.seconds, 1),
        **({"quick_wall_seconds": round(args.quick_seconds, 1)} if args.quick_seconds is not None else {}),
        "go": args.go,
        "sources_sha256": sources_sha256(cells),
    }
    with open(args.notebook, "w") as f:
        json.dump(nb, f, indent=1, ensure_ascii=False)
        f.write("\n")


IMG = re.compile(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"')


def thumbnail(args):
    with open(args.notebook) as f:
        nb = json.load(f)
    want = int(nb.get("metadata", {}).get("lbsim", {}).get("thumbnail", 0))
    found = []
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            found += IMG.findall(text(o.get("data", {}).get("text/html", "")))
    if not found:
        print(f"nbstamp: {args.notebook}: no chart picture to take a thumbnail from", file=sys.stderr)
        return 1
    if want < 0 or want >= len(found):
        print(f"nbstamp: {args.notebook}: metadata lbsim.thumbnail = {want}, but the notebook has {len(found)} chart pictures (0..{len(found) - 1})", file=sys.stderr)
        return 1
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(base64.b64decode(found[want]))
    os.replace(tmp, args.out)
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stamp")
    s.add_argument("notebook")
    s.add_argument("--mode", choices=["quick", "full"], required=True)
    s.add_argument("--commit", required=True)
    s.add_argument("--dirty", choices=["0", "1"], required=True)
    s.add_argument("--seconds", type=float, required=True)
    s.add_argument("--go", required=True)
    s.add_argument("--quick-seconds", type=float, default=None)
    t = sub.add_parser("thumbnail")
    t.add_argument("notebook")
    t.add_argument("out")
    a = p.parse_args()
    if a.cmd == "stamp":
        stamp(a)
        return 0
    return thumbnail(a)


if __name__ == "__main__":
    sys.exit(main())
