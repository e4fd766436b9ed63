// driver/library_docs.cc: the doc table of the language's library. Each
// signature is what the builtin's code reads (its checkKeywords list and
// the positions it passes to argOr/requireArg), not TF's: where the two
// differ, the language's wins. tests/driver/library_docs_test.cc checks
// that every name is a builtin that accepts every keyword listed.
#include "driver/library_docs.h"

#include <algorithm>

namespace sluice::driver {

namespace {

std::vector<LibraryDoc> makeTable() {
  std::vector<LibraryDoc> t = {
      // --- layers and losses (frontend/eval/builtins_losses.cc)
      {"dense", false,
       "dense(inputs, units, activation: none, use_bias: true, kernel_initializer: none, "
       "bias_initializer: none, name: \"dense\", trainable: true)",
       "A fully connected layer: activation(inputs @ kernel + bias). The kernel starts "
       "Glorot-uniform, the bias zeros; an initializer is a function of the shape.",
       "tf.layers.dense"},
      {"sigmoid_cross_entropy_with_logits", false,
       "sigmoid_cross_entropy_with_logits(labels, logits, name: \"logistic_loss\")",
       "Elementwise logistic loss, in the form that never overflows.",
       "tf.nn.sigmoid_cross_entropy_with_logits"},
      {"softmax_cross_entropy_with_logits", false,
       "softmax_cross_entropy_with_logits(labels, logits, dim: -1, name: "
       "\"softmax_cross_entropy_with_logits\", *, axis)",
       "Cross entropy of softmax(logits) against labels (probabilities) along dim (axis is "
       "its other name).",
       "tf.nn.softmax_cross_entropy_with_logits"},
      {"sparse_softmax_cross_entropy_with_logits", false,
       "sparse_softmax_cross_entropy_with_logits(labels, logits, name: "
       "\"SparseSoftmaxCrossEntropyWithLogits\")",
       "Cross entropy of softmax(logits) against integer class labels.",
       "tf.nn.sparse_softmax_cross_entropy_with_logits"},
      {"mean_squared_error", false,
       "mean_squared_error(labels, predictions, weights: none, scope: none)",
       "The mean of the squared differences; with weights, their weighted sum over the count "
       "of nonzero weights.",
       "tf.losses.mean_squared_error"},
      {"l2_loss", false, "l2_loss(t, name: \"L2Loss\")", "sum(t ** 2) / 2.", "tf.nn.l2_loss"},

      // --- training (builtins_training.cc, builtins_optimizers.cc,
      // builtins_sync_replicas.cc, builtins_checkpoint.cc)
      {"gradients", false,
       "gradients(ys, xs, grad_ys: none, name: \"gradients\", *, colocate_gradients_with_ops, "
       "gate_gradients, aggregation_method, stop_gradients)",
       "d(sum of ys)/d(x) for each x of xs (none where ys do not depend on it); the last four "
       "are accepted for TF's sake and change nothing.",
       "tf.gradients"},
      {"gradient_descent_optimizer", false,
       "gradient_descent_optimizer(learning_rate, *, use_locking: false, name: "
       "\"GradientDescent\")",
       "var -= learning_rate * grad.", "tf.train.GradientDescentOptimizer",
       "minimize(loss, global_step, var_list, ..., name), compute_gradients(loss, var_list), "
       "apply_gradients(grads_and_vars, global_step, name), get_slot(var, name), "
       "get_slot_names(), get_name()"},
      {"momentum_optimizer", false,
       "momentum_optimizer(learning_rate, momentum, *, use_locking: false, name: \"Momentum\", "
       "use_nesterov: false)",
       "Momentum SGD: accum = accum * momentum + grad; var -= learning_rate * accum.",
       "tf.train.MomentumOptimizer",
       "minimize, compute_gradients, apply_gradients, get_slot, get_slot_names, get_name"},
      {"adagrad_optimizer", false,
       "adagrad_optimizer(learning_rate, initial_accumulator_value: 0.1, *, use_locking: "
       "false, name: \"Adagrad\")",
       "Adagrad: accum += grad^2; var -= learning_rate * grad / sqrt(accum).",
       "tf.train.AdagradOptimizer",
       "minimize, compute_gradients, apply_gradients, get_slot, get_slot_names, get_name"},
      {"rms_prop_optimizer", false,
       "rms_prop_optimizer(learning_rate, decay: 0.9, momentum: 0.0, epsilon: 1e-10, *, "
       "use_locking: false, name: \"RMSProp\", centered: false)",
       "RMSProp; centered: true is not supported.", "tf.train.RMSPropOptimizer",
       "minimize, compute_gradients, apply_gradients, get_slot, get_slot_names, get_name"},
      {"adam_optimizer", false,
       "adam_optimizer(learning_rate: 0.001, beta1: 0.9, beta2: 0.999, epsilon: 1e-08, *, "
       "use_locking: false, name: \"Adam\")",
       "Adam, with TF1's bias correction folded into the step size.", "tf.train.AdamOptimizer",
       "minimize, compute_gradients, apply_gradients, get_slot, get_slot_names, get_name"},
      {"sync_replicas_optimizer", false,
       "sync_replicas_optimizer(opt, replicas_to_aggregate, total_num_replicas: none, "
       "use_locking: false, name: \"sync_replicas\")",
       "Wraps opt so that each step applies the mean of replicas_to_aggregate workers' "
       "gradients; stale gradients are dropped.",
       "tf.train.SyncReplicasOptimizer",
       "minimize, apply_gradients, compute_gradients, get_init_tokens_op(num_tokens), "
       "get_chief_queue_runner(), chief_init_op, local_step_init_op, "
       "ready_for_local_init_op"},
      {"conditional_accumulator", false,
       "conditional_accumulator(dtype, shape: none, shared_name: none, name: "
       "\"conditional_accumulator\", reduction_type: \"MEAN\")",
       "A gradient accumulator with a global step: gradients older than it are dropped.",
       "tf.ConditionalAccumulator",
       "apply_grad(grad, local_step, name), take_grad(num_required, name), "
       "num_accumulated(name), set_global_step(new_global_step, name)"},
      {"exponential_decay", false,
       "exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase: "
       "false, name: \"ExponentialDecay\")",
       "learning_rate * decay_rate ^ (global_step / decay_steps), the exponent floored with "
       "staircase.",
       "tf.train.exponential_decay"},
      {"trainable_variables", false, "trainable_variables()",
       "The variables created with trainable: true.", "tf.trainable_variables"},
      {"get_global_step", false, "get_global_step()",
       "The graph's global step variable, or none.", "tf.train.get_global_step"},
      {"create_global_step", false, "create_global_step()",
       "Creates the global step (an i64 variable at 0); an error if it exists.",
       "tf.train.create_global_step"},
      {"get_or_create_global_step", false, "get_or_create_global_step()",
       "The global step, created if needed.", "tf.train.get_or_create_global_step"},

      // --- variables and graph building (builtins_graph.cc, builtins_pipeline.cc)
      {"variable", false,
       "variable(initial_value, trainable: true, *, name: \"Variable\", dtype, shape, "
       "validate_shape: true, collections)",
       "A variable initialized from initial_value (a value, a tensor or a function of "
       "none); reads give its value. collections is accepted and ignored.",
       "tf.Variable",
       "assign(value), assign_add(value), assign_sub(value), read_value(), initializer, op, "
       "name, dtype, shape"},
      {"constant", false,
       "constant(value, dtype: none, shape: none, *, name: \"Const\", verify_shape)",
       "A tensor fixed in the graph; a scalar value fills shape.", "tf.constant"},
      {"global_variables_initializer", false, "global_variables_initializer()",
       "An op that runs every global variable's initializer.",
       "tf.global_variables_initializer"},
      {"local_variables_initializer", false, "local_variables_initializer()",
       "An op that runs every local variable's initializer (epoch counters, "
       "match_filenames_once).",
       "tf.local_variables_initializer"},
      {"variables_initializer", false, "variables_initializer(var_list)",
       "An op that runs the initializers of var_list.", "tf.variables_initializer"},
      {"global_variables", false, "global_variables()", "The graph's global variables.",
       "tf.global_variables"},
      {"local_variables", false, "local_variables()", "The graph's local variables.",
       "tf.local_variables"},
      {"report_uninitialized_variables", false,
       "report_uninitialized_variables(var_list: none, name)",
       "A string tensor: the names of the variables not yet initialized.",
       "tf.report_uninitialized_variables"},
      {"group", false, "group(*inputs, name: \"group_deps\")",
       "An op that waits for all its inputs (lists are flattened).", "tf.group"},
      {"name_scope", false, "name_scope(name)",
       "A scope for `with`: names created inside get the prefix.", "tf.name_scope"},
      {"device", false, "device(device_name_or_function)",
       "A scope for `with`: ops created inside ask for the device (a name, or a function of "
       "the op such as replica_device_setter's).",
       "tf.device"},
      {"control_dependencies", false, "control_dependencies(control_inputs)",
       "A scope for `with`: ops created inside run after control_inputs.",
       "tf.control_dependencies"},
      {"colocate_with", false, "colocate_with(op, ignore_existing: false)",
       "A scope for `with`: ops created inside go where op goes.", "tf.colocate_with"},
      {"set_random_seed", false, "set_random_seed(seed)",
       "The graph-level seed that random ops derive their seeds from.", "tf.set_random_seed"},

      // --- input pipelines (builtins_pipeline.cc, builtins_queues.cc)
      {"string_input_producer", false,
       "string_input_producer(string_tensor, num_epochs: none, shuffle: true, seed: none, "
       "capacity: 32, shared_name: none, name: \"input_producer\", cancel_op: none)",
       "A queue of the strings (file names), num_epochs times, filled by a queue runner.",
       "tf.train.string_input_producer"},
      {"input_producer", false,
       "input_producer(input_tensor, element_shape: none, num_epochs: none, shuffle: true, "
       "seed: none, capacity: 32, shared_name: none, name: \"input_producer\", cancel_op: "
       "none)",
       "A queue of the rows of input_tensor, num_epochs times, filled by a queue runner.",
       "tf.train.input_producer"},
      {"range_input_producer", false,
       "range_input_producer(limit, num_epochs: none, shuffle: true, seed: none, capacity: "
       "32, shared_name: none, name: \"input_producer\")",
       "A queue of the integers 0 .. limit-1, num_epochs times.",
       "tf.train.range_input_producer"},
      {"limit_epochs", false, "limit_epochs(tensor, num_epochs: none)",
       "tensor, num_epochs times; then out_of_range.", "tf.train.limit_epochs"},
      {"match_filenames_once", false, "match_filenames_once(pattern, name: "
                                      "\"matching_filenames\")",
       "A local variable holding the files that match pattern, globbed once when "
       "local_variables_initializer runs.",
       "tf.train.match_filenames_once"},
      {"batch", false,
       "batch(tensors, batch_size, *, num_threads: 1, capacity: 32, enqueue_many: false, "
       "dynamic_pad: false, allow_smaller_final_batch: false, shared_name: none, name: "
       "\"batch\")",
       "Batches of tensors (a tensor, list or dict) through a FIFO queue filled by "
       "num_threads enqueue threads.",
       "tf.train.batch"},
      {"batch_join", false,
       "batch_join(tensors_list, batch_size, *, capacity: 32, enqueue_many: false, "
       "dynamic_pad: false, allow_smaller_final_batch: false, shared_name: none, name: "
       "\"batch\")",
       "batch with one enqueue thread per member of tensors_list.", "tf.train.batch_join"},
      {"shuffle_batch", false,
       "shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, *, num_threads: 1, "
       "seed: none, enqueue_many: false, allow_smaller_final_batch: false, shared_name: none, "
       "name: \"shuffle_batch\")",
       "Batches drawn at random from a RandomShuffleQueue that keeps min_after_dequeue "
       "elements back.",
       "tf.train.shuffle_batch"},
      {"shuffle_batch_join", false,
       "shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, *, seed: "
       "none, enqueue_many: false, allow_smaller_final_batch: false, shared_name: none, name: "
       "\"shuffle_batch\")",
       "shuffle_batch with one enqueue thread per member of tensors_list.",
       "tf.train.shuffle_batch_join"},
      {"coordinator", false, "coordinator()",
       "Coordinates threads: one asks them all to stop, and exceptions are reported.",
       "tf.train.Coordinator",
       "request_stop(ex), should_stop(), wait_for_stop(timeout), join(threads, "
       "stop_grace_period_secs, ignore_live_threads), clear_stop(), register_thread(t)"},
      {"queue_runner", false,
       "queue_runner(queue, enqueue_ops, close_op: none, cancel_op: none)",
       "Threads that run enqueue_ops and close the queue when they end.",
       "tf.train.QueueRunner", "create_threads(sess, coord, daemon, start)"},
      {"add_queue_runner", false, "add_queue_runner(qr)",
       "Adds a queue runner to the graph's collection (start_queue_runners starts them).",
       "tf.train.add_queue_runner"},
      {"start_queue_runners", false,
       "start_queue_runners(sess: none, coord: none, daemon: true, start: true)",
       "Starts the graph's queue runners in the session (the current one by default); a "
       "session and a coordinator may also come positionally, in either order.",
       "tf.train.start_queue_runners"},
      {"fifo_queue", false,
       "fifo_queue(capacity, dtypes, shapes: none, names: none, shared_name: none, name: "
       "\"fifo_queue\")",
       "A queue whose elements leave in arrival order.", "tf.FIFOQueue",
       "enqueue(vals), enqueue_many(vals), dequeue(), dequeue_many(n), dequeue_up_to(n), "
       "close(cancel_pending_enqueues), size(), is_closed()"},
      {"padding_fifo_queue", false,
       "padding_fifo_queue(capacity, dtypes, shapes, names: none, shared_name: none, name: "
       "\"padding_fifo_queue\")",
       "A FIFO queue of partial shapes; dequeue_many pads unknown dims with zeros.",
       "tf.PaddingFIFOQueue", "as fifo_queue"},
      {"random_shuffle_queue", false,
       "random_shuffle_queue(capacity, min_after_dequeue, dtypes, shapes: none, names: none, "
       "seed: none, shared_name: none, name: \"random_shuffle_queue\")",
       "A queue that removes a random element, keeping min_after_dequeue back while open.",
       "tf.RandomShuffleQueue", "as fifo_queue"},
      {"priority_queue", false,
       "priority_queue(capacity, types, shapes: none, names: none, shared_name: none, name: "
       "\"priority_queue\")",
       "A queue whose element with the smallest i64 priority (component 0) leaves first.",
       "tf.PriorityQueue", "as fifo_queue"},

      // --- datasets (builtins_datasets.cc)
      {"dataset_from_tensor_slices", false, "dataset_from_tensor_slices(tensors, name)",
       "A dataset of the slices of tensors (a tensor, tuple or dict) along dimension 0.",
       "tf.data.Dataset.from_tensor_slices",
       "map(map_func), filter(predicate), batch(batch_size, drop_remainder), "
       "shuffle(buffer_size, seed, reshuffle_each_iteration), repeat(count), take(count), "
       "skip(count), prefetch(buffer_size), make_one_shot_iterator(), "
       "make_initializable_iterator(shared_name)"},
      {"dataset_range", false, "dataset_range(start: 0, stop, step: 1, /, *, name)",
       "A dataset of i64 from start up to stop; one argument is stop.",
       "tf.data.Dataset.range", "as dataset_from_tensor_slices"},
      {"text_line_dataset", false, "text_line_dataset(filenames, name)",
       "A dataset of the lines of the files, without line terminators.",
       "tf.data.TextLineDataset", "as dataset_from_tensor_slices"},

      // --- checkpoints and summaries (builtins_checkpoint.cc, builtins_summary.cc)
      {"saver", false,
       "saver(var_list: none, max_to_keep: 5, sharded: false, *, "
       "keep_checkpoint_every_n_hours: 10000, name: \"save\", allow_empty: false)",
       "Saves and restores variables (all global ones by default, or a list or dict of "
       "them) as checkpoints, keeping the newest max_to_keep.",
       "tf.train.Saver",
       "save(sess, save_path, global_step, ...), restore(sess, save_path), last_checkpoints, "
       "recover_last_checkpoints(paths)"},
      {"latest_checkpoint", false, "latest_checkpoint(checkpoint_dir, latest_filename: none)",
       "The prefix of the newest checkpoint in checkpoint_dir, or none.",
       "tf.train.latest_checkpoint"},
      {"get_checkpoint_state", false,
       "get_checkpoint_state(checkpoint_dir, latest_filename: none)",
       "The directory's checkpoint state (model_checkpoint_path, "
       "all_model_checkpoint_paths), or none.",
       "tf.train.get_checkpoint_state"},
      {"checkpoint_exists", false, "checkpoint_exists(checkpoint_prefix)",
       "Whether a checkpoint with that prefix exists.", "tf.train.checkpoint_exists"},
      {"list_variables", false, "list_variables(ckpt_dir_or_file)",
       "The (name, shape) of each tensor in a checkpoint.", "tf.train.list_variables"},
      {"load_variable", false, "load_variable(ckpt_dir_or_file, name)",
       "One tensor of a checkpoint, as a host value.", "tf.train.load_variable"},
      {"scalar_summary", false,
       "scalar_summary(name, tensor, collections: none, family: none)",
       "A serialized Summary of one scalar, added to the graph's summaries.",
       "tf.summary.scalar"},
      {"merge_all_summaries", false, "merge_all_summaries()",
       "One op merging every summary of the graph, or none when there is none.",
       "tf.summary.merge_all"},
      {"summary_writer", false, "summary_writer(logdir, graph: none)",
       "Writes summaries as an event file (and metrics.jsonl) under logdir.",
       "tf.summary.FileWriter", "add_summary(summary, global_step), flush(), close()"},

      // --- sessions and clusters (eval_session.cc, supervisor.cc,
      // builtins_session.cc, builtins_server.cc, builtins_device_setter.cc)
      {"session", true,
       "session(config: none, *, target: none, graph: none, logdir, is_chief, "
       "save_every_steps, save_every_secs, init_op, init_fn, local_init_op, ready_op, "
       "ready_for_local_init_op, max_wait_secs: 7200, recovery_wait_secs: 30, saver, "
       "summary_op, save_summaries_steps, global_step, checkpoint_basename, "
       "stop_grace_secs: 120) { ... }",
       "Runs its block in a session over the graph. A supervisor(...) as its argument, or "
       "any supervisor keyword (logdir, is_chief, ...), makes it a supervised session: initialization or restore from the "
       "newest checkpoint, queue runners, periodic checkpoints and summaries, should_stop().",
       "tf.Session; supervised: tf.train.Supervisor.managed_session, "
       "tf.train.MonitoredTrainingSession"},
      {"supervisor", false,
       "supervisor(*, logdir, is_chief, save_every_steps, save_every_secs, init_op, init_fn, "
       "local_init_op, ready_op, ready_for_local_init_op, max_wait_secs, recovery_wait_secs, "
       "saver, summary_op, save_summaries_steps, global_step, checkpoint_basename, "
       "stop_grace_secs)",
       "What a supervised session is made with: session(sv) as sess { } opens one (the "
       "keyword form session(logdir: ...) is its shorthand); its attributes are the keywords "
       "given, none for the others.",
       "tf.train.Supervisor"},
      {"run", false, "run(fetches, feed: none, *, feed_dict, timeout_in_ms, options)",
       "Runs fetches (a tensor, op, or nested list/tuple/dict of them) in the current session "
       "and returns their values in the same structure.",
       "tf.Session.run"},
      {"should_stop", false, "should_stop()",
       "Inside a supervised session: whether its coordinator was asked to stop.",
       "tf.train.MonitoredSession.should_stop"},
      {"config_proto", false,
       "config_proto(*, device_count, intra_op_parallelism_threads, "
       "inter_op_parallelism_threads, allow_soft_placement, log_device_placement, "
       "operation_timeout_in_ms, device_filters, deterministic, stall_detection, "
       "fuse_read_decode, fusion, backend)",
       "A session's options (keywords only); backend is \"jit\" or \"interp\".",
       "tf.ConfigProto"},
      {"cluster_spec", false, "cluster_spec(cluster)",
       "A cluster: a dict of job name to a list of host:port addresses.",
       "tf.train.ClusterSpec"},
      {"server", false,
       "server(server_or_cluster_def, job_name: none, task_index: none, protocol: \"grpc\", "
       "start: true)",
       "An in-process gRPC server for one task of a cluster.", "tf.train.Server",
       "target, join(), start(), cluster_spec, task"},
      {"create_local_cluster", false, "create_local_cluster(num_workers, num_ps, protocol)",
       "Servers for a whole cluster in this process, on free ports (tests).",
       "tf.test.create_local_cluster"},
      {"replica_device_setter", false,
       "replica_device_setter(ps_tasks: 0, ps_device: \"/job:ps\", worker_device: "
       "\"/job:worker\", merge_devices: true, cluster: none, ps_ops: none, ps_strategy: none)",
       "A device function for `with device(...)`: variables round-robin (or by ps_strategy) "
       "over the ps tasks, other ops on worker_device.",
       "tf.train.replica_device_setter"},
  };
  std::sort(t.begin(), t.end(), [](const LibraryDoc &a, const LibraryDoc &b) {
    return std::string_view(a.name) < std::string_view(b.name);
  });
  return t;
}

} // namespace

const std::vector<LibraryDoc> &libraryDocs() {
  static const std::vector<LibraryDoc> table = makeTable();
  return table;
}

const LibraryDoc *findLibraryDoc(std::string_view name) {
  for (const LibraryDoc &d : libraryDocs())
    if (name == d.name)
      return &d;
  return nullptr;
}

std::string libraryDocText(const LibraryDoc &doc) {
  std::string s = std::string(doc.signature) + "\n";
  s += "  " + std::string(doc.summary) + "\n";
  s += std::string(doc.statement ? "statement" : "library function") + "; TF1: " + doc.tf + "\n";
  if (*doc.methods)
    s += "methods: " + std::string(doc.methods) + "\n";
  return s;
}

} // namespace sluice::driver
