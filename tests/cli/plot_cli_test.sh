#!/usr/bin/env bash
# tests/cli/plot_cli_test.sh: `sluice plot LOGDIR -o OUT` over a supervised
# run's metrics.jsonl: pictures in each format, tag selection, restarts'
# repeated steps, cut lines, and the errors. Exits 77 (skipped) when
# gnuplot is not installed, after the checks that do not need it.
#
# Usage: plot_cli_test.sh SLUICE REPO_ROOT.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/cli_lib.sh"
prog=$samples/supervised_training.sluice
logs=$work/logs

# --- without gnuplot ------------------------------------------------------
expect_rc 2 "plot without a logdir" "$sluice" plot
if expect_rc 1 "plot a missing logdir" "$sluice" plot "$work/nowhere" -o "$work/x.svg"; then
  grep -q "$work/nowhere/metrics.jsonl: No such file or directory" "$work/err" ||
    bad "missing logdir: $(cat "$work/err")"
fi
expect_rc 0 "train" "$sluice" run "$prog" --set logdir="$logs" --set steps=200 --set save_every=50
if expect_rc 1 "plot to an unknown format" "$sluice" plot "$logs" -o "$work/x.jpg"; then
  grep -q "use .svg, .png, .pdf or .txt" "$work/err" || bad "unknown format: $(cat "$work/err")"
fi
if expect_rc 1 "plot an unknown tag" "$sluice" plot "$logs" --tag accuracy -o "$work/x.svg"; then
  grep -q "no scalar 'accuracy' in $logs/metrics.jsonl (tags: loss)" "$work/err" ||
    bad "unknown tag: $(cat "$work/err")"
fi
mkdir -p "$work/empty" && : >"$work/empty/metrics.jsonl"
if expect_rc 1 "plot no scalars" "$sluice" plot "$work/empty" -o "$work/x.svg"; then
  grep -q "no scalars in" "$work/err" || bad "no scalars: $(cat "$work/err")"
fi
if expect_rc 1 "plot with a missing gnuplot" env SLUICE_GNUPLOT=/no/such/gnuplot "$sluice" plot "$logs" -o "$work/x.svg"; then
  grep -q "cannot run /no/such/gnuplot" "$work/err" || bad "missing gnuplot: $(cat "$work/err")"
fi
if expect_rc 1 "plot with a failing gnuplot" env SLUICE_GNUPLOT=/bin/false "$sluice" plot "$logs" -o "$work/x.svg"; then
  grep -q "gnuplot failed" "$work/err" || bad "failing gnuplot: $(cat "$work/err")"
fi

if ! command -v gnuplot >/dev/null; then
  echo "SKIP gnuplot is not installed (scripts/install-deps.sh installs gnuplot-nox)"
  echo "$pass passed, $fail failed"
  [ $fail -eq 0 ] && exit 77
  exit 1
fi

# --- with gnuplot ---------------------------------------------------------
points=$(grep -c '"tag":"loss"' "$logs/metrics.jsonl")
if expect_rc 0 "plot svg" "$sluice" plot "$logs" -o "$work/loss.svg"; then
  grep -q "^wrote $work/loss.svg: loss ($points points)\$" "$work/out" || bad "svg: $(cat "$work/out")"
  head -c 200 "$work/loss.svg" | grep -q "<svg" || bad "svg: not an SVG file"
  grep -q ">loss<" "$work/loss.svg" || bad "svg: no 'loss' legend"
  # The curve: one path with a point per logged step.
  python3 - "$work/loss.svg" "$points" <<'PY' || bad "svg: no curve with $points points"
import re, sys
svg, n = open(sys.argv[1]).read(), int(sys.argv[2])
paths = re.findall(r"<path[^>]*d='([^']*)'", svg) + re.findall(r'<path[^>]*d="([^"]*)"', svg)
sys.exit(0 if any(len(re.findall(r"[ML]", d)) >= n for d in paths) else 1)
PY
fi
if expect_rc 0 "plot txt, log scale" "$sluice" plot "$logs" -o "$work/loss.txt" --log-y --title "my run"; then
  grep -q "my run" "$work/loss.txt" || bad "txt: no title"
  grep -q "loss" "$work/loss.txt" || bad "txt: no legend"
fi
expect_rc 0 "plot png" "$sluice" plot "$logs" -o "$work/loss.png" &&
  { head -c 8 "$work/loss.png" | grep -q "PNG" || bad "png: not a PNG file"; }
# A restart logs steps again (the last value wins) and a kill may cut the
# last line: both still plot.
"$sluice" run "$prog" --set logdir="$logs" --set steps=300 --set save_every=50 >/dev/null 2>&1
echo '{"step":1,"wall_time":1.5,"tag":"loss","value":6.5}' >>"$logs/metrics.jsonl" # step 1 again
printf '{"step":30' >>"$logs/metrics.jsonl"
distinct=$(grep -o '"step":[0-9]*,' "$logs/metrics.jsonl" | sort -u | wc -l)
if expect_rc 0 "plot after a restart and a cut line" "$sluice" plot "$logs" -o "$work/again.svg"; then
  grep -q "loss ($distinct points)" "$work/out" || bad "restart: $(cat "$work/out"), want $distinct points"
  grep -q "skipped 1 unreadable line" "$work/err" || bad "cut line: $(cat "$work/err")"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
