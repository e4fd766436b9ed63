#!/usr/bin/env bash
# tests/cli/devices_cli_test.sh: the device side of the CLI: compile --emit
# placement/partitions/dot/cost, --cluster/--task/TF_CONFIG for between-graph
# replication, log_device_placement, and run --one-device against a placed
# run over the samples (the multi-device differential test).
#
# Usage: devices_cli_test.sh SLUICE REPO_ROOT.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/cli_lib.sh"

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

# --- /gpu:0 without a GPU: soft placement onto the CPU says why --------------
# SLUICE_CUDA_DRIVER names a library that is not there, so the answer is the
# same on a machine with a GPU.
cat >"$work/gpu_soft.sluice" <<'SL'
with device("/gpu:0") { g = add(constant(1.0), 1.0, name: "g") }
session(config: config_proto(allow_soft_placement: true, log_device_placement: true)) { print(run(g)) }
SL
if SLUICE_CUDA_DRIVER=/nonexistent/libcuda.so.1 expect_rc 0 "gpu soft placement" "$sluice" run "$work/gpu_soft.sluice"; then
  grep -qx '2.' "$work/out" || bad "gpu soft placement: wrong result: $(cat "$work/out")"
  grep -q "note: soft placement: 'g' .* requested '/device:GPU:0' .*; no GPU here: cannot open the CUDA driver (/nonexistent/libcuda.so.1: .*); placed on /job:localhost/replica:0/task:0/device:CPU:0" "$work/err" ||
    bad "gpu soft placement: no note saying why: $(head -c 600 "$work/err")"
  grep -q '^g: (add): /job:localhost/replica:0/task:0/device:CPU:0$' "$work/err" ||
    bad "gpu soft placement: g not logged on CPU:0: $(head -c 600 "$work/err")"
fi
cat >"$work/gpu_hard.sluice" <<'SL'
with device("/gpu:0") { g = add(constant(1.0), 1.0, name: "g") }
session { print(run(g)) }
SL
SLUICE_CUDA_DRIVER=/nonexistent/libcuda.so.1 expect_rc 1 "gpu without soft placement" "$sluice" run "$work/gpu_hard.sluice"
grep -q "Could not satisfy explicit device specification '/device:GPU:0' because no devices matching that specification are registered in this process; no GPU here: cannot open the CUDA driver" "$work/err" ||
  bad "gpu without soft placement: error does not say why: $(head -c 600 "$work/err")"

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


# --- between-graph replication: --cluster, --task, TF_CONFIG ---------------
cat >"$work/cluster.json" <<'JSON'
{"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]}
JSON
cat >"$work/between.sluice" <<'SL'
# Each worker builds its own copy of the model; the variables are shared
# on the ps tasks (TF's between-graph replication).
with device(replica_device_setter(cluster: task.cluster,
                                  worker_device: "/job:worker/task:" + str(task.index))) {
    w = variable(zeros([10]), name: "w")
    b = variable(zeros([10]), name: "b")
    y = add(w, b, name: "y")
}
print("task", task.type, task.index, "chief", task.is_chief)
SL
for i in 0 2; do
  if expect_rc 0 "between-graph compile worker:$i" "$sluice" compile "$work/between.sluice" \
    --cluster "$work/cluster.json" --task worker:$i --emit placement; then
    grep -Eq "^y +add +/job:worker/task:$i +/job:worker/replica:0/task:$i/device:CPU:0$" "$work/out" ||
      bad "between-graph: y not on worker $i: $(cat "$work/out")"
    grep -Eq '^w +variable +/job:ps/task:0 +/job:ps/replica:0/task:0/device:CPU:0$' "$work/out" ||
      bad "between-graph: w not on ps 0 for worker $i"
    grep -Eq '^b +variable +/job:ps/task:1 +/job:ps/replica:0/task:1/device:CPU:0$' "$work/out" ||
      bad "between-graph: b not on ps 1 for worker $i"
    chief=$([ $i -eq 0 ] && echo true || echo false)
    # What the program prints while compiling goes to stderr, not into the output.
    grep -q "^task worker $i chief $chief$" "$work/err" || bad "between-graph: task line for worker $i"
    grep -q '^task' "$work/out" && bad "compile: a print went to stdout"
  fi
done
expect_rc 1 "--task outside the cluster" "$sluice" compile "$work/between.sluice" \
  --cluster "$work/cluster.json" --task worker:3 --emit placement &&
  { grep -q "3 is not a valid task_id for task_type worker" "$work/err" || bad "--task worker:3 message"; }
expect_rc 2 "--task without an index" "$sluice" compile "$work/between.sluice" --task worker
expect_rc 1 "--cluster without --task" "$sluice" compile "$work/between.sluice" --cluster "$work/cluster.json" &&
  { grep -q "needs --task" "$work/err" || bad "--cluster without --task message"; }
echo '{"ps": 3}' >"$work/bad_cluster.json"
expect_rc 1 "--cluster with a bad job" "$sluice" compile "$work/between.sluice" \
  --cluster "$work/bad_cluster.json" --task worker:0 &&
  { grep -q "job 'ps' must be a list of addresses" "$work/err" || bad "bad cluster message"; }
expect_rc 1 "--cluster missing file" "$sluice" run "$work/between.sluice" --cluster "$work/nope.json" --task worker:0
# A whole TF_CONFIG works as the --cluster file, and as the environment variable.
tf_config='{"cluster": {"chief": ["c:1"], "ps": ["p:1"], "worker": ["w0:1", "w1:1"]}, "task": {"type": "worker", "index": 1}}'
echo "$tf_config" >"$work/tf_config.json"
expect_rc 0 "--cluster TF_CONFIG file" "$sluice" run "$work/between.sluice" --cluster "$work/tf_config.json" &&
  { grep -q '^task worker 1 chief false$' "$work/out" || bad "TF_CONFIG file: $(cat "$work/out")"; }
expect_rc 0 "TF_CONFIG environment" env TF_CONFIG="$tf_config" "$sluice" run "$work/between.sluice" &&
  { grep -q '^task worker 1 chief false$' "$work/out" || bad "TF_CONFIG env: $(cat "$work/out")"; }
expect_rc 0 "--task overrides TF_CONFIG" env TF_CONFIG="$tf_config" "$sluice" run "$work/between.sluice" \
  --cluster "$work/tf_config.json" --task chief:0 &&
  { grep -q '^task chief 0 chief true$' "$work/out" || bad "--task over TF_CONFIG: $(cat "$work/out")"; }
expect_rc 1 "invalid TF_CONFIG environment" env TF_CONFIG='{"task": 3' "$sluice" run "$work/between.sluice" &&
  { grep -q "TF_CONFIG: TF_CONFIG is not valid JSON" "$work/err" || bad "bad TF_CONFIG message"; }
expect_rc 0 "default task" env -u TF_CONFIG "$sluice" run "$work/between.sluice" &&
  { grep -q '^task worker 0 chief true$' "$work/out" || bad "default task: $(cat "$work/out")"; }

# --- a Slurm step's environment gives the cluster and the task (TF's
# SlurmClusterResolver): 4 tasks on 2 nodes, ranks to ps then workers.
slurm_env=(env SLURM_STEP_NUM_TASKS=4 "SLURM_STEP_NODELIST=n[01-02]" "SLURM_STEP_TASKS_PER_NODE=2(x2)")
expect_rc 0 "task from Slurm" "${slurm_env[@]}" SLURM_PROCID=2 "$sluice" run "$work/between.sluice" \
  --cluster slurm:ps=1,worker=3 &&
  { grep -q '^task worker 1 chief false$' "$work/out" || bad "Slurm task: $(cat "$work/out")"; }
expect_rc 0 "Slurm placement" "${slurm_env[@]}" SLURM_PROCID=1 "$sluice" compile \
  "$samples/distributed_linear.sluice" --cluster slurm:ps=1,worker=3 --emit placement &&
  { grep -q '/job:ps/replica:0/task:0' "$work/out" || bad "Slurm placement: $(head -3 "$work/out")"; }
expect_rc 1 "Slurm job counts must match the step" "${slurm_env[@]}" SLURM_PROCID=0 "$sluice" run \
  "$work/between.sluice" --cluster slurm:ps=1,worker=2 &&
  { grep -q 'the jobs ask for 3 tasks but the Slurm step has 4' "$work/err" || bad "Slurm count message: $(cat "$work/err")"; }
expect_rc 1 "Slurm outside a job" env -u SLURM_PROCID "$sluice" run "$work/between.sluice" --cluster slurm &&
  { grep -q 'not in a Slurm job: SLURM_PROCID is not set' "$work/err" || bad "no Slurm message: $(cat "$work/err")"; }

# --- multi-device runs equal single-device runs, over the samples -----------
# Every sample runs as written (placed over its devices) and with
# --one-device; the printed results must be the same, except lines that
# print a device name.
for f in "$samples"/*.sluice; do
  name=$(basename "$f")
  expect_rc 0 "run $name" "$sluice" run -C "$samples" "$f" || continue
  grep -v '/job:' "$work/out" >"$work/placed_out"
  expect_rc 0 "run --one-device $name" "$sluice" run --one-device -C "$samples" "$f" || continue
  grep -v '/job:' "$work/out" >"$work/one_out"
  if [ "$name" = seed_pipeline.sluice ]; then
    # It shuffles without a seed (as the seed example does): only the
    # number of batches and the last line are fixed.
    [ "$(wc -l <"$work/placed_out")" = "$(wc -l <"$work/one_out")" ] &&
      [ "$(tail -n 1 "$work/placed_out")" = "$(tail -n 1 "$work/one_out")" ] ||
      bad "$name: --one-device output differs in shape"
  elif ! cmp -s "$work/placed_out" "$work/one_out"; then
    bad "$name: --one-device output differs: $(diff "$work/placed_out" "$work/one_out" | head -5)"
  fi
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
