// frontend/eval/builtins_queues.cc: fifo_queue, random_shuffle_queue,
// padding_fifo_queue and priority_queue with TF1's Python arguments and
// checks (data_flow_ops.py), and the queue methods.
#include "frontend/eval/queue_object.h"

#include <algorithm>

#include "frontend/eval/interp.h"

namespace sluice::frontend {

namespace {

enum class QueueKind { kFifo, kPadding, kShuffle, kPriority };

std::string nameArg(CallArgs &a, size_t pos, const std::string &dflt) {
  Value v = argOr(a, pos, "name", Value::none());
  return v.isNone() ? dflt : toStr(v, "name", a.loc);
}

Value shapeValue(const ir::Shape &s) {
  if (!s.hasRank())
    return Value::none();
  List dims;
  for (int64_t d : s.dims())
    dims.push_back(d < 0 ? Value::none() : Value::integer(d));
  return Value::list(std::move(dims));
}

std::vector<ir::DType> typeList(const Value &v, const std::string &what, const SourceLoc &loc) {
  std::vector<ir::DType> out;
  if (v.isSequence())
    for (const Value &x : *v.asList())
      out.push_back(toDType(x, what, loc));
  else
    out.push_back(toDType(v, what, loc));
  return out;
}

// TF's _as_shape_list: a list of ints/none is one shape.
std::optional<std::vector<ir::Shape>> shapeList(const Value &v, bool unknownDimAllowed,
                                                const SourceLoc &loc) {
  if (v.isNone())
    return std::nullopt;
  std::vector<ir::Shape> out;
  if (v.is(Value::kHostTensor)) {
    out.push_back(toShape(v, "shapes", loc));
  } else if (!v.isSequence()) {
    throwError(Code::kTypeError,
               "shapes must be a TensorShape or a list or tuple of TensorShapes.", loc);
  } else {
    const List &items = *v.asList();
    bool single = std::all_of(items.begin(), items.end(), [](const Value &x) {
      return x.isNone() || x.is(Value::kInt);
    });
    if (single)
      out.push_back(toShape(v, "shapes", loc));
    else
      for (const Value &x : items)
        out.push_back(toShape(x, "shapes", loc));
  }
  auto text = [&] {
    std::string s = "[";
    for (size_t i = 0; i < out.size(); ++i)
      s += (i ? ", " : "") + out[i].str();
    return s + "]";
  };
  for (const auto &s : out) {
    if (!unknownDimAllowed && !s.isFullyDefined())
      throwError(Code::kValueError, "All shapes must be fully defined: " + text(), loc);
    if (!s.hasRank())
      throwError(Code::kValueError, "All shapes must have a defined rank: " + text(), loc);
  }
  return out;
}

uint32_t fnv1a(const std::string &s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s)
    h = (h ^ c) * 16777619u;
  return h;
}

Value makeQueue(EvaluatorImpl &ev, CallArgs &a, QueueKind kind) {
  bool shuffle = kind == QueueKind::kShuffle;
  bool priority = kind == QueueKind::kPriority;
  const char *fn = kind == QueueKind::kFifo      ? "fifo_queue"
                   : kind == QueueKind::kPadding ? "padding_fifo_queue"
                   : shuffle                     ? "random_shuffle_queue"
                                                 : "priority_queue";
  const char *typesKw = priority ? "types" : "dtypes";
  if (shuffle)
    checkKeywords(a, fn, {"capacity", "min_after_dequeue", "dtypes", "shapes", "names", "seed",
                          "shared_name", "name"});
  else
    checkKeywords(a, fn, {"capacity", typesKw, "shapes", "names", "shared_name", "name"});
  // Positional order: capacity, [min_after_dequeue,] dtypes, shapes, names,
  // [seed,] shared_name, name.
  size_t p = 0;
  int64_t capacity = toInt(requireArg(a, p++, "capacity", fn), "capacity", a.loc);
  int64_t minAfter = 0;
  if (shuffle)
    minAfter = toInt(requireArg(a, p++, "min_after_dequeue", fn), "min_after_dequeue", a.loc);
  std::vector<ir::DType> types = typeList(requireArg(a, p++, typesKw, fn), typesKw, a.loc);
  auto shapes = shapeList(argOr(a, p++, "shapes", Value::none()),
                          kind == QueueKind::kPadding, a.loc);
  Value namesV = argOr(a, p++, "names", Value::none());
  Value seedV = shuffle ? argOr(a, p++, "seed", Value::none()) : Value::none();
  Value sharedV = argOr(a, p++, "shared_name", Value::none());
  std::string sharedName = sharedV.isNone() ? "" : toStr(sharedV, "shared_name", a.loc);
  std::string name = nameArg(a, p, fn);

  if (kind == QueueKind::kPadding && !shapes)
    throwError(Code::kValueError,
               "When providing partial shapes, a list of shapes must be provided.", a.loc);
  if (shapes && shapes->size() != types.size())
    throwError(Code::kValueError, "Queue shapes must have the same length as dtypes", a.loc);

  auto q = std::make_shared<QueueObject>();
  q->dtypes = types;
  if (shapes)
    q->shapes = *shapes;
  if (priority) {
    q->dtypes.insert(q->dtypes.begin(), ir::DType::kI64);
    if (shapes)
      q->shapes.insert(q->shapes.begin(), ir::Shape::scalar());
  }
  if (!namesV.isNone()) {
    List names = namesV.isSequence() ? *namesV.asList() : List{namesV};
    if (names.size() != q->dtypes.size())
      throwError(Code::kValueError,
                 "List of names must have the same length as the list of dtypes", a.loc);
    for (const Value &n : names)
      q->names.push_back(toStr(n, "names", a.loc));
  }

  ir::AttrMap attrs{{"capacity", capacity},
                    {"component_types", types},
                    {"shapes", shapes ? *shapes : std::vector<ir::Shape>{}},
                    {"shared_name", sharedName}};
  if (shuffle) {
    std::optional<int64_t> opSeed;
    if (!seedV.isNone())
      opSeed = toInt(seedV, "seed", a.loc);
    auto [s1, s2] = ev.opSeeds(opSeed);
    // TF: with a graph seed, no op seed and a shared_name, seed2 depends
    // only on both, so every worker opens the same queue.
    if (!opSeed && ev.graph().graphSeed && !sharedName.empty())
      s2 = fnv1a(std::to_string(s1) + sharedName) & 0x7fffffff;
    attrs["min_after_dequeue"] = minAfter;
    attrs["seed"] = s1;
    attrs["seed2"] = s2;
  }
  Value h = ev.makeOp(fn, {}, std::move(attrs), a.loc, name);
  q->graph = h.asTensor().graph;
  q->handle = h.asTensor().out.node;
  return Value::object(q);
}

/// The component tensors of an enqueue: a dict on a queue with names,
/// else a list (or one value), each converted with its component dtype.
std::vector<ir::Output> components(EvaluatorImpl &ev, const QueueObject &q, const Value &vals,
                                   const SourceLoc &loc) {
  List items;
  if (vals.is(Value::kDict)) {
    if (q.names.empty())
      throwError(Code::kValueError, "Queue must have names to enqueue a dictionary", loc);
    std::vector<std::string> keys;
    for (const auto &[k, v] : vals.asDict()->items)
      keys.push_back(k.is(Value::kString) ? k.asString() : ev.repr(k, false));
    std::vector<std::string> want = q.names;
    std::sort(keys.begin(), keys.end());
    std::sort(want.begin(), want.end());
    if (keys != want) {
      auto join = [](const std::vector<std::string> &xs) {
        std::string s;
        for (const auto &x : xs)
          s += (s.empty() ? "'" : ", '") + x + "'";
        return s;
      };
      throwError(Code::kValueError,
                 "Keys in dictionary to enqueue do not match names of Queue.  Dictionary: (" +
                     join(keys) + "), Queue: (" + join(want) + ")",
                 loc);
    }
    for (const auto &n : q.names)
      items.push_back(*vals.asDict()->find(Value::string(n)));
  } else {
    if (!q.names.empty())
      throwError(Code::kValueError, "You must enqueue a dictionary in a Queue with names", loc);
    items = vals.isSequence() ? *vals.asList() : List{vals};
  }
  std::vector<ir::Output> out;
  for (size_t i = 0; i < items.size(); ++i)
    out.push_back(ev.toTensor(items[i], i < q.dtypes.size() ? std::optional(q.dtypes[i])
                                                            : std::nullopt,
                              loc));
  return out;
}

std::string baseName(const QueueObject &q) {
  const std::string &full = q.graph->graph->node(q.handle).name();
  auto slash = full.rfind('/');
  return slash == std::string::npos ? full : full.substr(slash + 1);
}

Value dequeueResult(const QueueObject &q, Value r) {
  if (q.names.empty())
    return r; // one component: the tensor itself, as in TF
  List outs = r.isSequence() ? *r.asList() : List{r};
  auto d = std::make_shared<Dict>();
  for (size_t i = 0; i < q.names.size() && i < outs.size(); ++i)
    d->set(Value::string(q.names[i]), outs[i]);
  return Value::dict(d);
}

} // namespace

std::optional<Value> QueueObject::getAttr(EvaluatorImpl &, const std::string &attr) {
  const ir::Node &node = graph->graph->node(handle);
  if (attr == "name")
    return Value::string(node.name());
  if (attr == "queue_ref")
    return Value::tensor(graph, {handle, 0});
  if (attr == "op")
    return Value::op(graph, handle);
  if (attr == "device")
    return Value::string(node.requestedDevice());
  if (attr == "dtypes") {
    List l;
    for (ir::DType t : dtypes)
      l.push_back(Value::dtype(t));
    return Value::list(std::move(l));
  }
  if (attr == "shapes") {
    List l;
    for (size_t i = 0; i < dtypes.size(); ++i)
      l.push_back(shapes.empty() ? Value::none() : shapeValue(shapes[i]));
    return Value::list(std::move(l));
  }
  if (attr == "names") {
    if (names.empty())
      return Value::none();
    List l;
    for (const auto &n : names)
      l.push_back(Value::string(n));
    return Value::list(std::move(l));
  }
  auto self = std::static_pointer_cast<QueueObject>(shared_from_this());
  auto method = [&](auto body) {
    return Value::builtin(attr, [self, body](EvaluatorImpl &ev, CallArgs &a) {
      if (self->graph != ev.ts().graph)
        throwError(Code::kValueError, "queue belongs to another graph", a.loc);
      return body(ev, a, *self);
    });
  };
  auto handleOut = [](const QueueObject &q) { return ir::Output{q.handle, 0}; };
  if (attr == "enqueue" || attr == "enqueue_many") {
    bool many = attr == "enqueue_many";
    return method([many, handleOut](EvaluatorImpl &ev, CallArgs &a, QueueObject &q) {
      const char *fn = many ? "enqueue_many" : "enqueue";
      checkKeywords(a, fn, {"vals", "name"});
      std::vector<ir::Output> ins{handleOut(q)};
      for (ir::Output o : components(ev, q, requireArg(a, 0, "vals", fn), a.loc))
        ins.push_back(o);
      return ev.makeOp(many ? "queue_enqueue_many" : "queue_enqueue", std::move(ins), {},
                       a.loc, nameArg(a, 1, baseName(q) + (many ? "_EnqueueMany" : "_enqueue")));
    });
  }
  if (attr == "dequeue")
    return method([handleOut](EvaluatorImpl &ev, CallArgs &a, QueueObject &q) {
      checkKeywords(a, "dequeue", {"name"});
      Value r = ev.makeOp("queue_dequeue", {handleOut(q)}, {{"component_types", q.dtypes}},
                          a.loc, nameArg(a, 0, baseName(q) + "_Dequeue"));
      return dequeueResult(q, r);
    });
  if (attr == "dequeue_many" || attr == "dequeue_up_to") {
    bool upTo = attr == "dequeue_up_to";
    return method([upTo, handleOut](EvaluatorImpl &ev, CallArgs &a, QueueObject &q) {
      const char *fn = upTo ? "dequeue_up_to" : "dequeue_many";
      checkKeywords(a, fn, {"n", "name"});
      ir::Output n = ev.toTensor(requireArg(a, 0, "n", fn), ir::DType::kI32, a.loc);
      Value r = ev.makeOp(upTo ? "queue_dequeue_up_to" : "queue_dequeue_many",
                          {handleOut(q), n}, {{"component_types", q.dtypes}}, a.loc,
                          nameArg(a, 1, baseName(q) + (upTo ? "_DequeueUpTo" : "_DequeueMany")));
      return dequeueResult(q, r);
    });
  }
  if (attr == "close")
    return method([handleOut](EvaluatorImpl &ev, CallArgs &a, QueueObject &q) {
      checkKeywords(a, "close", {"cancel_pending_enqueues", "name"});
      Value c = argOr(a, 0, "cancel_pending_enqueues", Value::boolean(false));
      return ev.makeOp("queue_close", {handleOut(q)},
                       {{"cancel_pending_enqueues", ev.truthy(c, a.loc)}}, a.loc,
                       nameArg(a, 1, baseName(q) + "_Close"));
    });
  if (attr == "size" || attr == "is_closed") {
    bool size = attr == "size";
    return method([size, handleOut](EvaluatorImpl &ev, CallArgs &a, QueueObject &q) {
      checkKeywords(a, size ? "size" : "is_closed", {"name"});
      return ev.makeOp(size ? "queue_size" : "queue_is_closed", {handleOut(q)}, {}, a.loc,
                       nameArg(a, 0, baseName(q) + (size ? "_Size" : "_is_closed")));
    });
  }
  return std::nullopt;
}

std::string QueueObject::repr() const {
  std::string s = "<queue '" + graph->graph->node(handle).name() + "' dtypes=[";
  for (size_t i = 0; i < dtypes.size(); ++i)
    s += (i ? ", " : "") + std::string(ir::dtypeName(dtypes[i]));
  return s + "]>";
}

void installQueueBuiltins(EvaluatorImpl &evaluator, Env &env) {
  auto def = [&](const char *name, QueueKind kind) {
    env.set(name, Value::builtin(name, [kind](EvaluatorImpl &ev, CallArgs &a) {
              return makeQueue(ev, a, kind);
            }));
  };
  def("fifo_queue", QueueKind::kFifo);
  def("padding_fifo_queue", QueueKind::kPadding);
  def("random_shuffle_queue", QueueKind::kShuffle);
  def("priority_queue", QueueKind::kPriority);
  (void)evaluator;
}

} // namespace sluice::frontend
