#!/usr/bin/env bash
# tests/cli/cluster_cli_test.sh: the gRPC cluster from the command line,
# several processes on loopback: `sluice launch` of the distributed samples
# (task-prefixed output, async training that matches the single-process
# run, sync replicas' one update per step, with backup workers too), a
# queue on a ps task shared by three workers, SIGKILL of a worker (the job
# goes on with --keep-going) and of a ps (the worker fails naming it, and
# resumes from the checkpoint once the ps is back), the cluster token,
# mutual TLS, and malformed or oversized messages sent to a ps port.
#
# Every process runs under `timeout`; whatever is left is killed on exit.
# Each case prints "ok - NAME" or "not ok - NAME" with what went wrong.
#
# Usage: cluster_cli_test.sh SLUICE REPO_ROOT [CASE-SUBSTRING]. Needs python3
# (free ports, the hostile peer) and openssl (the TLS case is skipped
# without it).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/cli_lib.sh"
fixtures=$here/fixtures
only=${3:-}
unset SLUICE_CLUSTER_TOKEN TF_CONFIG
export TMPDIR=$work # launch's cluster files and temp_dir()s land in the scratch folder

# --- processes ------------------------------------------------------------
# Background processes: subshells around `timeout`, whose descendants are
# the sluice processes. Killed (by pid, tree first) after each case and on exit.
spawned=()
descendants() { # parents before their children
  local c
  for c in $(pgrep -P "$1" 2>/dev/null); do
    echo "$c"
    descendants "$c"
  done
}
kill_tree() { # the whole tree is listed before anything is killed
  local p all
  all=$(descendants "$1")
  for p in "$1" $all; do
    kill -KILL "$p" 2>/dev/null
  done
}
stop_spawned() {
  local p
  for p in "${spawned[@]}"; do
    kill_tree "$p"
  done
  for p in "${spawned[@]}"; do
    { wait "$p"; } 2>/dev/null # no "Killed" line from bash
  done
  spawned=()
}
trap 'stop_spawned; rm -rf "$work"' EXIT

# bg NAME LIMIT CMD...: CMD in the background under `timeout LIMIT`, its
# output in $work/NAME.out and .err; the wrapper's pid in $bg_pid.
bg() {
  local name=$1 lim=$2
  shift 2
  # A subshell that outlives timeout: its end by a signal is an exit code,
  # and the subshell's "Killed" line goes nowhere.
  (
    timeout -k 5 "$lim" "$@" >"$work/$name.out" 2>"$work/$name.err"
    exit $?
  ) 2>/dev/null &
  bg_pid=$!
  spawned+=("$bg_pid")
}
# The sluice process under the wrapper $1 (fails if it is gone).
inner() {
  local i c
  for i in $(seq 50); do
    for c in $(descendants "$1"); do
      [ "$(cat /proc/"$c"/comm 2>/dev/null)" = sluice ] && { echo "$c"; return 0; }
    done
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# wait_for FILE REGEX SECONDS [PID]: until FILE has a line matching REGEX;
# fails when the time is up or when PID has ended first.
wait_for() {
  local file=$1 re=$2 secs=$3 pid=${4:-} i
  for i in $(seq $((secs * 20))); do
    grep -Eq -- "$re" "$file" 2>/dev/null && return 0
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      grep -Eq -- "$re" "$file" 2>/dev/null
      return
    fi
    sleep 0.05
  done
  return 1
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# free_ports N: N loopback ports free right now, space-separated.
free_ports() {
  python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}
# cluster_file FILE NPS NWORKERS: a cluster spec on fresh ports; the ps
# addresses in ${ps_addr[@]}.
cluster_file() {
  local file=$1 nps=$2 nw=$3 ports i
  read -r -a ports <<<"$(free_ports $((nps + nw)))"
  ps_addr=()
  local workers=()
  for ((i = 0; i < nps; i++)); do ps_addr+=("127.0.0.1:${ports[i]}"); done
  for ((i = 0; i < nw; i++)); do workers+=("127.0.0.1:${ports[nps + i]}"); done
  python3 -c '
import json, sys
nps = int(sys.argv[2])
a = sys.argv[3:]
json.dump({"ps": a[:nps], "worker": a[nps:]}, open(sys.argv[1], "w"))' \
    "$file" "$nps" "${ps_addr[@]}" "${workers[@]}"
}
# serve NAME SPEC [FLAGS...]: a ps task 0 of SPEC, waited for until it
# listens; its wrapper in $serve_pid.
serve() {
  local name=$1 spec=$2
  shift 2
  bg "$name" 60 "$sluice" serve --cluster "$spec" --job ps --task 0 "$@"
  serve_pid=$bg_pid
  wait_for "$work/$name.out" 'listening on' 20 "$serve_pid" ||
    { why "the ps did not start listening: $(cat "$work/$name.out" "$work/$name.err")"; return 1; }
}

# --- cases ----------------------------------------------------------------
why() { printf '%s\n' "$*" >>"$work/why"; }
show() { # show FILE...: the files' last lines, for a failure's report
  local f
  for f in "$@"; do
    why "--- ${f##*/}:"
    why "$(tail -n 25 "$f" 2>/dev/null)"
  done
}
run_case() {
  local name=$1
  shift
  [ -n "$only" ] && [[ "$name" != *"$only"* ]] && return 0
  : >"$work/why"
  local t0
  t0=$(now_ms)
  "$@"
  local rc=$?
  stop_spawned
  if [ $rc -eq 0 ] && [ ! -s "$work/why" ]; then
    echo "ok - $name ($(($(now_ms) - t0)) ms)"
    ok
  else
    echo "not ok - $name"
    sed 's/^/#   /' "$work/why"
    fail=$((fail + 1))
  fi
}

# w and b of a "ran ... w W b B" line.
w_of() { sed -n 's/.* w \([-0-9.e]*\) b \([-0-9.e]*\)$/\1/p' <<<"$1"; }
b_of() { sed -n 's/.* w \([-0-9.e]*\) b \([-0-9.e]*\)$/\2/p' <<<"$1"; }
# near A B TOL
near() { python3 -c 'import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(0 if abs(a - b) <= t else 1)' "$@" 2>/dev/null; }

# 1. Async between-graph training over 2 ps and 2 workers.
case_launch_linear() {
  local prog=$samples/distributed_linear.sluice
  timeout 60 "$sluice" run "$prog" >"$work/single.out" 2>"$work/single.err" ||
    { why "the single-process run failed"; show "$work/single.err"; return 1; }
  local single sw sb
  single=$(grep '^ran ' "$work/single.out")
  sw=$(w_of "$single") sb=$(b_of "$single")
  { near "$sw" 3 0.02 && near "$sb" 2 0.02; } || why "the single-process run did not train: '$single'"
  timeout 120 "$sluice" launch "$prog" --ps 2 --workers 2 >"$work/l.out" 2>"$work/l.err"
  local rc=$?
  [ $rc -eq 0 ] || { why "launch exited with $rc"; show "$work/l.out" "$work/l.err"; return 1; }
  local bad_lines
  bad_lines=$(grep -Ev '^\[(ps:[01]|worker:[01])\] ' "$work/l.out")
  [ -z "$bad_lines" ] || why "stdout lines without a task prefix: $bad_lines"
  bad_lines=$(grep -Ev '^\[(launch|ps:[01]|worker:[01])\] ' "$work/l.err")
  [ -z "$bad_lines" ] || why "stderr lines without a prefix: $bad_lines"
  local t
  for t in ps:0 ps:1; do
    grep -q "^\[$t\] sluice serve: /job:ps/replica:0/task:${t#ps:} listening on 127.0.0.1:" "$work/l.out" ||
      why "no listening line from $t"
  done
  grep -q '^\[worker:0\] task worker:0 chief: true ' "$work/l.out" || why "worker:0 did not say it is the chief"
  grep -q '^\[worker:1\] task worker:1 chief: false ' "$work/l.out" || why "worker:1 did not say it is not the chief"
  for t in worker:0 worker:1; do
    local line w b
    line=$(grep "^\[$t\] ran " "$work/l.out")
    w=$(w_of "$line") b=$(b_of "$line")
    if [ -z "$w" ] || [ -z "$b" ]; then
      why "no final 'ran ... w W b B' line from $t"
      continue
    fi
    { near "$w" 3 0.02 && near "$b" 2 0.02 && near "$w" "$sw" 0.02 && near "$b" "$sb" 0.02; } ||
      why "$t ended with w $w b $b; single process: w $sw b $sb (want both within 0.02 of 3, 2)"
    local of
    of=$(sed -n 's/.* ran [0-9]* of \([0-9]*\) steps.*/\1/p' <<<"$line")
    [ -n "$of" ] && [ "$of" -ge 600 ] || why "$t stopped at global step '$of', before 600: $line"
  done
  [ -s "$work/why" ] && show "$work/l.out" "$work/l.err"
  return 0
}

# sync_check OUT WORKERS STEPS WANT_SUM: every worker's "ran N steps;
# global step G" line has G = STEPS, and the Ns add up to WANT_SUM.
sync_check() {
  local out=$1 n=$2 steps=$3 want=$4 sum=0 i line ran g
  for ((i = 0; i < n; i++)); do
    line=$(grep "^\[worker:$i\] task worker:$i ran " "$out")
    ran=$(sed -n 's/.* ran \([0-9]*\) steps; global step \([0-9]*\) .*/\1/p' <<<"$line")
    g=$(sed -n 's/.* ran \([0-9]*\) steps; global step \([0-9]*\) .*/\2/p' <<<"$line")
    if [ -z "$ran" ]; then
      why "no 'ran N steps; global step G' line from worker:$i"
      continue
    fi
    [ "$g" -eq "$steps" ] || why "worker:$i saw global step $g, not $steps"
    sum=$((sum + ran))
  done
  [ $sum -eq "$want" ] || why "the workers ran $sum train steps in all, not $want (init tokens + tokens per step x $steps)"
}

# 2. sync_replicas_optimizer: exactly one update per global step.
case_sync_replicas() {
  local prog=$samples/sync_replicas.sluice rc
  timeout 120 "$sluice" launch "$prog" --ps 1 --workers 2 --set steps=100 >"$work/s.out" 2>"$work/s.err"
  rc=$?
  if [ $rc -ne 0 ]; then
    why "launch --workers 2 exited with $rc"
  else
    # 2 init tokens (replicas_to_aggregate), 2 tokens per update.
    sync_check "$work/s.out" 2 100 $((2 + 2 * 100))
  fi
  [ -s "$work/why" ] && { show "$work/s.out" "$work/s.err"; return 1; }
  timeout 120 "$sluice" launch "$prog" --ps 1 --workers 3 --set steps=100 --set aggregate=2 \
    >"$work/s3.out" 2>"$work/s3.err"
  rc=$?
  if [ $rc -ne 0 ]; then
    why "launch --workers 3 --set aggregate=2 exited with $rc"
  else
    # Backup workers: 2 init tokens (aggregate), max(3, 2) = 3 per update.
    sync_check "$work/s3.out" 3 100 $((2 + 3 * 100))
  fi
  [ -s "$work/why" ] && show "$work/s3.out" "$work/s3.err"
  return 0
}

# 3. A queue on the ps shared by name: worker 0 fills, workers 1 and 2 drain.
case_shared_queue() {
  timeout 120 "$sluice" launch "$fixtures/shared_queue.sluice" --ps 1 --workers 3 \
    >"$work/q.out" 2>"$work/q.err"
  local rc=$?
  [ $rc -eq 0 ] || { why "launch exited with $rc"; show "$work/q.out" "$work/q.err"; return 1; }
  grep -q '^\[worker:0\] filled 100$' "$work/q.out" || why "worker:0 did not fill the queue"
  grep -q '^\[worker:0\] got ' "$work/q.out" && why "worker:0 dequeued"
  local n1 n2
  n1=$(grep -c '^\[worker:1\] got ' "$work/q.out")
  n2=$(grep -c '^\[worker:2\] got ' "$work/q.out")
  [ "$n1" -ge 1 ] && [ "$n2" -ge 1 ] || why "worker:1 got $n1 elements, worker:2 got $n2: each should get some"
  grep -q "^\[worker:1\] drained $n1\$" "$work/q.out" || why "worker:1 did not end on out_of_range after its $n1"
  grep -q "^\[worker:2\] drained $n2\$" "$work/q.out" || why "worker:2 did not end on out_of_range after its $n2"
  local all
  all=$(sed -n 's/^\[worker:[12]\] got \(.*\)$/\1/p' "$work/q.out" | sort -n | tr '\n' ' ')
  [ "$all" = "$(seq 0 99 | tr '\n' ' ')" ] ||
    why "the drained elements are not exactly 0..99 once each: $all"
  [ -s "$work/why" ] && show "$work/q.out" "$work/q.err"
  return 0
}

# Newest step named by the checkpoint state file in $1 (-1 without one).
newest() {
  local s
  s=$(sed -n 's/^model_checkpoint_path: ".*model\.ckpt-\([0-9]*\)"$/\1/p' "$1/checkpoint" 2>/dev/null)
  echo "${s:--1}"
}

# 4. SIGKILL of a non-chief worker mid-training: --keep-going finishes.
case_kill_worker() {
  local logdir=$work/c4log steps=4000
  bg k 120 "$sluice" launch "$samples/distributed_linear.sluice" --ps 1 --workers 3 --keep-going \
    --set steps=$steps --set logdir="$logdir"
  local wrapper=$bg_pid launcher victim
  launcher=$(inner "$wrapper") || { why "launch did not start"; show "$work/k.err"; return 1; }
  # Training is under way once the chief saved its first checkpoint (step 200).
  local i
  for i in $(seq 600); do
    [ "$(newest "$logdir")" -ge 0 ] && break
    kill -0 "$wrapper" 2>/dev/null || break
    sleep 0.05
  done
  [ "$(newest "$logdir")" -ge 0 ] || { why "no checkpoint within 30 s"; show "$work/k.out" "$work/k.err"; return 1; }
  victim=$(pgrep -P "$launcher" -f -- ' --job worker --task 1( |$)')
  [ -n "$victim" ] || { why "no worker:1 process under launch"; show "$work/k.out" "$work/k.err"; return 1; }
  kill -KILL "$victim"
  { wait "$wrapper"; } 2>/dev/null
  local rc=$?
  [ $rc -eq 0 ] || why "launch exited with $rc after worker:1 was killed"
  grep -q '^\[launch\] worker:1 exited with code 137; the others go on (--keep-going)' "$work/k.err" ||
    why "launch did not report worker:1's SIGKILL"
  grep -q '^\[worker:1\] ran ' "$work/k.out" && why "worker:1 had finished before the kill: the test killed too late"
  local t line of
  for t in worker:0 worker:2; do
    line=$(grep "^\[$t\] ran " "$work/k.out")
    of=$(sed -n 's/.* ran [0-9]* of \([0-9]*\) steps.*/\1/p' <<<"$line")
    [ -n "$of" ] && [ "$of" -ge $steps ] || why "$t did not reach step $steps: '$line'"
  done
  local saved
  saved=$(newest "$logdir")
  [ "$saved" -ge $steps ] || why "the chief's newest checkpoint is step $saved, not its final one (>= $steps)"
  [ -f "$logdir/model.ckpt-$saved.index" ] || why "the state file names model.ckpt-$saved, which is missing: $(ls "$logdir")"
  [ -s "$work/why" ] && show "$work/k.out" "$work/k.err"
  return 0
}

# 5. SIGKILL of the ps: the worker fails naming it; once the ps is back, a
# restarted worker resumes from the last checkpoint.
case_kill_ps() {
  local spec=$work/c5.json logdir=$work/c5log prog=$fixtures/resumable_linear.sluice
  cluster_file "$spec" 1 1
  local addr=${ps_addr[0]}
  serve ps5 "$spec" || return 1
  local ps
  ps=$(inner "$serve_pid") || { why "no ps process"; return 1; }
  bg w5 60 "$sluice" run "$prog" --cluster "$spec" --job worker --task 0 \
    --set extra=100000000 --set save_every=50 --set logdir="$logdir"
  local worker=$bg_pid i
  for i in $(seq 600); do
    [ "$(newest "$logdir")" -ge 100 ] && break
    kill -0 "$worker" 2>/dev/null || break
    sleep 0.05
  done
  [ "$(newest "$logdir")" -ge 100 ] ||
    { why "no checkpoint past step 100 within 30 s"; show "$work/w5.out" "$work/w5.err" "$work/ps5.err"; return 1; }
  kill -KILL "$ps"
  local t0 rc waited
  t0=$(now_ms)
  { wait "$worker"; } 2>/dev/null
  rc=$?
  { wait "$serve_pid"; } 2>/dev/null
  waited=$(($(now_ms) - t0))
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    why "the worker still ran 60 s after the ps was killed"
  elif [ $rc -eq 0 ]; then
    why "the worker exited 0 after its ps was killed"
  fi
  [ $waited -le 30000 ] || why "the worker took $waited ms to fail"
  grep -q 'unavailable' "$work/w5.err" || why "the worker's error does not say unavailable"
  grep -qF "$addr" "$work/w5.err" || why "the worker's error does not name the ps at $addr"
  grep -q '^start 0$' "$work/w5.out" || why "the first worker did not start from step 0"
  [ -s "$work/why" ] && { show "$work/w5.out" "$work/w5.err"; return 1; }
  local saved
  saved=$(newest "$logdir")
  # Supervised resume: the ps comes back on its port, empty; the chief
  # restores the variables from the checkpoint.
  serve ps5b "$spec" || return 1
  timeout 60 "$sluice" run "$prog" --cluster "$spec" --job worker --task 0 \
    --set extra=50 --set save_every=50 --set logdir="$logdir" >"$work/w5b.out" 2>"$work/w5b.err"
  rc=$?
  [ $rc -eq 0 ] || { why "the restarted worker exited with $rc"; show "$work/w5b.out" "$work/w5b.err"; return 1; }
  local start end
  start=$(sed -n 's/^start \([0-9]*\)$/\1/p' "$work/w5b.out")
  end=$(sed -n 's/^end \([0-9]*\) .*/\1/p' "$work/w5b.out")
  [ -n "$start" ] && [ "$start" -gt 0 ] && [ "$start" -eq "$saved" ] ||
    why "the restarted worker started at step '$start', the newest checkpoint is $saved"
  [ -n "$end" ] && [ -n "$start" ] && [ "$end" -ge $((start + 50)) ] || why "it ended at step '$end'"
  [ "$(newest "$logdir")" -ge $((saved + 50)) ] || why "it did not save its final step: newest $(newest "$logdir")"
  [ -s "$work/why" ] && show "$work/w5b.out" "$work/w5b.err"
  return 0
}

# 6. --cluster-token: calls without it are refused.
case_token() {
  local spec=$work/c6.json prog=$samples/distributed_linear.sluice
  cluster_file "$spec" 1 1
  python3 -c 'import secrets; print(secrets.token_hex(16))' >"$work/token"
  serve ps6 "$spec" --cluster-token "$work/token" || return 1
  local rc t0 waited
  local -a worker=("$sluice" run "$prog" --cluster "$spec" --job worker --task 0 --set steps=20)
  t0=$(now_ms)
  timeout 30 "${worker[@]}" >"$work/w6a.out" 2>"$work/w6a.err"
  rc=$?
  waited=$(($(now_ms) - t0))
  if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
    why "without the token: exit code $rc (want a failure, not a timeout)"
    show "$work/w6a.err"
  else
    grep -q 'unauthenticated' "$work/w6a.err" || { why "without the token: no 'unauthenticated'"; show "$work/w6a.err"; }
    [ $waited -le 15000 ] || why "without the token: it took $waited ms to fail"
  fi
  SLUICE_CLUSTER_TOKEN=not-the-token timeout 30 "${worker[@]}" >"$work/w6b.out" 2>"$work/w6b.err"
  rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
    why "with a wrong token: exit code $rc"
  else
    grep -q 'unauthenticated' "$work/w6b.err" || { why "with a wrong token: no 'unauthenticated'"; show "$work/w6b.err"; }
  fi
  timeout 60 "${worker[@]}" --cluster-token "$work/token" >"$work/w6c.out" 2>"$work/w6c.err"
  rc=$?
  [ $rc -eq 0 ] && grep -q '^ran 21 of 21 steps' "$work/w6c.out" ||
    { why "with --cluster-token: exit code $rc"; show "$work/w6c.out" "$work/w6c.err"; }
  SLUICE_CLUSTER_TOKEN=$(cat "$work/token") timeout 60 "${worker[@]}" --set logdir="$work/c6log" \
    >"$work/w6d.out" 2>"$work/w6d.err"
  rc=$?
  [ $rc -eq 0 ] && grep -q '^ran 21 of 21 steps' "$work/w6d.out" ||
    { why "with \$SLUICE_CLUSTER_TOKEN: exit code $rc"; show "$work/w6d.out" "$work/w6d.err"; }
  return 0
}

# certificate NAME CA: a key and a certificate for 127.0.0.1 (IP SAN),
# signed by CA, good for serving and for calling.
certificate() {
  local n=$1 ca=$2 d=$work/tls
  openssl req -newkey rsa:2048 -nodes -keyout "$d/$n.key" -out "$d/$n.csr" -subj "/CN=$n" &&
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n' >"$d/$n.ext" &&
    openssl x509 -req -in "$d/$n.csr" -CA "$d/$ca.pem" -CAkey "$d/$ca.key" -CAcreateserial \
      -out "$d/$n.pem" -days 2 -extfile "$d/$n.ext"
}
authority() {
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/tls/$1.key" -out "$work/tls/$1.pem" \
    -days 2 -subj "/CN=$1"
}

# 7. Mutual TLS.
case_tls() {
  if ! command -v openssl >/dev/null; then
    echo "# skip: openssl is missing"
    return 0
  fi
  mkdir -p "$work/tls"
  { authority ca && certificate ps ca && certificate worker ca &&
    authority rogue_ca && certificate rogue rogue_ca; } >"$work/openssl.log" 2>&1 ||
    { why "openssl failed"; show "$work/openssl.log"; return 1; }
  local d=$work/tls spec=$work/c7.json prog=$samples/distributed_linear.sluice
  cluster_file "$spec" 1 1
  serve ps7 "$spec" --tls-cert "$d/ps.pem" --tls-key "$d/ps.key" --tls-ca "$d/ca.pem" || return 1
  local -a worker=("$sluice" run "$prog" --cluster "$spec" --job worker --task 0 --set steps=20)
  local rc
  timeout 60 "${worker[@]}" --tls-cert "$d/worker.pem" --tls-key "$d/worker.key" --tls-ca "$d/ca.pem" \
    >"$work/w7a.out" 2>"$work/w7a.err"
  rc=$?
  [ $rc -eq 0 ] && grep -q '^ran 21 of 21 steps' "$work/w7a.out" ||
    { why "with TLS: exit code $rc"; show "$work/w7a.out" "$work/w7a.err"; }
  # Plain text against the TLS port: the handshake never succeeds, so the
  # session gives up after --wait-for-tasks.
  timeout 30 "${worker[@]}" --wait-for-tasks 2 >"$work/w7b.out" 2>"$work/w7b.err"
  rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
    why "without TLS: exit code $rc (want a failure within --wait-for-tasks, not a timeout)"
    show "$work/w7b.out" "$work/w7b.err"
  else
    grep -q 'unavailable' "$work/w7b.err" || { why "without TLS: no 'unavailable'"; show "$work/w7b.err"; }
  fi
  # A worker whose certificate the cluster's CA did not sign (it trusts
  # the ps, and itself) is refused by the ps...
  cat "$d/ca.pem" "$d/rogue_ca.pem" >"$d/both.pem"
  local -a rogue=(--tls-cert "$d/rogue.pem" --tls-key "$d/rogue.key" --tls-ca "$d/both.pem")
  timeout 30 "${worker[@]}" --wait-for-tasks 2 "${rogue[@]}" >"$work/w7c.out" 2>"$work/w7c.err"
  rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
    why "with a certificate of another CA: exit code $rc"
    show "$work/w7c.out" "$work/w7c.err"
  else
    grep -qF "task /job:ps/replica:0/task:0 at ${ps_addr[0]} did not answer" "$work/w7c.err" ||
      { why "with a certificate of another CA: the error does not name the ps"; show "$work/w7c.err"; }
  fi
  # ...and accepted by a ps that trusts that CA too.
  kill_tree "$serve_pid"
  { wait "$serve_pid"; } 2>/dev/null
  serve ps7b "$spec" --tls-cert "$d/ps.pem" --tls-key "$d/ps.key" --tls-ca "$d/both.pem" || return 1
  timeout 60 "${worker[@]}" "${rogue[@]}" >"$work/w7d.out" 2>"$work/w7d.err"
  rc=$?
  [ $rc -eq 0 ] && grep -q '^ran 21 of 21 steps' "$work/w7d.out" ||
    { why "the other CA's certificate, trusted by the ps: exit code $rc"; show "$work/w7d.out" "$work/w7d.err"; }
  return 0
}

# 8. Malformed and oversized messages: refused, and the ps goes on serving.
case_hostile_messages() {
  local spec=$work/c8.json prog=$samples/distributed_linear.sluice
  cluster_file "$spec" 1 1
  python3 -c 'import secrets; print(secrets.token_hex(16))' >"$work/token8"
  serve ps8 "$spec" --cluster-token "$work/token8" || return 1
  local ps
  ps=$(inner "$serve_pid")
  timeout 90 python3 "$fixtures/hostile_peer.py" "${ps_addr[0]}" "$(cat "$work/token8")" \
    >"$work/h.out" 2>"$work/h.err" || { why "hostile_peer.py failed"; show "$work/h.out" "$work/h.err"; }
  local name want
  # gRPC's codes: 3 invalid_argument, 16 unauthenticated.
  while IFS='=' read -r name want; do
    grep -qxF "$name status $want" "$work/h.out" ||
      why "'$name': want status $want, got '$(grep -F "$name" "$work/h.out")'"
  done <<'EOF'
no token=16
truncated varint=3
field past the end=3
group wire type=3
bad dtype=3
negative dim=3
dims overflow=3
2^31 strings declared=3
8 GiB of f32 declared, 4 bytes sent=3
data length mismatch=3
recv garbage=3
register garbage graph=3
EOF
  grep -Eq '^message over the limit status [1-9]' "$work/h.out" ||
    why "the message over the size limit was not refused: '$(grep -F 'over the limit' "$work/h.out")'"
  kill -0 "$ps" 2>/dev/null || why "the ps died"
  grep -Eiq 'terminate|abort|segmentation|sanitizer' "$work/ps8.err" && why "the ps reported a crash"
  local rc
  timeout 60 "$sluice" run "$prog" --cluster "$spec" --job worker --task 0 --set steps=20 \
    --cluster-token "$work/token8" >"$work/w8.out" 2>"$work/w8.err"
  rc=$?
  [ $rc -eq 0 ] && grep -q '^ran 21 of 21 steps' "$work/w8.out" ||
    { why "a worker run after the attacks: exit code $rc"; show "$work/w8.out" "$work/w8.err"; }
  kill -0 "$ps" 2>/dev/null || why "the ps died"
  [ -s "$work/why" ] && show "$work/h.out" "$work/ps8.out" "$work/ps8.err"
  return 0
}

start=$(now_ms)
run_case "launch: async distributed_linear over 2 ps, 2 workers matches one process" case_launch_linear
run_case "launch: sync_replicas makes one update per step (2 workers; 3 with aggregate 2)" case_sync_replicas
run_case "a queue on the ps shared by name: one worker fills, two drain 0..99" case_shared_queue
run_case "SIGKILL of a non-chief worker under --keep-going: the chief finishes and saves" case_kill_worker
run_case "SIGKILL of the ps: the worker fails naming it, then resumes from the checkpoint" case_kill_ps
run_case "--cluster-token: calls without the token are refused" case_token
run_case "mutual TLS: certificates of the cluster's CA only" case_tls
run_case "malformed and oversized messages: refused, the ps still serves" case_hostile_messages
echo "cluster_cli: $(($(now_ms) - start)) ms; $pass passed, $fail failed"
[ $fail -eq 0 ]
