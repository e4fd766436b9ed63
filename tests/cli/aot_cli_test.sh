#!/usr/bin/env bash
# tests/cli/aot_cli_test.sh: `sluice compile --emit obj` (issue #8, ahead of
# time): the sample's object links into a C program that checks its
# results; the header; the flags; graphs it cannot compile are located
# errors. Usage: aot_cli_test.sh SLUICE REPO_ROOT
source "$(dirname "$0")/cli_lib.sh"

cc=$(command -v cc || command -v gcc || true)
[ -n "$cc" ] || { echo "no C compiler: skipped"; exit 77; }

expect_rc 0 "emit obj" "$sluice" compile "$samples/aot/model.sluice" --emit obj -o "$work/model.o" \
  --fetch y --fetch energy
[ -s "$work/model.o" ] && [ -s "$work/model.h" ] || bad "emit obj: no model.o/model.h"
grep -q "int model_run(const float \*x, const float \*b, float \*y, float \*energy);" "$work/model.h" ||
  bad "header declaration: $(cat "$work/model.h")"
grep -q "#define MODEL_RUN_ENERGY_ELEMENTS 4" "$work/model.h" || bad "header macros"
grep -q "output energy: f32 \[4\]" "$work/model.h" || bad "header shapes"
if "$cc" -O2 -I"$work" "$samples/aot/main.c" "$work/model.o" -lm -o "$work/demo" 2>"$work/cc.log"; then
  expect_rc 0 "the C program's checks" "$work/demo"
else
  bad "cc: $(cat "$work/cc.log")"
fi

# --function and --header; a fetch by node name.
mkdir -p "$work/inc"
expect_rc 0 "emit obj --function --header" "$sluice" compile "$samples/aot/model.sluice" --emit obj \
  -o "$work/m2.o" --header "$work/inc/../m2.h" --function score --fetch energy
grep -q "int score(const float \*x, const float \*b, float \*energy);" "$work/m2.h" ||
  bad "--function: $(cat "$work/m2.h")"
expect_rc 0 "--fetch NODE:0" "$sluice" compile "$samples/aot/model.sluice" --emit obj \
  -o "$work/m3.o" --fetch relu:0

# What it refuses.
expect_rc 2 "emit obj without --fetch" "$sluice" compile "$samples/aot/model.sluice" --emit obj -o "$work/x.o"
expect_rc 2 "emit obj without -o" "$sluice" compile "$samples/aot/model.sluice" --emit obj --fetch y
expect_rc 1 "an unknown fetch" "$sluice" compile "$samples/aot/model.sluice" --emit obj -o "$work/x.o" \
  --fetch nope && { grep -q "fetch nope: no top-level variable or node output of that name" "$work/err" ||
  bad "unknown fetch: $(cat "$work/err")"; }
printf 'a = placeholder(f32, shape: [2, 3])\nw = placeholder(f32, shape: [3, 4])\np = a @ w\n' >"$work/mm.sluice"
expect_rc 1 "matmul has no generated code yet" "$sluice" compile "$work/mm.sluice" --emit obj \
  -o "$work/mm.o" --fetch p &&
  { grep -q "mm.sluice:3:5: error: invalid_argument: node 'matmul' (op matmul) cannot be compiled ahead of time" "$work/err" ||
    bad "matmul: $(cat "$work/err")"; }
[ -e "$work/mm.o" ] && bad "a failed compile left an object"
printf 'a = placeholder(f32, shape: [none, 3])\ny = relu(a) * 2.0\n' >"$work/dyn.sluice"
expect_rc 1 "an unknown dim" "$sluice" compile "$work/dyn.sluice" --emit obj -o "$work/dyn.o" --fetch y &&
  { grep -q "is not fixed" "$work/err" || bad "unknown dim: $(cat "$work/err")"; }

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
