// frontend/eval/eval_ops.cc: building nodes from calls. Arguments bind
// like TF1's Python signatures (positional in TF's order or by keyword);
// the name, device, control-dependency and colocation scopes apply.
#include <mutex>

#include "backend/kernel_registry.h"
#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"
#include "ir/op_registry.h"

namespace sluice::frontend {

// The scope state of the evaluating thread; the main thread's lives in the
// evaluator, spawned threads and tests install their own.
thread_local ThreadState *tlsThreadState = nullptr;

ThreadState &EvaluatorImpl::ts() {
  return tlsThreadState ? *tlsThreadState : mainState;
}

std::string EvaluatorImpl::scopedName(const std::string &base) {
  ThreadState &t = ts();
  std::string prefix = t.nameScopes.empty() ? "" : t.nameScopes.back();
  return graph().graph->uniqueName(prefix + base);
}

std::string EvaluatorImpl::uniqueScope(const std::string &name) {
  ThreadState &t = ts();
  std::string base = (t.nameScopes.empty() ? "" : t.nameScopes.back()) + name;
  GraphContext &g = graph();
  std::string unique = base;
  for (int i = 1; g.usedScopes.count(unique) || g.graph->isNameUsed(unique); ++i)
    unique = base + "_" + std::to_string(i);
  g.usedScopes.insert(unique);
  return unique + "/";
}

ir::Node &EvaluatorImpl::addNode(ir::NodeSpec spec, bool applyScopes) {
  ThreadState &t = ts();
  GraphContext &g = graph();
  if (applyScopes) {
    for (const auto &deps : t.controlDeps)
      for (ir::NodeId d : deps)
        if (std::find(spec.controlInputs.begin(), spec.controlInputs.end(), d) ==
            spec.controlInputs.end())
          spec.controlInputs.push_back(d);
    for (const auto &group : t.colocations)
      for (const auto &name : group)
        spec.colocateWith.push_back(name);
  }
  ir::Node *node;
  {
    std::unique_lock lock(g.mutex);
    auto added = g.graph->addNode(std::move(spec));
    if (!added.hasValue()) {
      Status s = added.takeStatus();
      throw LangError{std::move(s)};
    }
    node = *added;
  }
  if (applyScopes && !t.devices.empty()) {
    // TF's _apply_device_functions: innermost scope first; a string scope
    // fills only fields still unset, a function may overwrite, device(none)
    // hides every outer scope.
    std::string device = node->requestedDevice();
    for (auto it = t.devices.rbegin(); it != t.devices.rend(); ++it) {
      if (it->kind == DeviceScope::kClear)
        break;
      if (it->kind == DeviceScope::kSpec) {
        ir::DeviceSpec merged = it->spec;
        auto current = ir::DeviceSpec::parse(device);
        if (current.hasValue())
          merged.mergeFrom(*current);
        device = merged.toString();
      } else {
        node->setRequestedDevice(device);
        CallArgs a;
        a.positional.push_back(Value::op(&g, node->id()));
        a.loc = node->loc();
        Value r = call(it->fn, a);
        if (r.isNone())
          continue;
        if (auto ds = r.objectAs<DeviceSpecObject>()) {
          device = ds->spec.toString();
          continue;
        }
        if (!r.is(Value::kString))
          throwError(Code::kTypeError,
                     "a device function must return a device string, got " + r.typeName(),
                     node->loc());
        auto canon = ir::canonicalDevice(r.asString());
        if (!canon.hasValue())
          throwStatus(canon.takeStatus(), node->loc());
        device = *canon;
      }
    }
    node->setRequestedDevice(device);
  }
  if (applyScopes) {
    // An op that uses a variable, queue or reader runs where the resource
    // lives, whatever the device scope says: TF colocates ops with ref
    // inputs the same way ("colocation is stronger than device
    // functions"), and a ps queue filled and drained by workers needs it.
    for (const ir::Output &in : node->inputs()) {
      const ir::Node &src = g.graph->node(in.node);
      if (src.outputType(in.index) != ir::DType::kResource)
        continue;
      node->setRequestedDevice(src.requestedDevice());
      break;
    }
    // TF's colocation stack: the innermost colocated op with a device
    // gives its device to the new op, overriding the device scopes.
    for (auto group = t.colocations.rbegin(); group != t.colocations.rend(); ++group) {
      const ir::Node *with = nullptr;
      for (const auto &name : *group)
        if (const ir::Node *n = g.graph->findNode(name); n && !n->requestedDevice().empty()) {
          with = n;
          break;
        }
      if (with) {
        node->setRequestedDevice(with->requestedDevice());
        break;
      }
    }
  }
  return *node;
}

Value EvaluatorImpl::makeOp(const std::string &opName, std::vector<ir::Output> inputs,
                            ir::AttrMap attrs, const SourceLoc &loc, std::string name) {
  ir::NodeSpec spec;
  spec.op = opName;
  spec.name = scopedName(name.empty() ? opName : name);
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  spec.loc = loc;
  ir::Node &n = addNode(std::move(spec));
  GraphContext *g = ts().graph;
  if (n.numOutputs() == 0)
    return Value::op(g, n.id());
  if (n.numOutputs() == 1)
    return Value::tensor(g, {n.id(), 0});
  List outs;
  for (int i = 0; i < n.numOutputs(); ++i)
    outs.push_back(Value::tensor(g, {n.id(), i}));
  return Value::list(std::move(outs));
}

namespace {

ir::AttrValue toAttr(EvaluatorImpl &ev, const ir::AttrDef &def, const Value &v,
                     const SourceLoc &loc) {
  const std::string what = "attribute '" + def.name + "'";
  auto listOf = [&](auto convert) {
    using T = decltype(convert(v));
    std::vector<T> out;
    if (v.isSequence()) {
      for (const Value &x : *v.asList())
        out.push_back(convert(x));
    } else if (v.is(Value::kHostTensor) && v.asHostTensor().rank() == 1) {
      for (const Value &x : ev.iterate(v, loc))
        out.push_back(convert(x));
    } else {
      out.push_back(convert(v));
    }
    return out;
  };
  switch (def.type) {
  case ir::AttrType::kInt: return toInt(v, what, loc);
  case ir::AttrType::kFloat: return toNumber(v, what, loc);
  case ir::AttrType::kBool:
    if (!v.is(Value::kBool))
      throwError(Code::kTypeError, what + " must be a bool, got " + v.typeName(), loc);
    return v.asBool();
  case ir::AttrType::kString: return toStr(v, what, loc);
  case ir::AttrType::kType: return toDType(v, what, loc);
  case ir::AttrType::kShape: return toShape(v, what, loc);
  case ir::AttrType::kTensor: return ev.hostToTensor(v, std::nullopt, loc);
  case ir::AttrType::kIntList:
    return listOf([&](const Value &x) { return toInt(x, what, loc); });
  case ir::AttrType::kFloatList:
    return listOf([&](const Value &x) { return toNumber(x, what, loc); });
  case ir::AttrType::kStringList:
    return listOf([&](const Value &x) { return toStr(x, what, loc); });
  case ir::AttrType::kTypeList:
    return listOf([&](const Value &x) { return toDType(x, what, loc); });
  case ir::AttrType::kShapeList: {
    std::vector<ir::Shape> out;
    if (!v.isSequence())
      throwError(Code::kTypeError, what + " must be a list of shapes", loc);
    for (const Value &x : *v.asList())
      out.push_back(toShape(x, what, loc));
    return out;
  }
  }
  throwError(Code::kInternal, "unknown attribute type", loc);
}

} // namespace

Value EvaluatorImpl::callOp(const ir::OpDef &op, CallArgs &args) {
  std::map<std::string, std::pair<Value, SourceLoc>> bound;
  std::string nodeName;
  if (args.positional.size() > op.signature.size())
    throwError(Code::kTypeError,
               op.name + "() takes at most " + std::to_string(op.signature.size()) +
                   " positional arguments but " +
                   std::to_string(args.positional.size()) + " were given",
               args.loc);
  for (size_t i = 0; i < args.positional.size(); ++i)
    bound[op.signature[i]] = {args.positional[i], args.positionalLocs[i]};
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    std::string key = args.keywords[k].first;
    if (key == "name") {
      nodeName = toStr(args.keywords[k].second, "name", args.keywordLocs[k]);
      continue;
    }
    for (const auto &[from, to] : op.aliases)
      if (key == from)
        key = to;
    // Keywords are TF's Python argument names (the signature), or an
    // attribute by its own name (split's num_split/size_splits behind
    // num_or_size_splits).
    bool known = std::find(op.signature.begin(), op.signature.end(), key) != op.signature.end() ||
                 op.findAttr(key) != nullptr;
    if (!known)
      throwError(Code::kTypeError,
                 op.name + "() got an unexpected keyword argument '" + args.keywords[k].first + "'",
                 args.keywordLocs[k]);
    if (bound.count(key))
      throwError(Code::kTypeError,
                 op.name + "() got multiple values for argument '" + key + "'",
                 args.keywordLocs[k]);
    bound[key] = {args.keywords[k].second, args.keywordLocs[k]};
  }
  // Type attrs: given explicitly, else from the symbolic inputs bound to
  // them, else their default; host literals then take that dtype.
  std::map<std::string, ir::DType> types;
  for (const auto &a : op.attrs)
    if (a.type == ir::AttrType::kType && bound.count(a.name) && !bound[a.name].first.isNone())
      types[a.name] = toDType(bound[a.name].first, "attribute '" + a.name + "'", bound[a.name].second);
  for (const auto &in : op.inputs) {
    if (in.typeAttr.empty() || types.count(in.typeAttr) || !bound.count(in.name))
      continue;
    const Value &v = bound[in.name].first;
    if (v.isSymbolic() || v.objectAs<VariableObject>() || v.is(Value::kHostTensor) ||
        (v.isSequence() && symbolicDType(v)))
      if (auto t = symbolicDType(v))
        types[in.typeAttr] = *t;
  }
  // An op updating a variable (assign_add, count_up_to) takes its value
  // type from the variable, so `assign_add(v, 1)` on an f32 v adds 1.0.
  std::optional<std::string> typeFromVariable;
  for (const auto &in : op.inputs) {
    if (in.fixedType != ir::DType::kResource || !bound.count(in.name))
      continue;
    if (auto var = bound[in.name].first.objectAs<VariableObject>()) {
      for (const auto &a : op.attrs)
        if (a.type == ir::AttrType::kType && !types.count(a.name)) {
          types[a.name] = *symbolicDType(bound[in.name].first);
          typeFromVariable = a.name;
          break;
        }
    }
    break;
  }
  std::vector<ir::Output> inputs;
  for (const auto &in : op.inputs) {
    auto it = bound.find(in.name);
    if (it == bound.end())
      throwError(Code::kTypeError,
                 op.name + "() missing required argument '" + in.name + "'", args.loc);
    const auto &[v, loc] = it->second;
    std::optional<ir::DType> want;
    if (in.fixedType != ir::DType::kInvalid)
      want = in.fixedType;
    else if (types.count(in.typeAttr))
      want = types[in.typeAttr];
    else if (const ir::AttrDef *d = op.findAttr(in.typeAttr); d && d->defaultValue)
      want = std::get<ir::DType>(*d->defaultValue);
    if (in.fixedType == ir::DType::kResource) {
      auto handle = v.objectAs<HandleObject>();
      if (handle) {
        inputs.push_back(
            captureInto(graph(), handle->handleGraph(), handle->handleOutput(), "resource", loc));
        continue;
      }
      if (!v.is(Value::kTensor))
        throwError(Code::kTypeError,
                   op.name + "() needs a variable, queue or reader for '" + in.name +
                       "', got " + v.typeName(),
                   loc);
    }
    if (in.isList()) {
      if (!v.isSequence())
        throwError(Code::kTypeError,
                   op.name + "() needs a list of tensors for '" + in.name + "', got " +
                       v.typeName(),
                   loc);
      for (const Value &x : *v.asList())
        inputs.push_back(toTensor(x, want, loc));
      if (!in.typeAttr.empty() && !types.count(in.typeAttr) && !inputs.empty())
        types[in.typeAttr] = graph().graph->node(inputs.back().node).outputType(inputs.back().index);
      continue;
    }
    ir::Output o = toTensor(v, want, loc);
    if (!in.typeAttr.empty() && !types.count(in.typeAttr))
      types[in.typeAttr] = graph().graph->node(o.node).outputType(o.index);
    inputs.push_back(o);
  }
  ir::AttrMap attrs;
  for (const auto &a : op.attrs) {
    auto it = bound.find(a.name);
    if (it == bound.end() || it->second.first.isNone())
      continue;
    attrs[a.name] = toAttr(*this, a, it->second.first, it->second.second);
  }
  // An output-only type attr (count_up_to's T) is not bound from inputs.
  if (typeFromVariable && !attrs.count(*typeFromVariable))
    attrs[*typeFromVariable] = types[*typeFromVariable];
  if (op.findAttr("seed") && op.findAttr("seed2")) {
    std::optional<int64_t> opSeed;
    if (attrs.count("seed"))
      opSeed = std::get<int64_t>(attrs["seed"]);
    auto [s1, s2] = opSeeds(opSeed);
    attrs["seed"] = s1;
    attrs["seed2"] = s2;
  }
  return makeOp(op.name, std::move(inputs), std::move(attrs), args.loc, nodeName);
}

std::pair<int64_t, int64_t> EvaluatorImpl::opSeeds(std::optional<int64_t> opSeed) {
  constexpr int64_t kDefaultGraphSeed = 87654321;
  GraphContext &g = graph();
  int64_t s1 = 0, s2 = 0;
  if (g.graphSeed) {
    s1 = *g.graphSeed;
    s2 = opSeed ? *opSeed : g.graph->numNodes();
  } else if (opSeed) {
    s1 = kDefaultGraphSeed;
    s2 = *opSeed;
  } else {
    return {0, 0};
  }
  if (s1 == 0 && s2 == 0)
    s2 = 0x7fffffff; // (0, 0) would mean "nondeterministic" to the kernel
  return {s1, s2};
}

ir::Tensor EvaluatorImpl::eager(const std::string &opName, std::vector<ir::Tensor> inputs,
                                ir::AttrMap attrs, const SourceLoc &loc) {
  ir::Graph g;
  std::vector<ir::Output> outs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ir::NodeSpec c;
    c.op = "constant";
    c.name = "in" + std::to_string(i);
    c.attrs = {{"value", inputs[i]}, {"dtype", inputs[i].dtype()}};
    auto n = g.addNode(std::move(c));
    if (!n.hasValue())
      throwStatus(n.takeStatus(), loc);
    outs.push_back({(*n)->id(), 0});
  }
  ir::NodeSpec spec;
  spec.op = opName;
  spec.name = opName;
  spec.inputs = outs;
  spec.attrs = std::move(attrs);
  spec.loc = loc;
  auto n = g.addNode(std::move(spec));
  if (!n.hasValue()) {
    Status s = n.takeStatus();
    throwStatus(Status(s.code(), s.message(), loc), loc);
  }
  auto kernel = backend::kernelRegistry().create(**n, "CPU");
  if (!kernel.hasValue())
    throwStatus(kernel.takeStatus(), loc);
  std::vector<const ir::Tensor *> ptrs;
  for (auto &t : inputs)
    ptrs.push_back(&t);
  std::vector<ir::Tensor> results((*n)->numOutputs());
  backend::KernelContext::Params p;
  p.node = *n;
  p.inputs = ptrs.data();
  p.numInputs = static_cast<int>(ptrs.size());
  p.outputs = results.data();
  p.numOutputs = static_cast<int>(results.size());
  backend::KernelContext ctx(p);
  (*kernel)->compute(ctx);
  if (!ctx.ok()) {
    Status s = ctx.status();
    throwStatus(Status(s.code(), s.message(), loc), loc);
  }
  return results.empty() ? ir::Tensor() : results[0];
}

} // namespace sluice::frontend
