// frontend/eval/builtins_datasets.cc: tf.data in the language:
// dataset_from_tensor_slices, dataset_range, text_line_dataset, the dataset
// methods (map, filter, batch, shuffle, repeat, take, skip, prefetch) and
// iterators.
#include "frontend/eval/dataset_objects.h"
#include "frontend/eval/interp.h"

namespace sluice::frontend {

namespace {

ir::AttrMap signatureAttrs(const ElementSpec &s) {
  return {{"output_types", s.types}, {"output_shapes", s.shapes}};
}

Value makeDataset(EvaluatorImpl &ev, const std::string &op, std::vector<ir::Output> inputs,
                  ir::AttrMap attrs, ElementSpec spec, const SourceLoc &loc,
                  const std::string &name = "") {
  Value h = ev.makeOp(op, std::move(inputs), std::move(attrs), loc, name.empty() ? op : name);
  auto d = std::make_shared<DatasetObject>();
  d->graph = h.asTensor().graph;
  d->handle = h.asTensor().out;
  d->spec = std::move(spec);
  return Value::object(d);
}

std::string nameArg(CallArgs &a, size_t pos) {
  Value v = argOr(a, pos, "name", Value::none());
  return v.isNone() ? "" : toStr(v, "name", a.loc);
}

ir::Output i64Scalar(EvaluatorImpl &ev, const Value &v, const char *what, const SourceLoc &loc) {
  if (v.isSymbolic()) {
    ir::Output o = ev.toTensor(v, std::nullopt, loc);
    ir::DType t = ev.graph().graph->node(o.node).outputType(o.index);
    if (t == ir::DType::kI64)
      return o;
    if (!ir::isInteger(t))
      throwError(Code::kTypeError,
                 std::string(what) + " must be an integer, got " + std::string(ir::dtypeName(t)),
                 loc);
    return ev.makeOp("cast", {o}, {{"DstT", ir::DType::kI64}}, loc).asTensor().out;
  }
  return ev.toTensor(Value::integer(toInt(v, what, loc)), ir::DType::kI64, loc);
}

// dataset_from_tensor_slices(x): tuples and dicts are the element's
// structure; every leaf is sliced along its first dimension.
Value fromTensorSlices(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "dataset_from_tensor_slices", {"tensors", "name"});
  const Value &x = requireArg(a, 0, "tensors", "dataset_from_tensor_slices");
  std::vector<Value> leaves;
  ElementSpec spec;
  spec.structure = flattenValue(x, leaves);
  if (leaves.empty())
    throwError(Code::kValueError,
               "dataset_from_tensor_slices() needs at least one component, got an empty " +
                   x.typeName(),
               a.loc);
  std::vector<ir::Output> inputs;
  std::optional<int64_t> rows;
  std::string rowsFrom;
  for (size_t i = 0; i < leaves.size(); ++i) {
    ir::Output o = ev.toTensor(leaves[i], std::nullopt, a.loc);
    const ir::Node &n = ev.graph().graph->node(o.node);
    const ir::Shape &s = n.outputShape(o.index);
    if (s.hasRank() && s.rank() == 0)
      throwError(Code::kValueError,
                 "All components must be at least 1-dimensional: component " + std::to_string(i) +
                     " is a scalar",
                 a.loc);
    if (s.hasRank() && s.dims()[0] >= 0) {
      if (rows && *rows != s.dims()[0])
        throwError(Code::kValueError,
                   "Dimensions " + std::to_string(*rows) + " and " +
                       std::to_string(s.dims()[0]) + " are not compatible",
                   a.loc);
      rows = s.dims()[0];
    }
    spec.types.push_back(n.outputType(o.index));
    spec.shapes.push_back(
        s.hasRank() ? ir::Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()))
                    : ir::Shape::unknown());
    inputs.push_back(o);
  }
  ir::AttrMap attrs{{"Toutput_types", spec.types}, {"output_shapes", spec.shapes}};
  return makeDataset(ev, "tensor_slice_dataset", std::move(inputs), std::move(attrs),
                     std::move(spec), a.loc, nameArg(a, 1));
}

// dataset_range(stop) / (start, stop[, step]) as Python's range.
Value range(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "dataset_range", {"name"});
  size_t n = a.positional.size();
  if (n < 1 || n > 3)
    throwError(Code::kTypeError,
               "dataset_range() takes 1 to 3 arguments (stop | start, stop[, step]), got " +
                   std::to_string(n),
               a.loc);
  Value start = n == 1 ? Value::integer(0) : a.positional[0];
  Value stop = n == 1 ? a.positional[0] : a.positional[1];
  Value step = n == 3 ? a.positional[2] : Value::integer(1);
  if (step.is(Value::kInt) && step.asInt() == 0)
    throwError(Code::kValueError, "dataset_range() step must not be zero", a.loc);
  ElementSpec spec{Structure{}, {ir::DType::kI64}, {ir::Shape::scalar()}};
  std::vector<ir::Output> inputs{i64Scalar(ev, start, "start", a.loc),
                                 i64Scalar(ev, stop, "stop", a.loc),
                                 i64Scalar(ev, step, "step", a.loc)};
  return makeDataset(ev, "range_dataset", std::move(inputs), signatureAttrs(spec), spec, a.loc);
}

Value textLines(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "text_line_dataset", {"filenames", "name"});
  const Value &f = requireArg(a, 0, "filenames", "text_line_dataset");
  ir::Output files = ev.toTensor(f, ir::DType::kString, a.loc);
  ElementSpec spec{Structure{}, {ir::DType::kString}, {ir::Shape::scalar()}};
  return makeDataset(ev, "text_line_dataset", {files}, {}, spec, a.loc, nameArg(a, 1));
}

} // namespace

std::string DatasetObject::repr() const {
  return "<dataset " + spec.structure.str() + ">";
}

std::string IteratorObject::repr() const {
  return "<iterator '" + graph->graph->node(handle).name() + "'>";
}

Value specTypes(const ElementSpec &s) {
  std::vector<Value> leaves;
  for (ir::DType t : s.types)
    leaves.push_back(Value::dtype(t));
  size_t next = 0;
  return packValue(s.structure, leaves, next);
}

Value specShapes(const ElementSpec &s) {
  std::vector<Value> leaves;
  for (const ir::Shape &sh : s.shapes) {
    if (!sh.hasRank()) {
      leaves.push_back(Value::none());
      continue;
    }
    List dims;
    for (int64_t d : sh.dims())
      dims.push_back(d < 0 ? Value::none() : Value::integer(d));
    leaves.push_back(Value::list(std::move(dims)));
  }
  size_t next = 0;
  return packValue(s.structure, leaves, next);
}

std::optional<Value> DatasetObject::getAttr(EvaluatorImpl &ev, const std::string &attr) {
  if (attr == "output_types")
    return specTypes(spec);
  if (attr == "output_shapes")
    return specShapes(spec);
  auto self = std::static_pointer_cast<DatasetObject>(shared_from_this());
  auto method = [&](auto body) {
    return Value::builtin(attr, [self, body](EvaluatorImpl &e, CallArgs &a) {
      if (self->graph != e.ts().graph)
        throwError(Code::kValueError, "dataset belongs to another graph", a.loc);
      return body(e, a, *self);
    });
  };
  if (attr == "map" || attr == "filter") {
    bool isMap = attr == "map";
    return method([isMap](EvaluatorImpl &e, CallArgs &a, DatasetObject &d) {
      const char *fnName = isMap ? "map" : "filter";
      checkKeywords(a, fnName, {isMap ? "map_func" : "predicate", "name"});
      const Value &fn = requireArg(a, 0, isMap ? "map_func" : "predicate", fnName);
      TracedFunction t = traceFunction(e, fn, d.spec, fnName, a.loc);
      std::vector<ir::Output> inputs{d.handle};
      std::vector<ir::DType> captureTypes;
      for (const ir::Output &c : t.captured) {
        inputs.push_back(c);
        captureTypes.push_back(e.graph().graph->node(c.node).outputType(c.index));
      }
      if (isMap) {
        ir::AttrMap attrs = signatureAttrs(t.result);
        attrs["f"] = t.name;
        attrs["Targuments"] = captureTypes;
        return makeDataset(e, "map_dataset", std::move(inputs), std::move(attrs), t.result,
                           a.loc, nameArg(a, 1));
      }
      if (t.result.structure.kind != Structure::kTensor ||
          t.result.types[0] != ir::DType::kBool ||
          (t.result.shapes[0].hasRank() && t.result.shapes[0].rank() != 0))
        throwError(Code::kValueError,
                   "filter predicate must return a scalar bool tensor, got " +
                       t.result.structure.str() + " of " +
                       std::string(ir::dtypeName(t.result.types[0])) + " " +
                       t.result.shapes[0].str(),
                   a.loc);
      ir::AttrMap attrs = signatureAttrs(d.spec);
      attrs["predicate"] = t.name;
      attrs["Targuments"] = captureTypes;
      return makeDataset(e, "filter_dataset", std::move(inputs), std::move(attrs), d.spec, a.loc,
                         nameArg(a, 1));
    });
  }
  if (attr == "batch") {
    return method([](EvaluatorImpl &e, CallArgs &a, DatasetObject &d) {
      checkKeywords(a, "batch", {"batch_size", "drop_remainder", "name"});
      const Value &n = requireArg(a, 0, "batch_size", "batch");
      Value dropV = argOr(a, 1, "drop_remainder", Value::boolean(false));
      bool drop = e.truthy(dropV, a.loc);
      if (n.is(Value::kInt) && n.asInt() <= 0)
        throwError(Code::kValueError, "batch_size must be greater than zero, got " +
                                          std::to_string(n.asInt()), a.loc);
      int64_t lead = drop && n.is(Value::kInt) ? n.asInt() : -1;
      ElementSpec spec = d.spec;
      for (ir::Shape &s : spec.shapes)
        if (s.hasRank()) {
          std::vector<int64_t> dims{lead};
          dims.insert(dims.end(), s.dims().begin(), s.dims().end());
          s = ir::Shape(dims);
        }
      std::vector<ir::Output> inputs{d.handle, i64Scalar(e, n, "batch_size", a.loc),
                                     e.toTensor(Value::boolean(drop), ir::DType::kBool, a.loc)};
      return makeDataset(e, "batch_dataset", std::move(inputs), signatureAttrs(spec), spec, a.loc,
                         nameArg(a, 2));
    });
  }
  if (attr == "shuffle") {
    return method([](EvaluatorImpl &e, CallArgs &a, DatasetObject &d) {
      checkKeywords(a, "shuffle", {"buffer_size", "seed", "reshuffle_each_iteration", "name"});
      const Value &n = requireArg(a, 0, "buffer_size", "shuffle");
      Value seedV = argOr(a, 1, "seed", Value::none());
      Value reshuffleV = argOr(a, 2, "reshuffle_each_iteration", Value::boolean(true));
      std::optional<int64_t> seed;
      if (!seedV.isNone())
        seed = toInt(seedV, "seed", a.loc);
      auto [s1, s2] = e.opSeeds(seed);
      std::vector<ir::Output> inputs{d.handle, i64Scalar(e, n, "buffer_size", a.loc),
                                     i64Scalar(e, Value::integer(s1), "seed", a.loc),
                                     i64Scalar(e, Value::integer(s2), "seed2", a.loc)};
      ir::AttrMap attrs = signatureAttrs(d.spec);
      attrs["reshuffle_each_iteration"] = e.truthy(reshuffleV, a.loc);
      return makeDataset(e, "shuffle_dataset", std::move(inputs), std::move(attrs), d.spec,
                         a.loc, nameArg(a, 3));
    });
  }
  if (attr == "repeat") {
    return method([](EvaluatorImpl &e, CallArgs &a, DatasetObject &d) {
      checkKeywords(a, "repeat", {"count", "name"});
      Value c = argOr(a, 0, "count", Value::none());
      if (c.isNone())
        c = Value::integer(-1);
      std::vector<ir::Output> inputs{d.handle, i64Scalar(e, c, "count", a.loc)};
      return makeDataset(e, "repeat_dataset", std::move(inputs), signatureAttrs(d.spec), d.spec,
                         a.loc, nameArg(a, 1));
    });
  }
  if (attr == "take" || attr == "skip") {
    std::string op = attr + "_dataset";
    return method([op, attr](EvaluatorImpl &e, CallArgs &a, DatasetObject &d) {
      checkKeywords(a, attr, {"count", "name"});
      const Value &c = requireArg(a, 0, "count", attr);
      std::vector<ir::Output> inputs{d.handle, i64Scalar(e, c, "count", a.loc)};
      return makeDataset(e, op, std::move(inputs), signatureAttrs(d.spec), d.spec, a.loc,
                         nameArg(a, 1));
    });
  }
  if (attr == "prefetch") {
    return method([](EvaluatorImpl &e, CallArgs &a, DatasetObject &d) {
      checkKeywords(a, "prefetch", {"buffer_size", "name"});
      const Value &n = requireArg(a, 0, "buffer_size", "prefetch");
      std::vector<ir::Output> inputs{d.handle, i64Scalar(e, n, "buffer_size", a.loc)};
      return makeDataset(e, "prefetch_dataset", std::move(inputs), signatureAttrs(d.spec),
                         d.spec, a.loc, nameArg(a, 1));
    });
  }
  if (attr == "make_one_shot_iterator" || attr == "make_initializable_iterator") {
    bool oneShot = attr == "make_one_shot_iterator";
    return method([oneShot](EvaluatorImpl &e, CallArgs &a, DatasetObject &d) {
      const char *fnName = oneShot ? "make_one_shot_iterator" : "make_initializable_iterator";
      checkKeywords(a, fnName, {"shared_name", "name"});
      Value sharedV = argOr(a, 0, "shared_name", Value::none());
      std::string shared = sharedV.isNone() ? "" : toStr(sharedV, "shared_name", a.loc);
      std::string name = nameArg(a, 1);
      ir::AttrMap attrs = signatureAttrs(d.spec);
      attrs["shared_name"] = shared;
      auto it = std::make_shared<IteratorObject>();
      it->graph = &e.graph();
      it->spec = d.spec;
      if (oneShot) {
        Value h = e.makeOp("one_shot_iterator", {d.handle}, std::move(attrs), a.loc,
                           name.empty() ? "OneShotIterator" : name);
        it->handle = h.asTensor().out.node;
      } else {
        Value h = e.makeOp("iterator", {}, std::move(attrs), a.loc,
                           name.empty() ? "Iterator" : name);
        it->handle = h.asTensor().out.node;
        Value init = e.makeOp("make_iterator", {d.handle, {it->handle, 0}}, {}, a.loc,
                              "MakeIterator");
        it->initializer = init.asOp().node;
      }
      return Value::object(it);
    });
  }
  return std::nullopt;
}

std::optional<Value> IteratorObject::getAttr(EvaluatorImpl &ev, const std::string &attr) {
  if (attr == "output_types")
    return specTypes(spec);
  if (attr == "output_shapes")
    return specShapes(spec);
  if (attr == "initializer") {
    if (initializer < 0)
      throwError(Code::kValueError,
                 "a one-shot iterator has no initializer (it starts on first use); use "
                 "make_initializable_iterator() for one",
                 graph->graph->node(handle).loc());
    return Value::op(graph, initializer);
  }
  if (attr == "name")
    return Value::string(graph->graph->node(handle).name());
  auto self = std::static_pointer_cast<IteratorObject>(shared_from_this());
  if (attr == "get_next")
    return Value::builtin(attr, [self](EvaluatorImpl &e, CallArgs &a) {
      if (self->graph != e.ts().graph)
        throwError(Code::kValueError, "iterator belongs to another graph", a.loc);
      checkKeywords(a, "get_next", {"name"});
      std::string name = nameArg(a, 0);
      ir::AttrMap attrs = signatureAttrs(self->spec);
      ir::NodeSpec spec;
      Value out = e.makeOp("iterator_get_next", {{self->handle, 0}}, std::move(attrs), a.loc,
                           name.empty() ? "IteratorGetNext" : name);
      std::vector<Value> leaves;
      if (out.is(Value::kTensor))
        leaves.push_back(out);
      else
        leaves = *out.asList();
      size_t next = 0;
      return packValue(self->spec.structure, leaves, next);
    });
  return std::nullopt;
}

void installDatasetBuiltins(EvaluatorImpl &ev, Env &env) {
  (void)ev;
  env.set("dataset_from_tensor_slices", Value::builtin("dataset_from_tensor_slices", fromTensorSlices));
  env.set("dataset_range", Value::builtin("dataset_range", range));
  env.set("text_line_dataset", Value::builtin("text_line_dataset", textLines));
}

} // namespace sluice::frontend
