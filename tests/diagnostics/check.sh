#!/usr/bin/env bash
# tests/diagnostics/check.sh: runs `sluice run` on each broken file here and
# checks the GCC-style diagnostics its `# ERROR: L:C: text` lines promise.
#
# Usage: check.sh SLUICE DIR. A file passes when the tool exits 1 (not 0,
# not a usage error, not a signal), stderr ends with a newline, and for each
# ERROR line some stderr line starts with `FILE:L:C: error:` and contains the
# text. A `# SKIP: why` line skips a file (a known bug, reported to owners).
set -u
sluice=${1:?usage: check.sh SLUICE DIR}
dir=${2:?usage: check.sh SLUICE DIR}
case $sluice in /*) ;; *) sluice=$PWD/$sluice ;; esac
cd "$dir" || exit 2

pass=0 fail=0 skip=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT

for file in *.sluice; do
  if grep -q '^# SKIP:' "$file"; then
    echo "SKIP $file: $(sed -n 's/^# SKIP: //p' "$file" | head -1)"
    skip=$((skip + 1))
    continue
  fi
  mapfile -t expects < <(sed -n 's/^# ERROR: //p' "$file")
  if [ ${#expects[@]} -eq 0 ]; then
    echo "FAIL $file: no '# ERROR: L:C: text' line"
    fail=$((fail + 1))
    continue
  fi
  timeout 30 "$sluice" run "$file" >/dev/null 2>"$err"
  rc=$?
  problems=()
  if [ $rc -eq 124 ]; then
    problems+=("timed out")
  elif [ $rc -ge 128 ]; then
    problems+=("killed by signal $((rc - 128))")
  elif [ $rc -ne 1 ]; then
    problems+=("exit code $rc, expected 1")
  fi
  # Each diagnostic is whole lines: message, source line, caret.
  if [ -s "$err" ] && [ "$(tail -c1 "$err" | od -An -c | tr -d ' ')" != '\n' ]; then
    problems+=("stderr does not end with a newline")
  fi
  for e in "${expects[@]}"; do
    loc=${e%%: *}
    text=${e#*: }
    prefix="$file:$loc: error:"
    found=0
    while IFS= read -r line; do
      if [[ $line == "$prefix"* && $line == *"$text"* ]]; then
        found=1
        break
      fi
    done <"$err"
    [ $found -eq 1 ] || problems+=("missing '$prefix ... $text'")
  done
  if ! grep -q '^[[:space:]]*\^' "$err"; then
    problems+=("no caret line")
  fi
  if [ ${#problems[@]} -eq 0 ]; then
    echo "PASS $file"
    pass=$((pass + 1))
  else
    echo "FAIL $file:"
    for p in "${problems[@]}"; do echo "    $p"; done
    echo "  stderr was:"
    awk '{ print "    | " $0 }' "$err"
    fail=$((fail + 1))
  fi
done

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
