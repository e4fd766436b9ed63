#!/usr/bin/env bash
# tests/cli/samples_cli_test.sh: every sample runs (in a copy of samples/,
# as the README says to run them), and prints the same under the JIT and
# the interpreter: a differential check on whole programs. The seed
# pipeline shuffles without a seed on five threads, so only its exit code
# is compared. Usage: samples_cli_test.sh SLUICE REPO_ROOT
source "$(dirname "$0")/cli_lib.sh"
limit=120
cp -r "$samples" "$work/samples"
cd "$work/samples" || exit 2
export SLUICE_JIT_CACHE_DIR=$work/jit-cache
for f in *.sluice; do
  expect_rc 0 "$f (jit)" "$sluice" run "$f" && cp "$work/out" "$work/$f.jit"
  expect_rc 0 "$f (interp)" "$sluice" run --backend interp "$f" && cp "$work/out" "$work/$f.interp"
  [ "$f" = seed_pipeline.sluice ] && continue
  if [ -f "$work/$f.jit" ] && [ -f "$work/$f.interp" ]; then
    cmp -s "$work/$f.jit" "$work/$f.interp" ||
      bad "$f: the JIT and the interpreter print differently: $(diff "$work/$f.jit" "$work/$f.interp" | head -5)"
  fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
