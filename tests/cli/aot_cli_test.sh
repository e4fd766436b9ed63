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
# Matmul: a loop nest in the object (plain and transposed operands), its
# product checked by a C program against the sums written out.
cat >"$work/mm.sluice" <<'EOF2'
a = placeholder(f32, shape: [2, 3])
w = placeholder(f32, shape: [3, 4])
wt = placeholder(f32, shape: [4, 3])
p = relu(a @ w - 1.0)
q = matmul(a, wt, transpose_b: true)
EOF2
cat >"$work/mm.c" <<'EOF2'
#include <math.h>
#include <stdio.h>
#include "mm.h"
int main(void) {
  float a[6], w[12], wt[12], p[8], q[8];
  for (int i = 0; i < 6; ++i) a[i] = 0.5f * (float)i - 1.0f;
  for (int i = 0; i < 12; ++i) w[i] = (float)(i % 5) - 2.0f;
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 4; ++j) wt[j * 3 + k] = w[k * 4 + j];
  if (mm_run(a, w, wt, p, q) != 0) return 1;
  int bad = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      float s = 0;
      for (int k = 0; k < 3; ++k) s += a[i * 3 + k] * w[k * 4 + j];
      if (fabsf(p[i * 4 + j] - fmaxf(s - 1.0f, 0.0f)) > 1e-6f || fabsf(q[i * 4 + j] - s) > 1e-6f) {
        printf("[%d][%d]: p %g q %g, expected sum %g\n", i, j, p[i * 4 + j], q[i * 4 + j], s);
        bad = 1;
      }
    }
  return bad;
}
EOF2
expect_rc 0 "matmul ahead of time" "$sluice" compile "$work/mm.sluice" --emit obj -o "$work/mm.o" \
  --fetch p --fetch q
if "$cc" -O2 -I"$work" "$work/mm.c" "$work/mm.o" -lm -o "$work/mm" 2>"$work/cc.log"; then
  expect_rc 0 "the matmul program's checks" "$work/mm"
else
  bad "cc mm: $(cat "$work/cc.log")"
fi
printf 'a = placeholder(i8, shape: [2, 3])\nw = placeholder(i8, shape: [3, 4])\np = a @ w\n' >"$work/mm8.sluice"
expect_rc 1 "i8 matmul has no generated code" "$sluice" compile "$work/mm8.sluice" --emit obj \
  -o "$work/mm8.o" --fetch p &&
  { grep -q "mm8.sluice:3:5: error: invalid_argument: node 'matmul' (op matmul) cannot be compiled ahead of time: matmul of i8" "$work/err" ||
    bad "i8 matmul: $(cat "$work/err")"; }
[ -e "$work/mm8.o" ] && bad "a failed compile left an object"
printf 'a = placeholder(f32, shape: [none, 3])\ny = relu(a) * 2.0\n' >"$work/dyn.sluice"
expect_rc 1 "an unknown dim" "$sluice" compile "$work/dyn.sluice" --emit obj -o "$work/dyn.o" --fetch y &&
  { grep -q "is not fixed" "$work/err" || bad "unknown dim: $(cat "$work/err")"; }

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
