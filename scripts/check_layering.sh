#!/usr/bin/env bash
# scripts/check_layering.sh: checks every `#include "..."` of the project's
# own code against the layering table in docs/architecture.md (between the
# markers `<!-- layering -->` and `<!-- /layering -->`: one row per folder,
# the folders it may include). A folder's files are those below it, less
# those of a deeper folder with a row of its own (runtime/distributed is not
# runtime). Also: Boost.Graph only in ir/, gRPC only in runtime/distributed/,
# and the environment (getenv) read only at the edge: cli/, driver/ and
# support/settings.cc.
# Prints each violation as FILE:LINE and exits 1 when there is one.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
table="docs/architecture.md"
[ -f "$table" ] || { echo "check_layering: $table not found" >&2; exit 2; }

python3 - "$table" <<'PY'
import os, re, subprocess, sys

text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"<!-- layering -->(.*?)<!-- /layering -->", text, re.S)
if not m:
    sys.exit("check_layering: no <!-- layering --> table in " + sys.argv[1])
allowed = {}
for line in m.group(1).splitlines():
    cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
    if len(cells) != 2 or cells[0] in ("", "folder") or set(cells[0]) <= set("-: "):
        continue
    allowed[cells[0].rstrip("/")] = {c.strip("`").rstrip("/") for c in cells[1].split()}
if not allowed:
    sys.exit("check_layering: the layering table is empty")

def layer(path):
    """The deepest folder of the table that holds `path`, or None."""
    best = None
    for folder in allowed:
        if path == folder or path.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best

files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                       capture_output=True, text=True, check=True).stdout.split()
include = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
getenv = re.compile(r'\bgetenv\s*\(')
edge = ("cli", "driver")
bad = 0
checked = 0
for f in files:
    if not f.endswith((".h", ".cc", ".cpp")) or not os.path.isfile(f):
        continue
    home = layer(f)
    if home is None:
        continue
    checked += 1
    with open(f, encoding="utf-8", errors="replace") as src:
        for n, line in enumerate(src, 1):
            if getenv.search(line) and home not in edge and f != "support/settings.cc" \
                    and not line.lstrip().startswith("//"):
                print(f"{f}:{n}: the environment is read at the edge (cli/, driver/, "
                      f"support/settings.cc), not in {home}/")
                bad += 1
            inc = include.match(line)
            if not inc:
                continue
            kind, target = inc.groups()
            if kind == "<":
                if target.startswith("boost/graph") and home != "ir":
                    print(f"{f}:{n}: Boost.Graph is ir/'s alone: <{target}>")
                    bad += 1
                if target.startswith(("grpc", "grpcpp")) and home != "runtime/distributed":
                    print(f"{f}:{n}: gRPC is runtime/distributed/'s alone: <{target}>")
                    bad += 1
                continue
            there = layer(target)
            if there is None or there == home:
                continue
            if there not in allowed[home]:
                print(f"{f}:{n}: {home}/ may not include {there}/ (\"{target}\"); "
                      f"see the layering table in docs/architecture.md")
                bad += 1
print(f"check_layering: {checked} files, {bad} violations")
sys.exit(1 if bad else 0)
PY
