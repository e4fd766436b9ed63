#!/usr/bin/env bash
# tests/cli/crash_recovery_test.sh: kills `sluice run` of a supervised
# training program with SIGKILL at random moments (at least 12 times),
# restarting it each time, and checks that every restart resumes from the
# newest checkpoint in the state file (which therefore loads), that the
# global step never goes back past the last saved one, and that training
# ends with exactly the loss and weights of an uninterrupted run. Then a
# truncated and a bit-flipped newest checkpoint: each is reported, naming
# the file, and the session falls back to the previous kept one.
#
# Usage: crash_recovery_test.sh SLUICE REPO_ROOT [SEED]. Needs python3.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/cli_lib.sh"
seed=${3:-$(date +%s)}
RANDOM=$seed
echo "crash_recovery: seed $seed (rerun with it as the third argument)"

prog=$samples/supervised_training.sluice
steps=4000
args=(--set steps=$steps --set save_every=25)
min_kills=12

# The newest step the state file of $1 names (-1 without one).
newest() {
  local s
  s=$(sed -n 's/^model_checkpoint_path: ".*model\.ckpt-\([0-9]*\)"$/\1/p' "$1/checkpoint" 2>/dev/null)
  echo "${s:--1}"
}

start_ms=$(($(date +%s%N) / 1000000))
"$sluice" run "$prog" --set logdir="$work/ref" "${args[@]}" >"$work/ref.out" 2>"$work/ref.err" ||
  { bad "the uninterrupted run failed: $(cat "$work/ref.err")"; echo "$pass passed, $fail failed"; exit 1; }
ref_ms=$(($(date +%s%N) / 1000000 - start_ms))
ref_final=$(grep '^final ' "$work/ref.out")
[ -n "$ref_final" ] || bad "the uninterrupted run printed no final line"
# The loss went down from 2/3 * 9 + 4 = 7 to under 1e-2.
python3 -c "import sys; sys.exit(0 if float('$ref_final'.split()[2]) < 1e-2 else 1)" ||
  bad "the uninterrupted run did not train: $ref_final"

kills=0 rounds=0 restarts=0 finals=()
while [ $kills -lt $min_kills ] || [ ${#finals[@]} -eq 0 ]; do
  rounds=$((rounds + 1))
  # A fast machine finishes a restart inside the kill window more often,
  # so a round may hold only a kill or two: allow many rounds.
  [ $rounds -le 20 ] || { bad "no round completed after $kills kills"; break; }
  logdir=$work/logs_$rounds
  prev_newest=-1
  round_kills=0
  while :; do
    restarts=$((restarts + 1))
    "$sluice" run "$prog" --set logdir="$logdir" "${args[@]}" >"$work/run.out" 2>"$work/run.err" &
    pid=$!
    killed=0
    if [ $kills -lt $min_kills ]; then
      # 50-500 ms: before the session is ready, mid-step, mid-save...
      sleep "0.$(printf '%03d' $((RANDOM % 451 + 50)))"
      if kill -KILL "$pid" 2>/dev/null; then
        killed=1
      fi
    fi
    { wait "$pid"; } 2>/dev/null # no "Killed" line from bash
    rc=$?
    [ $killed -eq 1 ] && [ $rc -eq 0 ] && killed=0 # it had just finished
    if [ $killed -eq 1 ] && [ $rc -eq 137 ]; then
      kills=$((kills + 1))
      round_kills=$((round_kills + 1))
    elif [ $rc -ne 0 ]; then
      bad "restart $restarts exited with $rc: $(head -c 400 "$work/run.err")"
      break 2
    fi
    # A restart resumes exactly from the newest saved checkpoint, without
    # needing a fallback: every write is atomic.
    start=$(sed -n 's/^start \([0-9]*\)$/\1/p' "$work/run.out")
    want=$((prev_newest < 0 ? 0 : prev_newest))
    if [ -n "$start" ] && [ "$start" -ne "$want" ]; then
      bad "restart $restarts began at step $start, the newest checkpoint was $prev_newest"
    else
      ok
    fi
    if grep -q 'warning' "$work/run.err"; then
      bad "restart $restarts warned: $(grep warning "$work/run.err" | head -3)"
    fi
    now=$(newest "$logdir")
    if [ "$now" -lt "$prev_newest" ]; then
      bad "the newest checkpoint went back from $prev_newest to $now"
    fi
    prev_newest=$now
    if [ $killed -eq 0 ]; then
      # A round that was never interrupted proves nothing.
      [ $round_kills -gt 0 ] && finals+=("$(grep '^final ' "$work/run.out")")
      break
    fi
  done
done
ok
for f in "${finals[@]}"; do
  if [ "$f" != "$ref_final" ]; then
    bad "after $kills kills the run ended with '$f', uninterrupted: '$ref_final'"
  else
    ok
  fi
done
[ $kills -ge $min_kills ] || bad "only $kills kills"

# --- damaged checkpoints: fall back to the previous kept one -----------
logdir=$work/logs_$rounds
[ "$(newest "$logdir")" -eq $steps ] || bad "the newest checkpoint is not step $steps"
kept=$(grep -c '^all_model_checkpoint_paths' "$logdir/checkpoint")
[ "$kept" -eq 5 ] || bad "the state file keeps $kept checkpoints, not max_to_keep 5"
previous=$((steps - 25))
data=$logdir/model.ckpt-$steps.data-00000-of-00001
truncate -s -1 "$data"
if expect_rc 0 "run after truncating" "$sluice" run "$prog" --set logdir="$logdir" "${args[@]}"; then
  grep -q "^start $previous\$" "$work/out" || bad "truncated: did not start at $previous: $(cat "$work/out")"
  grep -q "model.ckpt-$steps.data-00000-of-00001 is truncated" "$work/err" ||
    bad "truncated: no message naming the data file: $(cat "$work/err")"
  grep -q "restored .*model.ckpt-$previous instead of .*model.ckpt-$steps" "$work/err" ||
    bad "truncated: no fallback message: $(cat "$work/err")"
  [ "$(grep '^final ' "$work/out")" = "$ref_final" ] || bad "truncated: wrong final: $(cat "$work/out")"
fi
index=$logdir/model.ckpt-$steps.index
python3 - "$index" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x08  # one bit
open(p, "wb").write(bytes(b))
PY
if expect_rc 0 "run after a bit flip" "$sluice" run "$prog" --set logdir="$logdir" "${args[@]}"; then
  grep -q "^start $previous\$" "$work/out" || bad "bit flip: did not start at $previous: $(cat "$work/out")"
  grep -q "model.ckpt-$steps.index is corrupt (checksum mismatch)" "$work/err" ||
    bad "bit flip: no message naming the index: $(cat "$work/err")"
  [ "$(grep '^final ' "$work/out")" = "$ref_final" ] || bad "bit flip: wrong final: $(cat "$work/out")"
fi
ls "$logdir" | grep -q '\.tmp-' && bad "temporaries left in $logdir: $(ls "$logdir")"

echo "crash_recovery: $kills kills over $restarts runs in $rounds round(s); uninterrupted run ${ref_ms} ms"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
