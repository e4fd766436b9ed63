#!/usr/bin/env bash
# tests/cli/training_cli_test.sh: supervised training from the command
# line: the files a run leaves in its logdir, relative state paths, the
# progress line (only when stderr is a terminal), and a located error for a
# node added to a finalized graph.
#
# Usage: training_cli_test.sh SLUICE REPO_ROOT. Needs script(1) for a pty.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/cli_lib.sh"
prog=$samples/supervised_training.sluice

# --- the logdir -------------------------------------------------------------
if expect_rc 0 "train into a relative logdir" "$sluice" run -C "$work" "$prog" \
    --set logdir=rel_logs --set steps=120 --set save_every=50; then
  grep -q '^start 0$' "$work/out" || bad "fresh run: $(cat "$work/out")"
  grep -q '^final 120 ' "$work/out" || bad "fresh run: $(cat "$work/out")"
  [ -s "$work/err" ] && bad "a run whose stderr is a file printed: $(head -c 300 "$work/err")"
  logs=$work/rel_logs
  # Saved at 50 and 100 on schedule and 120 at the end; paths relative to
  # the relative logdir, as TF writes them.
  want='model_checkpoint_path: "model.ckpt-120"
all_model_checkpoint_paths: "model.ckpt-50"
all_model_checkpoint_paths: "model.ckpt-100"
all_model_checkpoint_paths: "model.ckpt-120"'
  [ "$(cat "$logs/checkpoint")" = "$want" ] || bad "state file: $(cat "$logs/checkpoint")"
  for f in model.ckpt-120.index model.ckpt-120.data-00000-of-00001 model.ckpt-120.meta metrics.jsonl; do
    [ -s "$logs/$f" ] || bad "no $f in the logdir: $(ls "$logs")"
  done
  ls "$logs"/events.out.tfevents.* >/dev/null 2>&1 || bad "no event file: $(ls "$logs")"
  # The event file's first record (TFRecord framing) is file_version.
  python3 - "$logs"/events.out.tfevents.* <<'PY' || bad "event file: no brain.Event:2 record first"
import struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", data[:8])[0]
sys.exit(0 if b"brain.Event:2" in data[12:12 + n] else 1)
PY
  lines=$(wc -l <"$logs/metrics.jsonl")
  [ "$lines" -eq 12 ] || bad "metrics.jsonl has $lines lines, want 12 (steps 1, 11, ..., 111)"
  # Run again: it resumes at 120 and has nothing left to do.
  if expect_rc 0 "rerun" "$sluice" run -C "$work" "$prog" --set logdir=rel_logs --set steps=120; then
    grep -q '^start 120$' "$work/out" || bad "rerun: $(cat "$work/out")"
  fi
fi

# --- the progress line --------------------------------------------------------
if command -v script >/dev/null; then
  cmd="$sluice run $prog --set logdir=$work/tty_logs --set steps=3000 --set save_every=50"
  script -qfec "$cmd" /dev/null >"$work/tty.out" 2>&1
  grep -q 'steps/s' "$work/tty.out" || bad "no progress line on a terminal: $(head -c 300 "$work/tty.out")"
  grep -q 'step [0-9]* *[0-9.]* steps/s  loss ' "$work/tty.out" ||
    bad "progress line lacks step, steps/s or loss: $(head -c 300 "$work/tty.out")"
  rm -rf "$work/tty_logs"
  SLUICE_PROGRESS=0 script -qfec "$cmd" /dev/null >"$work/tty.out" 2>&1
  grep -q 'steps/s' "$work/tty.out" && bad "SLUICE_PROGRESS=0 still shows progress"
  grep -q '^final 3000 ' "$work/tty.out" || bad "tty run: $(tail -c 300 "$work/tty.out")"
else
  bad "script(1) is missing (util-linux): cannot test the progress line"
fi

# --- a finalized graph --------------------------------------------------------
cat >"$work/finalized.sluice" <<'SL'
v = variable(1.0, name: "v")
session(logdir: "finalized_logs") {
    run(v * 2)
}
SL
if expect_rc 1 "add a node in a supervised session" "$sluice" run -C "$work" "$work/finalized.sluice"; then
  grep -q "finalized.sluice:3:9: error: runtime_error: Graph is finalized and cannot be modified." "$work/err" ||
    bad "finalized: $(cat "$work/err")"
  [ -e "$work/finalized_logs/checkpoint" ] && bad "finalized: a failed session saved"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
