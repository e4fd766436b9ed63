#!/usr/bin/env bash
# tests/cli/jit_cli_test.sh: fusion and the JIT from the command line:
# compile --emit fused / llvm, run --backend jit against interp over the
# samples, and the disk cache across real processes (the second compiles
# nothing; a corrupt entry is ignored and rebuilt; a changed cluster
# compiles again).
#
# Usage: jit_cli_test.sh SLUICE REPO_ROOT.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/cli_lib.sh"
limit=120
export SLUICE_JIT_CACHE_DIR=$work/cache SLUICE_JIT_LOG=1

cat >"$work/f.sluice" <<'SL'
x = variable([[1.0, -2.0, 3.0], [4.0, -5.0, 6.0]], name: "x")
b = variable([0.5, 0.25, -10.0], name: "b")
y = relu(x * 2.0 + b, name: "y")
z = add(cast(y > 1.0, i32), 1, name: "z")
session {
    run(global_variables_initializer())
    print(run([y, z]))
}
SL

# --- compile --emit fused / llvm ---------------------------------------------
if expect_rc 0 "compile --emit fused" "$sluice" compile "$work/f.sluice" --emit fused; then
  grep -q '^# 1 cluster$' "$work/out" || bad "emit fused: no cluster count: $(head -3 "$work/out")"
  grep -q '^#   nodes: multiply (multiply) f32\[2, 3\], add (add) f32\[2, 3\], y (relu)' "$work/out" ||
    bad "emit fused: nodes line: $(grep nodes "$work/out")"
  grep -q '^#   outputs: %z:0 i32\[2, 3\]' "$work/out" || bad "emit fused: outputs line"
  # The rest is the fused graph as .sir: it reads back.
  cp "$work/out" "$work/fused.sir"
  expect_rc 0 "fused .sir reads back" "$sluice" compile "$work/fused.sir" &&
    grep -q '^func "fused_z" {' "$work/out" || bad "fused .sir: body missing"
fi
if expect_rc 0 "compile --emit llvm" "$sluice" compile "$work/f.sluice" --emit llvm; then
  grep -q '^define void @sluice_fused_[0-9a-f]*_nest0(ptr' "$work/out" || bad "emit llvm: no kernel"
  grep -q '<[0-9]* x float>' "$work/out" || bad "emit llvm: the loop is not vectorized"
fi
printf 'x = placeholder(f32, shape: [none, 3])\ny = relu(x * 2.0 - 1.0)\n' >"$work/dyn.sluice"
if expect_rc 0 "compile --emit llvm, dims known at run time" "$sluice" compile "$work/dyn.sluice" --emit llvm; then
  grep -q '^; compiled when it runs, once per set of input shapes (here: \[?, 3\]' "$work/out" ||
    bad "emit llvm, run-time dims: $(cat "$work/out")"
fi
expect_rc 0 "compile --emit llvm without clusters" "$sluice" compile "$samples/hello.sluice" --emit llvm

# --- hostile fused .sir: errors, never crashes --------------------------------
if [ -f "$work/fused.sir" ]; then
  sed 's/f = "fused_z"/f = "nope"/' "$work/fused.sir" >"$work/bad_ref.sir"
  expect_rc 1 "fused node naming no function" "$sluice" compile "$work/bad_ref.sir" &&
    { grep -q "names function 'nope', which the graph does not define" "$work/err" || bad "bad_ref: $(cat "$work/err")"; }
  sed 's/output_shapes = shapes\[\[2, 3\]\]/output_shapes = shapes[]/' "$work/fused.sir" >"$work/bad_shapes.sir"
  expect_rc 1 "fused node without output_shapes" "$sluice" compile "$work/bad_shapes.sir" &&
    { grep -q "output_shapes has 0 shapes for 1 outputs" "$work/err" || bad "bad_shapes: $(cat "$work/err")"; }
  sed 's/Tout = types\[i32\]\(.*\) : (i32 \[2, 3\])/Tout = types[f32]\1 : (f32 [2, 3])/' "$work/fused.sir" >"$work/bad_sig.sir"
  expect_rc 1 "fused node against its body" "$sluice" compile "$work/bad_sig.sir" &&
    { grep -q "fused output 0 is f32\[2, 3\], body 'fused_z' gives i32\[2, 3\]" "$work/err" || bad "bad_sig: $(cat "$work/err")"; }
  head -c 2000 "$work/fused.sir" >"$work/cut.sir"
  expect_rc 1 "truncated fused .sir" "$sluice" compile "$work/cut.sir"
fi

# --- the disk cache across processes -----------------------------------------
expect_rc 0 "jit run 1" "$sluice" run --backend jit "$work/f.sluice"
grep -q 'sluice-jit: compiled fused_z' "$work/err" || bad "run 1 did not compile: $(cat "$work/err")"
cp "$work/out" "$work/jit_out"
expect_rc 0 "jit run 2 (the default backend)" "$sluice" run "$work/f.sluice"
grep -q 'sluice-jit: compiled' "$work/err" && bad "run 2 compiled again: $(cat "$work/err")"
grep -q 'sluice-jit: loaded fused_z from' "$work/err" || bad "run 2 did not load: $(cat "$work/err")"
cmp -s "$work/out" "$work/jit_out" || bad "run 2 output differs"
expect_rc 0 "interp run" "$sluice" run --backend interp "$work/f.sluice"
cmp -s "$work/out" "$work/jit_out" || bad "interp and jit differ: $(cat "$work/out") vs $(cat "$work/jit_out")"
grep -q 'sluice-jit' "$work/err" && bad "interp used the jit"
for damage in truncate garbage empty; do
  f=$(ls "$work"/cache/*.o | head -1)
  case $damage in
  truncate) truncate -s 60 "$f" ;;
  garbage) head -c 5000 /dev/urandom >"$f" ;;
  empty) : >"$f" ;;
  esac
  expect_rc 0 "jit run with a $damage entry" "$sluice" run --backend jit "$work/f.sluice"
  grep -q 'ignored cache entry' "$work/err" || bad "$damage entry not reported: $(cat "$work/err")"
  grep -q 'compiled fused_z' "$work/err" || bad "$damage entry not rebuilt"
  cmp -s "$work/out" "$work/jit_out" || bad "$damage entry: output differs"
  expect_rc 0 "jit run after the $damage rebuild" "$sluice" run --backend jit "$work/f.sluice"
  grep -q 'compiled' "$work/err" && bad "after $damage: compiled again"
done
# A changed cluster (another shape) compiles, the first still loads.
sed 's/x \* 2.0/x * 3.0 - 1.0/' "$work/f.sluice" >"$work/g.sluice"
expect_rc 0 "changed cluster" "$sluice" run --backend jit "$work/g.sluice"
grep -q 'compiled fused_z' "$work/err" || bad "changed cluster did not compile: $(cat "$work/err")"
expect_rc 2 "bad --backend" "$sluice" run --backend gpu "$work/f.sluice"

# --- interp and jit agree over the samples ---------------------------------
for name in hello fusion linear_regression iris counter; do
  s=$samples/$name.sluice
  [ -f "$s" ] || continue
  expect_rc 0 "$name interp" "$sluice" run -C "$samples" --backend interp "$s" || continue
  cp "$work/out" "$work/interp_out"
  expect_rc 0 "$name jit" "$sluice" run -C "$samples" --backend jit "$s" || continue
  grep -q 'interpreting' "$work/err" && bad "$name: a cluster fell back: $(grep interpreting "$work/err")"
  cmp -s "$work/out" "$work/interp_out" || bad "$name: jit output differs: $(diff "$work/interp_out" "$work/out" | head -5)"
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
