#!/usr/bin/env bash
# tests/cli/cli_test.sh: the `sluice` binary's contract as a tool: exit codes
# (0 ok, 1 bad program, 2 usage), never a crash or hang on hostile input, and
# the compile/test subcommands' output forms.
#
# Usage: cli_test.sh SLUICE REPO_ROOT. Needs python3 for the generated inputs.
set -u
sluice=${1:?usage: cli_test.sh SLUICE REPO_ROOT}
root=${2:?usage: cli_test.sh SLUICE REPO_ROOT}
case $sluice in /*) ;; *) sluice=$PWD/$sluice ;; esac
case $root in /*) ;; *) root=$PWD/$root ;; esac
samples=$root/samples
limit=${SLUICE_CLI_TIMEOUT:-20} # seconds per hostile input

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# expect_rc WANT LABEL CMD...: WANT is a code or "0|1" style alternatives.
expect_rc() {
  local want=$1 label=$2
  shift 2
  timeout "$limit" "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ $rc -eq 124 ]; then
    bad "$label: timed out after ${limit}s"
  elif [ $rc -ge 128 ]; then
    bad "$label: killed by signal $((rc - 128))"
  elif ! [[ "|$want|" == *"|$rc|"* ]]; then
    bad "$label: exit code $rc, expected $want; stderr: $(head -c 300 "$work/err")"
  else
    ok
    return 0
  fi
  return 1
}

# --- Usage and exit codes ------------------------------------------------
expect_rc 0 "--version" "$sluice" --version &&
  { grep -q . "$work/out" || bad "--version printed nothing"; }
expect_rc 0 "--help" "$sluice" --help
expect_rc 2 "no subcommand" "$sluice"
expect_rc 2 "unknown subcommand" "$sluice" frobnicate
expect_rc 2 "unknown flag" "$sluice" --frobnicate
expect_rc 2 "unknown run flag" "$sluice" run --frobnicate "$samples/hello.sluice"
expect_rc 2 "bad --emit" "$sluice" compile "$samples/hello.sluice" --emit asm
expect_rc 2 "run without a file" "$sluice" run
if expect_rc 1 "run missing file" "$sluice" run "$work/no_such_file.sluice"; then
  grep -q 'no_such_file.sluice' "$work/err" ||
    bad "run missing file: stderr does not name the file: $(cat "$work/err")"
fi
expect_rc 0 "run hello" "$sluice" run "$samples/hello.sluice"

# --- Hostile inputs: exit 1 (or 0 where the input may be valid) ----------
gen=$work/gen
mkdir -p "$gen"
python3 - "$gen" "$samples" <<'PY' || { bad "python3 could not generate the inputs"; }
import os, random, sys
gen, samples = sys.argv[1], sys.argv[2]
def put(name, data):
    with open(os.path.join(gen, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
# Prefixes of the samples: mostly cut mid-token or mid-block; some are valid.
for s in ("hello.sluice", "counter.sluice"):
    text = open(os.path.join(samples, s), "rb").read()
    for n in range(0, len(text), 7):
        put("maybe_trunc_%s_%04d.sluice" % (s[:-7], n), text[:n])
rng = random.Random(20240611)
for i in range(200):
    n = rng.randrange(1, 400)
    data = bytes(rng.randrange(256) for _ in range(n))
    if i % 4 == 0:
        data = data[: n // 2] + b"\0" + data[n // 2:]       # NUL
    if i % 4 == 1:
        data = b"x = \"" + data + b"\xff\xfe\xc3(\"\n"   # invalid UTF-8 in a string
    if i % 4 == 2:
        # Printable soup from the language's own characters.
        data = bytes(rng.choice(b"()[]{}:;,.+-*/@<>=!\"'#\\\n abcxyz019_") for _ in range(n))
    put("maybe_random_%03d.sluice" % i, data)
put("bad_unterminated_string.sluice", 'x = "never closed\ny = 1\n')
put("bad_unterminated_raw_string.sluice", 'x = r"never closed\n')
put("bad_nested_parens.sluice", "x = " + "(" * 100000 + "\n")
put("bad_nested_parens_closed.sluice", "x = " + "(" * 100000 + "1" + ")" * 100000 + "\n")
put("bad_nested_brackets.sluice", "x = " + "[" * 100000 + "\n")
put("bad_nested_braces.sluice", "if true {\n" * 100000)
put("bad_long_chain.sluice", "x = " + "+".join(["1"] * 100000) + "\n")
put("bad_unary_minus.sluice", "x = " + "-" * 100000 + "1\n")
put("bad_not_chain.sluice", "x = " + "not " * 100000 + "true\n")
put("bad_huge_int.sluice", "x = " + "9" * 5000 + "\n")
put("bad_huge_int_arg.sluice", "x = constant(" + "9" * 5000 + ")\n")
put("bad_huge_float.sluice", "x = 1e999999\n")
put("bad_huge_float_digits.sluice", "x = " + "9" * 5000 + ".5e99999\n")
put("bad_float_for_f32.sluice", "x = constant(1e39, dtype: f32)\n")
put("bad_unknown_op.sluice", "x = no_such_op(1, 2)\n")
put("bad_unknown_attr.sluice", "x = constant(1, no_such_attr: 2)\n")
put("bad_unknown_method.sluice", "x = constant(1)\ny = x.no_such_method()\n")
put("bad_unknown_dtype.sluice", "x = placeholder(f33)\n")
put("bad_only_nul.sluice", b"\0" * 64)
put("bad_invalid_utf8_ident.sluice", b"x\xff = 1\n")
put("bad_long_line.sluice", "x = " + "a" * 1000000 + " b\n")
PY
for f in "$gen"/*.sluice; do
  name=$(basename "$f")
  case $name in
    maybe_*) want="0|1" ;;
    *) want=1 ;;
  esac
  expect_rc "$want" "run $name" "$sluice" run "$f" || continue
  # A rejected file must say why, GCC style.
  if [ "$want" = 1 ] && ! grep -q ': error: ' "$work/err"; then
    bad "run $name: exit 1 without an 'error:' diagnostic"
  fi
done
# The same hostile inputs through `compile`, which must not crash either.
for f in "$gen"/bad_*.sluice; do
  expect_rc 1 "compile $(basename "$f")" "$sluice" compile "$f" --emit ir
done

# --- compile: text IR round trip, dot -----------------------------------
if expect_rc 0 "compile hello -o" "$sluice" compile "$samples/hello.sluice" --emit ir -o "$work/hello.sir"; then
  if expect_rc 0 "compile hello.sir" "$sluice" compile "$work/hello.sir" --emit ir; then
    cmp -s "$work/hello.sir" "$work/out" ||
      bad "compile round trip: re-emitting hello.sir changed it: $(diff "$work/hello.sir" "$work/out" | head -10)"
  fi
fi
if expect_rc 0 "compile --emit dot" "$sluice" compile "$samples/hello.sluice" --emit dot; then
  grep -q '^digraph' "$work/out" || bad "--emit dot: no 'digraph' in: $(head -c 200 "$work/out")"
fi
printf 'garbage %%x = \n' >"$work/broken.sir"
expect_rc 1 "compile broken .sir" "$sluice" compile "$work/broken.sir" --emit ir

# --- compile --emit placement, log_device_placement -------------------------
cat >"$work/placed.sluice" <<'SL'
with device("/job:ps/task:1") { v = variable(1.0, name: "v") }
with device("/cpu:1") { y = multiply(v, 2.0, name: "y") }
with device("/gpu:0") { g = add(y, 1.0, name: "g") }
SL
expect_rc 1 "placement without soft placement" "$sluice" compile "$work/placed.sluice" --emit placement --cpus 2
grep -q "Could not satisfy explicit device specification '/device:GPU:0'" "$work/err" ||
  bad "placement: missing-GPU error not reported: $(head -c 300 "$work/err")"
if expect_rc 0 "compile --emit placement" "$sluice" compile "$work/placed.sluice" --emit placement \
  --cpus 2 --allow-soft-placement; then
  grep -Eq '^v +variable +/job:ps/task:1 +/job:ps/replica:0/task:1/device:CPU:0$' "$work/out" ||
    bad "placement: v not on ps task 1: $(cat "$work/out")"
  grep -Eq '^y +multiply +/device:CPU:1 +/job:localhost/replica:0/task:0/device:CPU:1$' "$work/out" ||
    bad "placement: y not on CPU:1: $(cat "$work/out")"
  grep -q "note: soft placement: 'g'" "$work/err" || bad "placement: no soft placement note for g"
fi
cat >"$work/logged.sluice" <<'SL'
x = add(constant(1.0), 2.0, name: "sum")
session(config: config_proto(log_device_placement: true)) { print(run(x)) }
SL
if expect_rc 0 "log_device_placement" "$sluice" run "$work/logged.sluice"; then
  grep -q '^sum: (add): /job:localhost/replica:0/task:0/device:CPU:0$' "$work/err" ||
    bad "log_device_placement: no line for sum: $(head -c 300 "$work/err")"
fi

# --- compile --emit partitions, dot (by device), cost -------------------------
# x and the matmul on the worker, w on ps task 0; w also feeds worker CPU:1,
# and a ps op waits on the worker's loss: 3 transfers (2 tensors, 1 control).
cat >"$work/ps.sluice" <<'SL'
with device("/job:worker/task:0") { x = placeholder(f32, shape: [32, 784], name: "x") }
with device("/job:ps/task:0") { w = variable(zeros([784, 10]), name: "w") }
with device("/job:worker/task:0") {
    logits = matmul(x, w, name: "logits")
    loss = reduce_sum(logits, name: "loss")
}
with device("/job:worker/task:0/cpu:1") { n = negative(w, name: "n") }
with device("/job:ps/task:0") {
    with control_dependencies([loss]) { done = group(name: "done") }
}
SL
if expect_rc 2 "partitions without -o" "$sluice" compile "$work/ps.sluice" --emit partitions; then
  grep -q 'give the output directory with -o DIR' "$work/err" ||
    bad "partitions without -o: unclear message: $(head -c 300 "$work/err")"
fi
: >"$work/not_a_dir"
if expect_rc 1 "partitions into a file" "$sluice" compile "$work/ps.sluice" --emit partitions \
  --cpus 2 -o "$work/not_a_dir"; then
  grep -q "cannot create directory '$work/not_a_dir'" "$work/err" ||
    bad "partitions into a file: unclear message: $(head -c 300 "$work/err")"
fi
if expect_rc 0 "compile --emit partitions" "$sluice" compile "$work/ps.sluice" --emit partitions \
  --cpus 2 -o "$work/parts/nested"; then
  cp "$work/out" "$work/parts.index"
  [ "$(wc -l <"$work/parts.index")" -eq 3 ] ||
    bad "partitions: expected 3 index lines (ps CPU:0, worker CPU:0 and CPU:1): $(cat "$work/parts.index")"
  [ "$(find "$work/parts/nested" -type f | wc -l)" -eq 3 ] ||
    bad "partitions: expected 3 files: $(ls "$work/parts/nested")"
  [ -f "$work/parts/nested/job_ps_replica_0_task_0_device_CPU_0.sir" ] ||
    bad "partitions: no file named after the ps device: $(ls "$work/parts/nested")"
  total_sends=0 total_recvs=0
  while read -r file device nodes sends recvs rest <&3; do
    f=$work/parts/nested/$file
    if ! [[ $nodes =~ ^nodes=[0-9]+$ && $sends =~ ^sends=[0-9]+$ && $recvs =~ ^recvs=[0-9]+$ &&
      -z $rest && -f $f ]]; then
      bad "partitions: bad index line '$file $device $nodes $sends $recvs $rest'"
      continue
    fi
    [ "$(grep -c ' = send(' "$f")" = "${sends#sends=}" ] || bad "partitions: $file: send count is not ${sends#sends=}"
    [ "$(grep -c ' = recv(' "$f")" = "${recvs#recvs=}" ] || bad "partitions: $file: recv count is not ${recvs#recvs=}"
    [ "$(grep -vc '^#' "$f")" = "${nodes#nodes=}" ] || bad "partitions: $file: node count is not ${nodes#nodes=}"
    grep -v '^#' "$f" | grep -vqF "assigned \"$device\"" &&
      bad "partitions: $file holds a node not on $device"
    total_sends=$((total_sends + ${sends#sends=}))
    total_recvs=$((total_recvs + ${recvs#recvs=}))
    if expect_rc 0 "partition $file parses back" "$sluice" compile "$f" --emit ir; then
      cmp -s "$f" "$work/out" || bad "partition $file: re-emitting it changed it"
    fi
  done 3<"$work/parts.index"
  [ "$total_sends" -eq 3 ] && [ "$total_recvs" -eq 3 ] ||
    bad "partitions: expected 3 sends and 3 recvs, got $total_sends and $total_recvs"
fi
if expect_rc 0 "compile --emit dot (placed)" "$sluice" compile "$work/ps.sluice" --emit dot --cpus 2; then
  [ "$(grep -c '^  subgraph cluster_[0-9][0-9]* {$' "$work/out")" -eq 2 ] ||
    bad "dot: expected one box per task (ps, worker): $(grep subgraph "$work/out")"
  grep -q '^    label="/job:ps/replica:0/task:0";$' "$work/out" || bad "dot: no box for the ps task"
  grep -q '^    label="/job:worker/replica:0/task:0";$' "$work/out" || bad "dot: no box for the worker task"
  [ "$(grep -c 'style=dashed' "$work/out")" -eq 2 ] ||
    bad "dot: expected 2 dashed edges (w to each worker device): $(grep -- '->' "$work/out")"
  [ "$(grep -c 'style="dotted,bold"' "$work/out")" -eq 1 ] ||
    bad "dot: expected 1 cross-device control edge: $(grep -- '->' "$work/out")"
  [ "$(grep -c '^    legend_[0-9][0-9]* \[label="/job:' "$work/out")" -eq 3 ] ||
    bad "dot: expected a legend entry per device: $(grep legend "$work/out")"
  if command -v dot >/dev/null 2>&1; then
    dot -Tsvg "$work/out" -o /dev/null 2>"$work/dot_err" || bad "dot: graphviz rejects it: $(cat "$work/dot_err")"
  fi
fi
if expect_rc 0 "compile --emit cost" "$sluice" compile "$work/ps.sluice" --emit cost --cpus 2; then
  grep -Eq '^  /job:ps/replica:0/task:0/device:CPU:0 +/job:worker/replica:0/task:0/device:CPU:1 +1 +31360$' "$work/out" ||
    bad "cost: w (784*10*4 bytes) to worker CPU:1 missing: $(cat "$work/out")"
  grep -Eq '^  /job:worker/replica:0/task:0/device:CPU:0 +/job:ps/replica:0/task:0/device:CPU:0 +1 +0$' "$work/out" ||
    bad "cost: the control value to the ps is missing: $(cat "$work/out")"
  grep -Eq '^  total +3 +62720$' "$work/out" || bad "cost: transfer total is not 3 values, 62720 bytes"
  grep -Eq '^  /job:ps/replica:0/task:0 +1 +31360 +100.0%$' "$work/out" || bad "cost: ps parameters missing"
  # 2*32*784*10 for the matmul + 32*10 for the reduction; 784*10 for n.
  grep -Eq '^  /job:worker/replica:0/task:0/device:CPU:0 +502080$' "$work/out" || bad "cost: worker FLOPs"
  grep -Eq '^  /job:worker/replica:0/task:0/device:CPU:1 +7840$' "$work/out" || bad "cost: worker CPU:1 FLOPs"
  [ -s "$work/err" ] && bad "cost: unexpected warnings: $(cat "$work/err")"
fi
# Batch 1 and a second ps task holding almost nothing: both warnings.
cat >"$work/costly.sluice" <<'SL'
with device("/job:worker/task:0") { x = placeholder(f32, shape: [1, 784], name: "x") }
with device("/job:ps/task:0") { w = variable(zeros([784, 10]), name: "w") }
with device("/job:ps/task:1") { b = variable(zeros([10]), name: "b") }
with device("/job:worker/task:0") {
    logits = matmul(x, w, name: "logits") + b
}
SL
if expect_rc 0 "cost warnings" "$sluice" compile "$work/costly.sluice" --emit cost; then
  grep -q "costly.sluice:2:[0-9]*: warning: ps task '/job:ps/replica:0/task:0' holds 31360 of the 31400 parameter bytes" "$work/err" ||
    bad "cost: no ps imbalance warning at w: $(cat "$work/err")"
  grep -q 'hint: more ps tasks, greedy_load_balancing_strategy, or partition the variable' "$work/err" ||
    bad "cost: no ps imbalance hint"
  grep -q "costly.sluice:5:[0-9]*: warning: 31400 bytes cross devices per step but the step computes only 15690 FLOPs" "$work/err" ||
    bad "cost: no transfer-bound warning at the matmul: $(cat "$work/err")"
  grep -q 'hint: colocate' "$work/err" || bad "cost: no colocation hint"
fi
if expect_rc 1 "cost warnings with --Werror" "$sluice" compile "$work/costly.sluice" --emit cost --Werror; then
  [ "$(grep -c ': error: ' "$work/err")" -eq 2 ] || bad "cost --Werror: expected 2 errors: $(cat "$work/err")"
  [ -s "$work/out" ] && bad "cost --Werror: printed a report although it failed"
fi
cat >"$work/batch.sluice" <<'SL'
x = placeholder(f32, shape: [none, 784], name: "x")
with device("/job:ps/task:0") { w = variable(zeros([784, 10]), name: "w") }
with device("/job:worker/task:0") { logits = matmul(x, w, name: "logits") }
SL
if expect_rc 0 "cost with an unknown batch" "$sluice" compile "$work/batch.sluice" --emit cost; then
  grep -Eq '^  total +2 +31360 \+ 3136\*\?$' "$work/out" || bad "cost: symbolic bytes: $(cat "$work/out")"
  grep -Eq '^  /job:worker/replica:0/task:0/device:CPU:0 +15680\*\?$' "$work/out" || bad "cost: symbolic FLOPs"
  grep -q '^notation: ? is an unknown dimension' "$work/out" || bad "cost: no notation line"
fi
expect_rc 1 "cost of an unplaceable graph" "$sluice" compile "$work/placed.sluice" --emit cost --cpus 2

# --- test: the summary line ------------------------------------------------
mkdir -p "$work/lang"
cat >"$work/lang/summary.sluice" <<'SL'
test "passes" {
    expect_eq(1 + 1, 2)
}
test "fails" {
    expect_eq(1 + 1, 3)
}
SL
expect_rc 1 "test with a failing test" "$sluice" test "$work/lang"
last=$(tail -n 1 "$work/out")
[[ $last =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] || bad "test: last line is '$last'"
[ "$last" = "1 passed, 1 failed" ] || bad "test: expected '1 passed, 1 failed', got '$last'"
expect_rc 0 "test samples" "$sluice" test "$samples"
last=$(tail -n 1 "$work/out")
[[ $last =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] || bad "test samples: last line is '$last'"
expect_rc 1 "test missing path" "$sluice" test "$work/no_such_dir"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
