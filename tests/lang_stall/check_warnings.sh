#!/usr/bin/env bash
# tests/lang_stall/check_warnings.sh SLUICE DIR: the static pipeline check
# warns (run and compile) and fails under --Werror.
set -u
sluice=$1 dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$dir/dequeued_never_filled.sluice.in" "$tmp/p.sluice"
fail=0
check() { if ! grep -q "$2" "$tmp/$1"; then echo "FAIL: $1 lacks '$2'"; cat "$tmp/$1"; fail=1; fi; }
"$sluice" run "$tmp/p.sluice" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || { echo "FAIL: run exited $rc"; fail=1; }
check err "p.sluice:2:5: warning: queue 'never_filled' is dequeued by"
check err "but nothing enqueues to it"
check out "^0$"
"$sluice" run --Werror "$tmp/p.sluice" >"$tmp/out2" 2>"$tmp/err2"; rc=$?
[ $rc -eq 1 ] || { echo "FAIL: run --Werror exited $rc"; fail=1; }
check err2 "p.sluice:2:5: error: failed_precondition: node 'never_filled_Dequeue': queue 'never_filled' is dequeued"
"$sluice" compile "$tmp/p.sluice" --emit ir -o "$tmp/p.sir" 2>"$tmp/err3"; rc=$?
[ $rc -eq 0 ] || { echo "FAIL: compile exited $rc"; fail=1; }
check err3 "warning: queue 'never_filled' is dequeued"
"$sluice" compile --Werror "$tmp/p.sluice" --emit ir -o "$tmp/p2.sir" 2>"$tmp/err4"; rc=$?
[ $rc -eq 1 ] || { echo "FAIL: compile --Werror exited $rc"; fail=1; }
# An enqueue built inside the session block before the first run counts:
# the check runs at the first run, not when the block opens.
cat >"$tmp/feeder.sluice" <<'SL'
fq = fifo_queue(capacity: 4, dtypes: [string], shapes: [[]])
reader = text_line_reader()
key, value = reader.read(fq)
session {
    run(fq.enqueue("data.txt"))
    run(fq.close())
    print(run(fq.size()))
}
SL
"$sluice" run --Werror "$tmp/feeder.sluice" >"$tmp/out5" 2>"$tmp/err5"; rc=$?
[ $rc -eq 0 ] || { echo "FAIL: an enqueue built in the session block still warned (rc $rc)"; cat "$tmp/err5"; fail=1; }
[ $fail -eq 0 ] && echo "3 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
