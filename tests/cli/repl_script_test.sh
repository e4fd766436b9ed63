#!/usr/bin/env bash
# tests/cli/repl_script_test.sh: `sluice repl` with standard input not a
# terminal: statements read line by line (multi-line by bracket balance),
# no prompts, values printed, exit status 1 when a statement failed; and
# `sluice repl FILE` loading the file first.
#
# Usage: repl_script_test.sh SLUICE REPO_ROOT.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/cli_lib.sh"

# expect_out LABEL WANT: stdout is exactly WANT.
expect_out() {
  if [ "$(cat "$work/out")" == "$2" ]; then ok; else
    bad "$1: stdout was:"; cat "$work/out"; echo "--- expected:"; echo "$2"
  fi
}

cat >"$work/ok.in" <<'EOF'
x = constant([1.0, 2.0], name: "xs")
1 + 2
fn add_one(t) {
  return t + 1
}
run(add_one(x))
v = variable(0, name: "counter")
run(v.initializer)
for i in range(3) { run(assign_add(v, 2)) }
:run v
:type x
none
EOF
expect_rc 0 "script" "$sluice" repl <"$work/ok.in" &&
  expect_out "script" "3
[2. 3.]
6
tensor f32 [2] (symbolic)"
[ -s "$work/err" ] && bad "script: stderr not empty: $(cat "$work/err")" || ok

cat >"$work/bad.in" <<'EOF'
a = constant(1.0, name: "a")
b = a + missing
p = placeholder(f32)
run(p)
constant(2.0, name: "b").name
print("still here")
EOF
if expect_rc 1 "script with errors" "$sluice" repl <"$work/bad.in"; then
  expect_out "script with errors" '"b:0"
still here'
  grep -qF "<repl>:2:9:" "$work/err" || bad "error location: $(cat "$work/err")"
  grep -qF "missing" "$work/err" || bad "unbound name error: $(cat "$work/err")"
  grep -qF "invalid_argument" "$work/err" || bad "unfed placeholder error: $(cat "$work/err")"
fi

cat >"$work/lib.sluice" <<'EOF'
w = constant(3.0, name: "w")
fn square(t) { return t * t }
EOF
echo 'run(square(w))' >"$work/use.in"
expect_rc 0 "repl FILE" "$sluice" repl "$work/lib.sluice" <"$work/use.in" &&
  expect_out "repl FILE" "9."

printf ':load %s\n:quit\nprint("not reached")\n' "$work/lib.sluice" >"$work/load.in"
expect_rc 0 ":load and :quit" "$sluice" repl <"$work/load.in" && expect_out ":load and :quit" ""

printf 'fn unfinished(a) {\n  return a\n' >"$work/open.in"
expect_rc 1 "unbalanced input at end" "$sluice" repl <"$work/open.in"

expect_rc 0 "repl --help" "$sluice" repl --help &&
  { grep -qF "exit status is 1" "$work/out" && ok || bad "repl --help: $(cat "$work/out")"; }

# --backend: fused clusters compiled (SLUICE_JIT_LOG says so) or interpreted.
printf 'x = placeholder(f32, shape: [3])\nrun(relu(x * 2.0 - 1.0), feed: {x: [1.0, -2.0, 3.0]})\n' >"$work/fused.in"
export SLUICE_JIT_LOG=1 SLUICE_JIT_CACHE_DIR=off
expect_rc 0 "repl --backend jit" "$sluice" repl --backend jit <"$work/fused.in" &&
  { grep -q "sluice-jit: compiled" "$work/err" || bad "repl --backend jit compiled nothing: $(cat "$work/err")"; }
expect_out "repl --backend jit output" "[1. 0. 5.]"
expect_rc 0 "repl --backend interp" "$sluice" repl --backend interp <"$work/fused.in" &&
  { grep -q "sluice-jit:" "$work/err" && bad "repl --backend interp used the JIT: $(cat "$work/err")"; }
expect_out "repl --backend interp output" "[1. 0. 5.]"
unset SLUICE_JIT_LOG SLUICE_JIT_CACHE_DIR
expect_rc 2 "repl --backend bogus" "$sluice" repl --backend bogus </dev/null

echo "repl script: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
