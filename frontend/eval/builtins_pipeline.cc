// frontend/eval/builtins_pipeline.cc: TF1's input-pipeline helpers:
// coordinator, queue_runner, start_queue_runners, the input producers
// (string_input_producer, input_producer, range_input_producer,
// limit_epochs) and the batching helpers (batch, shuffle_batch and their
// _join forms), built from queues and queue runners as TF builds them.
#include "frontend/eval/pipeline_objects.h"
#include "ir/op_registry.h"

namespace sluice::frontend {

namespace {

using BuiltinFn = std::function<Value(EvaluatorImpl &, CallArgs &)>;

void def(Env &env, const std::string &name, BuiltinFn fn) {
  env.set(name, Value::builtin(name, std::move(fn)));
}

ir::NodeId opNode(EvaluatorImpl &ev, const Value &v, const SourceLoc &loc) {
  if (v.is(Value::kOp))
    return v.asOp().node;
  if (v.is(Value::kTensor))
    return v.asTensor().out.node;
  throwError(Code::kTypeError, "expected an op, got a " + v.typeName(), loc);
}

std::shared_ptr<QueueRunnerObject> makeRunner(EvaluatorImpl &ev, const Value &queue,
                                              const Value &enqueueOps, const Value &closeOp,
                                              const Value &cancelOp, const SourceLoc &loc) {
  if (queue.isNone() || enqueueOps.isNone())
    throwError(Code::kValueError, "Must provide queue and enqueue_ops.", loc);
  tflib::QueueRunnerDef def;
  for (const Value &op : ev.iterate(enqueueOps, loc))
    def.enqueueOps.push_back(opNode(ev, op, loc));
  if (def.enqueueOps.empty())
    throwError(Code::kValueError, "Must provide queue and enqueue_ops.", loc);
  // Defaults as TF: close() and close(cancel_pending_enqueues: true).
  Value close = closeOp.isNone()
                    ? ev.callWith(ev.getAttr(queue, "close", loc), {}, {}, loc)
                    : closeOp;
  Value cancel = cancelOp.isNone()
                     ? ev.callWith(ev.getAttr(queue, "close", loc), {},
                              {{"cancel_pending_enqueues", Value::boolean(true)}}, loc)
                     : cancelOp;
  def.closeOp = opNode(ev, close, loc);
  def.cancelOp = opNode(ev, cancel, loc);
  auto r = std::make_shared<QueueRunnerObject>(ev.ts().graph, queue, std::move(def));
  return r;
}

/// A local variable (TF's LOCAL_VARIABLES collection), e.g. epoch counters.
Value localVariable(EvaluatorImpl &ev, Value init, const std::string &name, const SourceLoc &loc,
                    bool validateShape = true) {
  Value var = ev.callWith(ev.builtin("variable"), {std::move(init)},
                     {{"name", Value::string(name)},
                      {"validate_shape", Value::boolean(validateShape)}},
                     loc);
  auto obj = var.objectAs<VariableObject>();
  GraphContext &g = ev.graph();
  g.globalVariables.pop_back();
  g.localVariables.push_back(obj->info);
  return var;
}

/// TF's limit_epochs: each evaluation counts an epoch; evaluation N+1
/// fails out_of_range "Reached limit of N".
Value limitEpochs(EvaluatorImpl &ev, const Value &tensor, const Value &numEpochs,
                  const SourceLoc &loc) {
  if (numEpochs.isNone())
    return tensor;
  int64_t n = toInt(numEpochs, "num_epochs", loc);
  if (n <= 0)
    throwError(Code::kValueError, "num_epochs must be > 0 not " + std::to_string(n), loc);
  NameScopeGuard scope(ev.ts(), ev.scopedName("limit_epochs") + "/");
  Value epochs = localVariable(ev, Value::hostTensor(ir::Tensor::scalar<int64_t>(0)), "epochs", loc);
  Value counter = ev.callWith(ev.builtin("count_up_to"), {epochs, Value::integer(n)}, {}, loc);
  ControlDepsGuard afterCount(ev.ts(), {opNode(ev, counter, loc)});
  return ev.callWith(ev.builtin("identity"), {tensor}, {{"name", Value::string("epoch_limit")}}, loc);
}

Value inputProducer(EvaluatorImpl &ev, Value input, std::optional<ir::Shape> elementShape,
                    const Value &numEpochs, bool shuffle, const Value &seed, int64_t capacity,
                    const Value &sharedName, const std::string &name, const Value &cancelOp,
                    const SourceLoc &loc) {
  ThreadState &t = ev.ts();
  NameScopeGuard scope(t, ev.scopedName(name) + "/");
  ir::Output in = ev.toTensor(input, std::nullopt, loc);
  const ir::Node &n = ev.graph().graph->node(in.node);
  ir::Shape shape = n.outputShape(in.index);
  ir::Shape elem = shape.hasRank() && shape.rank() >= 1
                       ? ir::Shape(std::vector<int64_t>(shape.dims().begin() + 1, shape.dims().end()))
                       : ir::Shape::unknown();
  if (elementShape) {
    auto merged = elem.merge(*elementShape);
    if (!merged)
      throwError(Code::kValueError, "element_shape is incompatible with the input", loc);
    elem = *merged;
  }
  if (!elem.isFullyDefined())
    throwError(Code::kValueError,
               "Either `input_tensor` must have a fully defined shape or `element_shape` must "
               "be specified (fully defined shape needed, got " + elem.str() + ")",
               loc);
  Value tensor = Value::tensor(ev.ts().graph, in);
  if (shuffle)
    tensor = ev.callWith(ev.builtin("random_shuffle"), {tensor}, {{"seed", seed}}, loc);
  tensor = limitEpochs(ev, tensor, numEpochs, loc);
  List dims;
  for (int64_t d : elem.dims())
    dims.push_back(Value::integer(d));
  Value q = ev.callWith(ev.builtin("fifo_queue"),
                   {Value::integer(capacity)},
                   {{"dtypes", Value::list({Value::dtype(n.outputType(in.index))})},
                    {"shapes", Value::list({Value::list(std::move(dims))})},
                    {"shared_name", sharedName},
                    {"name", Value::string("fifo_queue")}},
                   loc);
  Value enq = ev.callWith(ev.getAttr(q, "enqueue_many", loc), {Value::list({tensor})}, {}, loc);
  auto runner = makeRunner(ev, q, Value::list({enq}), Value::none(), cancelOp, loc);
  ev.graph().queueRunners.push_back(runner);
  return q;
}

/// Shapes of the tensors batched, fully defined (dynamic_pad: known rank).
std::vector<ir::Shape> batchShapes(EvaluatorImpl &ev, const std::vector<ir::Output> &outs,
                                   bool enqueueMany, bool dynamicPad, const SourceLoc &loc) {
  std::vector<ir::Shape> shapes;
  for (const ir::Output &o : outs) {
    ir::Shape s = ev.graph().graph->node(o.node).outputShape(o.index);
    if (!s.hasRank())
      throwError(Code::kValueError, "Cannot infer Tensor's rank: " + ev.graph().graph->node(o.node).name(), loc);
    if (enqueueMany) {
      if (s.rank() == 0)
        throwError(Code::kValueError, "enqueue_many needs tensors of rank >= 1", loc);
      s = ir::Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
    }
    if (!dynamicPad && !s.isFullyDefined())
      throwError(Code::kValueError,
                 "All shapes must be fully defined: " + s.str() + " (use dynamic_pad: true)", loc);
    shapes.push_back(s);
  }
  return shapes;
}

struct BatchArgs {
  std::vector<Value> tensorLists; // one per enqueue thread (the _join forms)
  Value keys;                     // dict keys when tensors were a dict
  bool single = false;            // one bare tensor in, one tensor out (as TF)
  int64_t batchSize = 0;
  int64_t numThreads = 1;
  int64_t capacity = 32;
  bool enqueueMany = false;
  bool dynamicPad = false;
  bool allowSmaller = false;
  bool shuffle = false;
  int64_t minAfterDequeue = 0;
  Value seed, sharedName;
  std::string name;
};

Value buildBatch(EvaluatorImpl &ev, BatchArgs b, const SourceLoc &loc) {
  if (b.shuffle && b.capacity <= b.minAfterDequeue)
    throwError(Code::kValueError,
               "capacity " + std::to_string(b.capacity) + " must be bigger than min_after_dequeue " +
                   std::to_string(b.minAfterDequeue) + ".",
               loc);
  ThreadState &t = ev.ts();
  NameScopeGuard scope(t, ev.scopedName(b.name) + "/");
  std::vector<std::vector<ir::Output>> lists;
  for (const Value &l : b.tensorLists) {
    std::vector<ir::Output> outs;
    for (const Value &x : ev.iterate(l, loc))
      outs.push_back(ev.toTensor(x, std::nullopt, loc));
    if (!lists.empty() && outs.size() != lists[0].size())
      throwError(Code::kValueError, "every tensor list must have the same length", loc);
    lists.push_back(std::move(outs));
  }
  if (lists.empty() || lists[0].empty())
    throwError(Code::kValueError, "batch() needs at least one tensor", loc);
  std::vector<ir::Shape> shapes = batchShapes(ev, lists[0], b.enqueueMany, b.dynamicPad, loc);
  List dtypes, shapeVals;
  for (size_t i = 0; i < lists[0].size(); ++i) {
    dtypes.push_back(Value::dtype(ev.graph().graph->node(lists[0][i].node).outputType(lists[0][i].index)));
    List dims;
    for (int64_t d : shapes[i].dims())
      dims.push_back(d < 0 ? Value::none() : Value::integer(d));
    shapeVals.push_back(Value::list(std::move(dims)));
  }
  std::vector<std::pair<std::string, Value>> kw = {{"dtypes", Value::list(dtypes)},
                                                   {"shapes", Value::list(shapeVals)},
                                                   {"shared_name", b.sharedName}};
  Value q;
  if (b.shuffle) {
    kw.emplace_back("min_after_dequeue", Value::integer(b.minAfterDequeue));
    kw.emplace_back("seed", b.seed);
    q = ev.callWith(ev.builtin("random_shuffle_queue"), {Value::integer(b.capacity)}, kw, loc);
  } else {
    q = ev.callWith(ev.builtin(b.dynamicPad ? "padding_fifo_queue" : "fifo_queue"),
               {Value::integer(b.capacity)}, kw, loc);
  }
  List enqueues;
  for (size_t k = 0; k < lists.size(); ++k) {
    List comps;
    for (const ir::Output &o : lists[k])
      comps.push_back(Value::tensor(ev.ts().graph, o));
    Value comp = Value::list(std::move(comps));
    int64_t copies = b.tensorLists.size() > 1 ? 1 : b.numThreads;
    for (int64_t i = 0; i < copies; ++i) {
      // One enqueue op, repeated: TF runs the same op on several threads.
      if (i == 0)
        enqueues.push_back(ev.callWith(ev.getAttr(q, b.enqueueMany ? "enqueue_many" : "enqueue", loc),
                                  {comp}, {}, loc));
      else
        enqueues.push_back(enqueues.back());
    }
  }
  auto runner = makeRunner(ev, q, Value::list(enqueues), Value::none(), Value::none(), loc);
  ev.graph().queueRunners.push_back(runner);
  Value out = ev.callWith(ev.getAttr(q, b.allowSmaller ? "dequeue_up_to" : "dequeue_many", loc),
                     {Value::integer(b.batchSize)}, {}, loc);
  if (lists[0].size() == 1 && !out.isSequence())
    out = Value::list({out});
  if (b.keys.is(Value::kList)) {
    auto d = std::make_shared<Dict>();
    const List &keys = *b.keys.asList();
    for (size_t i = 0; i < keys.size(); ++i)
      d->set(keys[i], (*out.asList())[i]);
    return Value::dict(d);
  }
  if (b.single)
    return (*out.asList())[0];
  return out;
}

BatchArgs parseBatch(EvaluatorImpl &ev, CallArgs &a, const std::string &fn, bool shuffle, bool join) {
  BatchArgs b;
  b.shuffle = shuffle;
  b.name = shuffle ? "shuffle_batch" : "batch";
  const Value &tensors = requireArg(a, 0, join ? "tensors_list" : "tensors", fn);
  bool first = true;
  auto flatten = [&](const Value &v) -> Value {
    // The output takes the structure of the (first) input.
    bool isFirst = first;
    first = false;
    if (v.is(Value::kDict)) {
      const Dict &d = *v.asDict();
      List keys, vals;
      if (!isFirst && b.keys.is(Value::kList)) {
        // Later dicts of a _join are read in the first one's key order, so
        // that each component lands in its own queue slot.
        const List &want = *b.keys.asList();
        for (const Value &k : want) {
          const Value *x = d.find(k);
          if (!x || d.items.size() != want.size())
            throwError(Code::kValueError,
                       "every tensor dict in tensors_list must have the same keys", a.loc);
          vals.push_back(*x);
        }
        return Value::list(std::move(vals));
      }
      for (const auto &[k, x] : d.items) {
        keys.push_back(k);
        vals.push_back(x);
      }
      if (isFirst)
        b.keys = Value::list(std::move(keys));
      return Value::list(std::move(vals));
    }
    if (v.isSequence())
      return v;
    if (isFirst)
      b.single = true;
    return Value::list({v});
  };
  if (join)
    for (const Value &l : ev.iterate(tensors, a.loc))
      b.tensorLists.push_back(flatten(l));
  else
    b.tensorLists.push_back(flatten(tensors));
  b.batchSize = toInt(requireArg(a, 1, "batch_size", fn), "batch_size", a.loc);
  if (b.batchSize <= 0)
    throwError(Code::kValueError, "batch_size must be positive", a.loc);
  size_t pos = 2;
  if (shuffle) {
    b.capacity = toInt(requireArg(a, 2, "capacity", fn), "capacity", a.loc);
    b.minAfterDequeue = toInt(requireArg(a, 3, "min_after_dequeue", fn), "min_after_dequeue", a.loc);
    pos = 4;
  }
  auto opt = [&](const char *name) { return argOr(a, 999, name, Value::none()); };
  (void)pos;
  if (Value v = opt("num_threads"); !v.isNone())
    b.numThreads = toInt(v, "num_threads", a.loc);
  if (Value v = opt("capacity"); !v.isNone())
    b.capacity = toInt(v, "capacity", a.loc);
  if (Value v = opt("enqueue_many"); !v.isNone())
    b.enqueueMany = ev.truthy(v, a.loc);
  if (Value v = opt("dynamic_pad"); !v.isNone())
    b.dynamicPad = ev.truthy(v, a.loc);
  if (Value v = opt("allow_smaller_final_batch"); !v.isNone())
    b.allowSmaller = ev.truthy(v, a.loc);
  b.seed = opt("seed");
  b.sharedName = opt("shared_name");
  if (Value v = opt("name"); !v.isNone())
    b.name = toStr(v, "name", a.loc);
  if (b.numThreads < 1)
    throwError(Code::kValueError, "num_threads must be at least 1", a.loc);
  return b;
}

} // namespace

void installPipelineBuiltins(EvaluatorImpl &evaluator, Env &env) {
  def(env, "coordinator", [](EvaluatorImpl &, CallArgs &) {
    return Value::object(std::make_shared<CoordinatorObject>());
  });
  def(env, "queue_runner", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "queue_runner", {"queue", "enqueue_ops", "close_op", "cancel_op"});
    return Value::object(makeRunner(ev, argOr(a, 0, "queue", Value::none()),
                                    argOr(a, 1, "enqueue_ops", Value::none()),
                                    argOr(a, 2, "close_op", Value::none()),
                                    argOr(a, 3, "cancel_op", Value::none()), a.loc));
  });
  def(env, "add_queue_runner", [](EvaluatorImpl &ev, CallArgs &a) {
    auto r = requireArg(a, 0, "qr", "add_queue_runner").objectAs<QueueRunnerObject>();
    if (!r)
      throwError(Code::kTypeError, "add_queue_runner() needs a queue_runner", a.loc);
    ev.graph().queueRunners.push_back(r);
    return Value::none();
  });
  def(env, "start_queue_runners", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "start_queue_runners", {"sess", "coord", "daemon", "start"});
    std::shared_ptr<SessionObject> sess;
    std::shared_ptr<CoordinatorObject> coord;
    for (const Value &v : a.positional) {
      if (auto s = v.objectAs<SessionObject>())
        sess = s;
      else if (auto c = v.objectAs<CoordinatorObject>())
        coord = c;
    }
    if (const Value *c = argAt(a, 999, "coord"); c && !c->isNone())
      coord = c->objectAs<CoordinatorObject>();
    if (const Value *s = argAt(a, 999, "sess"); s && !s->isNone())
      sess = s->objectAs<SessionObject>();
    if (!sess) {
      if (ev.ts().sessions.empty())
        throwError(Code::kValueError,
                   "Cannot start queue runners: No default session is registered. Use "
                   "`session { ... }` or pass sess:",
                   a.loc);
      sess = ev.currentSession(a.loc);
    }
    List out;
    for (auto &r : sess->graph->queueRunners)
      for (auto &t : std::static_pointer_cast<QueueRunnerObject>(r)->createThreads(ev, sess, coord, true, a.loc))
        out.push_back(Value::object(t));
    return Value::list(std::move(out));
  });
  auto localInit = [](EvaluatorImpl &ev, CallArgs &a) {
    ir::NodeSpec s;
    s.op = "no_op";
    s.name = ev.scopedName("init_1");
    s.loc = a.loc;
    for (const auto &v : ev.graph().localVariables)
      s.controlInputs.push_back(v.initializer);
    ir::Node &n = ev.addNode(std::move(s));
    return Value::op(ev.ts().graph, n.id());
  };
  def(env, "local_variables_initializer", localInit);
  def(env, "initialize_local_variables", localInit);
  def(env, "local_variables", [](EvaluatorImpl &ev, CallArgs &) {
    List out;
    for (const auto &v : ev.graph().localVariables)
      out.push_back(Value::object(std::make_shared<VariableObject>(ev.ts().graph, v)));
    return Value::list(std::move(out));
  });
  def(env, "match_filenames_once", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "match_filenames_once", {"pattern", "name"});
    Value pattern = requireArg(a, 0, "pattern", "match_filenames_once");
    Value nameV = argOr(a, 1, "name", Value::none());
    std::string base = nameV.isNone() ? "matching_filenames" : toStr(nameV, "name", a.loc);
    // As TF: the glob runs once, when local_variables_initializer assigns
    // it, and the variable (not the op) is what consumers read.
    std::string scope = ev.scopedName(base);
    Value files = [&] {
      NameScopeGuard inside(ev.ts(), scope + "/");
      return ev.callWith(ev.builtin("matching_files"), {pattern}, {}, a.loc);
    }();
    // `scope` is already a full name: the root scope keeps it from being
    // prefixed twice.
    NameScopeGuard root(ev.ts(), "");
    return localVariable(ev, files, scope, a.loc, /*validateShape=*/false);
  });
  def(env, "limit_epochs", [](EvaluatorImpl &ev, CallArgs &a) {
    return limitEpochs(ev, requireArg(a, 0, "tensor", "limit_epochs"),
                       argOr(a, 1, "num_epochs", Value::none()), a.loc);
  });
  def(env, "string_input_producer", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "string_input_producer", {"string_tensor", "num_epochs", "shuffle", "seed",
                                               "capacity", "shared_name", "name", "cancel_op"});
    Value input = requireArg(a, 0, "string_tensor", "string_input_producer");
    if (input.isSequence() && input.asList()->empty())
      throwError(Code::kValueError,
                 "string_input_producer requires a non-null input tensor", a.loc);
    ThreadState &t = ev.ts();
    // An empty list at run time stops the runner, as TF's Assert does.
    ir::Output in = ev.toTensor(input, ir::DType::kString, a.loc);
    Value tensor = Value::tensor(t.graph, in);
    Value size = ev.callWith(ev.builtin("size"), {tensor}, {}, a.loc);
    Value nonEmpty = ev.binary(BinaryOp::kGt, size, Value::integer(0), a.loc);
    Value check = ev.callWith(ev.builtin("assert"),
                         {nonEmpty, Value::list({Value::string("string_input_producer requires a non-null input tensor")})},
                         {}, a.loc);
    Value guarded = [&] {
      ControlDepsGuard afterCheck(t, {opNode(ev, check, a.loc)});
      return ev.callWith(ev.builtin("identity"), {tensor}, {}, a.loc);
    }();
    return inputProducer(ev, guarded, std::nullopt, argOr(a, 1, "num_epochs", Value::none()),
                         ev.truthy(argOr(a, 2, "shuffle", Value::boolean(true)), a.loc),
                         argOr(a, 3, "seed", Value::none()),
                         toInt(argOr(a, 4, "capacity", Value::integer(32)), "capacity", a.loc),
                         argOr(a, 5, "shared_name", Value::none()),
                         toStr(argOr(a, 6, "name", Value::string("input_producer")), "name", a.loc),
                         argOr(a, 7, "cancel_op", Value::none()), a.loc);
  });
  def(env, "input_producer", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "input_producer", {"input_tensor", "element_shape", "num_epochs", "shuffle",
                                        "seed", "capacity", "shared_name", "name", "cancel_op"});
    Value es = argOr(a, 1, "element_shape", Value::none());
    std::optional<ir::Shape> shape;
    if (!es.isNone())
      shape = toShape(es, "element_shape", a.loc);
    return inputProducer(ev, requireArg(a, 0, "input_tensor", "input_producer"), shape,
                         argOr(a, 2, "num_epochs", Value::none()),
                         ev.truthy(argOr(a, 3, "shuffle", Value::boolean(true)), a.loc),
                         argOr(a, 4, "seed", Value::none()),
                         toInt(argOr(a, 5, "capacity", Value::integer(32)), "capacity", a.loc),
                         argOr(a, 6, "shared_name", Value::none()),
                         toStr(argOr(a, 7, "name", Value::string("input_producer")), "name", a.loc),
                         argOr(a, 8, "cancel_op", Value::none()), a.loc);
  });
  def(env, "range_input_producer", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "range_input_producer", {"limit", "num_epochs", "shuffle", "seed",
                                              "capacity", "shared_name", "name"});
    Value limit = requireArg(a, 0, "limit", "range_input_producer");
    Value range = ev.callWith(ev.builtin("range"), {Value::integer(0), limit},
                         {{"dtype", Value::dtype(ir::DType::kI32)}}, a.loc);
    return inputProducer(ev, range, std::nullopt, argOr(a, 1, "num_epochs", Value::none()),
                         ev.truthy(argOr(a, 2, "shuffle", Value::boolean(true)), a.loc),
                         argOr(a, 3, "seed", Value::none()),
                         toInt(argOr(a, 4, "capacity", Value::integer(32)), "capacity", a.loc),
                         argOr(a, 5, "shared_name", Value::none()),
                         toStr(argOr(a, 6, "name", Value::string("input_producer")), "name", a.loc),
                         Value::none(), a.loc);
  });
  def(env, "batch", [](EvaluatorImpl &ev, CallArgs &a) {
    return buildBatch(ev, parseBatch(ev, a, "batch", false, false), a.loc);
  });
  def(env, "batch_join", [](EvaluatorImpl &ev, CallArgs &a) {
    return buildBatch(ev, parseBatch(ev, a, "batch_join", false, true), a.loc);
  });
  def(env, "shuffle_batch", [](EvaluatorImpl &ev, CallArgs &a) {
    return buildBatch(ev, parseBatch(ev, a, "shuffle_batch", true, false), a.loc);
  });
  def(env, "shuffle_batch_join", [](EvaluatorImpl &ev, CallArgs &a) {
    return buildBatch(ev, parseBatch(ev, a, "shuffle_batch_join", true, true), a.loc);
  });
  (void)evaluator;
}

} // namespace sluice::frontend
