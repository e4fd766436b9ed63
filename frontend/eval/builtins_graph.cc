// frontend/eval/builtins_graph.cc: graph-building builtins. Every op in
// the registry is callable by its TF1 name; the few whose Python API is
// not a plain op (constant, variable, group, where, split) and the scope
// builders (name_scope, device, control_dependencies, colocate_with) are
// defined here.
#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"
#include "ir/op_registry.h"

namespace sluice::frontend {

namespace {

using BuiltinFn = std::function<Value(EvaluatorImpl &, CallArgs &)>;

void def(Env &env, const std::string &name, BuiltinFn fn) {
  env.set(name, Value::builtin(name, std::move(fn)));
}

std::string nameArg(CallArgs &a, const std::string &dflt) {
  Value v = argOr(a, 999, "name", Value::none());
  return v.isNone() ? dflt : toStr(v, "name", a.loc);
}

ir::NodeId nodeOf(EvaluatorImpl &ev, const Value &v, const SourceLoc &loc) {
  if (v.is(Value::kOp))
    return v.asOp().node;
  if (v.is(Value::kTensor))
    return v.asTensor().out.node;
  if (auto var = v.objectAs<VariableObject>())
    return var->info.initializer;
  throwError(Code::kTypeError, "expected a graph element, got a " + v.typeName(), loc);
}

Value makeVariable(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "variable", {"initial_value", "trainable", "name", "dtype", "shape",
                                "validate_shape", "collections"});
  const Value &init = requireArg(a, 0, "initial_value", "variable");
  Value dtypeV = argOr(a, 999, "dtype", Value::none());
  std::optional<ir::DType> dtype;
  if (!dtypeV.isNone())
    dtype = toDType(dtypeV, "dtype", a.loc);
  std::optional<ir::Shape> shape;
  if (Value shapeV = argOr(a, 999, "shape", Value::none()); !shapeV.isNone())
    shape = toShape(shapeV, "shape", a.loc);
  VariableOptions o;
  o.dtype = dtype;
  o.shape = shape;
  o.trainable = ev.truthy(argOr(a, 1, "trainable", Value::boolean(true)), a.loc);
  o.validateShape = ev.truthy(argOr(a, 999, "validate_shape", Value::boolean(true)), a.loc);
  return createVariable(ev, nameArg(a, "Variable"), init, o, a.loc);
}

} // namespace

Value createVariable(EvaluatorImpl &ev, const std::string &baseName, const Value &init,
                     const VariableOptions &o, const SourceLoc &loc) {
  std::string name = ev.scopedName(baseName);
  std::optional<ir::DType> dtype = o.dtype;
  // The initial value and the ops the variable creates live under its name.
  ir::Output initOut = [&] {
    NameScopeGuard under(ev.ts(), name + "/");
    return ev.toTensor(init, dtype ? dtype : ev.symbolicDType(init), loc);
  }();
  GraphContext &g = ev.graph();
  const ir::Node &initNode = g.graph->node(initOut.node);
  ir::DType vt = initNode.outputType(initOut.index);
  if (dtype && *dtype != vt)
    initOut = ev.makeOp("cast", {initOut}, {{"dtype", *dtype}}, loc, name + "/cast").asTensor().out;
  ir::Shape shape = o.shape ? *o.shape : g.graph->node(initOut.node).outputShape(initOut.index);
  ir::NodeSpec var;
  var.op = "variable";
  var.name = name;
  var.attrs = {{"dtype", dtype ? *dtype : vt}, {"shape", shape}};
  var.loc = loc;
  if (o.colocateWith) {
    // Slots live with their variable, whatever the scopes say.
    const ir::Node &with = g.graph->node(*o.colocateWith);
    var.colocateWith = {with.name()};
    var.requestedDevice = with.requestedDevice();
  }
  ir::Node &handle = ev.addNode(std::move(var), !o.colocateWith);
  auto colocated = [&](const std::string &op, const std::string &suffix,
                       std::vector<ir::Output> ins, ir::AttrMap attrs) -> ir::Node & {
    ir::NodeSpec s;
    s.op = op;
    s.name = g.graph->uniqueName(name + "/" + suffix);
    s.inputs = std::move(ins);
    s.attrs = std::move(attrs);
    s.loc = loc;
    s.colocateWith = {name};
    // Initializer and read follow the variable's device, not the scopes.
    ir::Node &n = ev.addNode(std::move(s), false);
    n.setRequestedDevice(handle.requestedDevice());
    return n;
  };
  ir::Node &assign = colocated("assign", "Assign", {{handle.id(), 0}, initOut},
                               {{"validate_shape", o.validateShape}});
  ir::Node &read = colocated("read_variable", "read", {{handle.id(), 0}},
                             {{"dtype", dtype ? *dtype : vt}});
  VariableInfo info{handle.id(), assign.id(), {read.id(), 0}, o.trainable};
  g.globalVariables.push_back(info);
  return Value::object(std::make_shared<VariableObject>(&g, info));
}

namespace {

Value initializerFor(EvaluatorImpl &ev, const std::vector<VariableInfo> &vars,
                     const std::string &name, const SourceLoc &loc) {
  ir::NodeSpec s;
  s.op = "no_op";
  s.name = ev.scopedName(name);
  s.loc = loc;
  for (const auto &v : vars)
    s.controlInputs.push_back(v.initializer);
  ir::Node &n = ev.addNode(std::move(s));
  return Value::op(ev.ts().graph, n.id());
}

} // namespace

void installGraphBuiltins(EvaluatorImpl &evaluator, Env &env) {
  for (const std::string &name : ir::opRegistry().names()) {
    const ir::OpDef *op = ir::opRegistry().find(name);
    def(env, name, [op](EvaluatorImpl &ev, CallArgs &a) { return ev.callOp(*op, a); });
  }

  def(env, "constant", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "constant", {"value", "dtype", "shape", "name", "verify_shape"});
    const Value &v = requireArg(a, 0, "value", "constant");
    Value dt = argOr(a, 1, "dtype", Value::none());
    Value shapeV = argOr(a, 2, "shape", Value::none());
    std::optional<ir::DType> dtype;
    if (!dt.isNone())
      dtype = toDType(dt, "dtype", a.loc);
    ir::Tensor t = ev.hostToTensor(v, dtype, a.loc);
    if (!shapeV.isNone()) {
      ir::Shape s = toShape(shapeV, "shape", a.loc);
      if (!s.isFullyDefined())
        throwError(Code::kValueError, "constant() needs a fully defined shape", a.loc);
      if (t.numElements() == 1 && s.numElements() != 1) {
        ir::Tensor filled = ir::Tensor::uninitialized(t.dtype(), s.dims());
        for (int64_t i = 0; i < filled.numElements(); ++i) {
          if (ir::isPod(t.dtype()))
            std::memcpy(static_cast<char *>(filled.rawData()) + i * ir::dtypeSize(t.dtype()),
                        t.rawData(), ir::dtypeSize(t.dtype()));
          else
            filled.strings()[i] = t.strings()[0];
        }
        t = filled;
      } else if (t.numElements() == s.numElements()) {
        t = t.reshaped(s.dims());
      } else {
        throwError(Code::kTypeError,
                   "Expected Tensor's shape: " + s.str() + ", got " + ir::dimsString(t.dims()) + ".",
                   a.loc);
      }
    }
    return ev.makeOp("constant", {}, {{"value", t}, {"dtype", t.dtype()}}, a.loc,
                     nameArg(a, "Const"));
  });
  def(env, "variable", makeVariable);
  def(env, "global_variables_initializer", [](EvaluatorImpl &ev, CallArgs &a) {
    return initializerFor(ev, ev.graph().globalVariables, "init", a.loc);
  });
  def(env, "initialize_all_variables", [](EvaluatorImpl &ev, CallArgs &a) {
    return initializerFor(ev, ev.graph().globalVariables, "init", a.loc);
  });
  def(env, "variables_initializer", [](EvaluatorImpl &ev, CallArgs &a) {
    std::vector<VariableInfo> vars;
    for (const Value &v : ev.iterate(requireArg(a, 0, "var_list", "variables_initializer"), a.loc)) {
      auto var = v.objectAs<VariableObject>();
      if (!var)
        throwError(Code::kTypeError, "variables_initializer() needs variables", a.loc);
      vars.push_back(var->info);
    }
    return initializerFor(ev, vars, nameArg(a, "init"), a.loc);
  });
  def(env, "global_variables", [](EvaluatorImpl &ev, CallArgs &a) {
    List out;
    for (const auto &v : ev.graph().globalVariables)
      out.push_back(Value::object(std::make_shared<VariableObject>(ev.ts().graph, v)));
    return Value::list(std::move(out));
  });
  def(env, "group", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "group", {"name"});
    ir::NodeSpec s;
    s.op = "no_op";
    s.name = ev.scopedName(nameArg(a, "group_deps"));
    s.loc = a.loc;
    std::function<void(const Value &)> add = [&](const Value &v) {
      if (v.isSequence()) {
        for (const Value &x : *v.asList())
          add(x);
        return;
      }
      s.controlInputs.push_back(nodeOf(ev, v, a.loc));
    };
    for (const Value &v : a.positional)
      add(v);
    ir::Node &n = ev.addNode(std::move(s));
    return Value::op(ev.ts().graph, n.id());
  });
  def(env, "where", [](EvaluatorImpl &ev, CallArgs &a) {
    bool three = a.positional.size() >= 2 || argAt(a, 99, "x") || argAt(a, 99, "y");
    return ev.callOp(*ir::opRegistry().find(three ? "select" : "where"), a);
  });
  def(env, "split", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "split", {"value", "num_or_size_splits", "axis", "num", "name"});
    const Value &v = requireArg(a, 0, "value", "split");
    const Value &n = requireArg(a, 1, "num_or_size_splits", "split");
    CallArgs b;
    b.loc = a.loc;
    b.positional = {v};
    b.positionalLocs = {a.loc};
    b.keywords.emplace_back(n.is(Value::kInt) ? "num_split" : "size_splits", n);
    b.keywordLocs.push_back(a.loc);
    if (const Value *axis = argAt(a, 2, "axis")) {
      b.keywords.emplace_back("axis", *axis);
      b.keywordLocs.push_back(a.loc);
    }
    if (const Value *name = argAt(a, 99, "name")) {
      b.keywords.emplace_back("name", *name);
      b.keywordLocs.push_back(a.loc);
    }
    Value r = ev.callOp(*ir::opRegistry().find("split"), b);
    if (r.is(Value::kTensor))
      return Value::list({r}); // one split is still a list, as in TF
    return r;
  });
  def(env, "set_random_seed", [](EvaluatorImpl &ev, CallArgs &a) {
    const Value &s = requireArg(a, 0, "seed", "set_random_seed");
    if (s.isNone())
      ev.graph().graphSeed.reset();
    else
      ev.graph().graphSeed = toInt(s, "seed", a.loc);
    return Value::none();
  });

  def(env, "name_scope", [](EvaluatorImpl &ev, CallArgs &a) {
    Value nameV = requireArg(a, 0, "name", "name_scope");
    std::string name = nameV.isNone() ? "" : toStr(nameV, "name", a.loc);
    return Value::object(std::make_shared<ScopeObject>(
        "name_scope", [name](EvaluatorImpl &ev, const SourceLoc &loc) {
          ThreadState &t = ev.ts();
          if (name.empty()) {
            t.nameScopes.push_back("");
            return Value::string("");
          }
          if (name.back() == '/') { // an absolute scope, reused as is
            t.nameScopes.push_back(name);
            return Value::string(name);
          }
          std::string scope = ev.uniqueScope(name);
          t.nameScopes.push_back(scope);
          return Value::string(scope);
        }));
  });
  def(env, "device", [](EvaluatorImpl &ev, CallArgs &a) {
    Value d = requireArg(a, 0, "device_name_or_function", "device");
    DeviceScope scope;
    if (d.isNone()) {
      scope.kind = DeviceScope::kClear;
    } else if (d.is(Value::kFunction) || d.is(Value::kBuiltin)) {
      scope.kind = DeviceScope::kFunction;
      scope.fn = d;
    } else if (auto ds = d.objectAs<DeviceSpecObject>()) {
      scope.spec = ds->spec;
    } else {
      auto parsed = ir::DeviceSpec::parse(toStr(d, "device", a.loc));
      if (!parsed.hasValue())
        throwStatus(parsed.takeStatus(), a.loc);
      scope.spec = *parsed;
    }
    return Value::object(std::make_shared<ScopeObject>(
        "device", [scope](EvaluatorImpl &ev, const SourceLoc &) {
          ev.ts().devices.push_back(scope);
          return Value::none();
        }));
  });
  def(env, "control_dependencies", [](EvaluatorImpl &ev, CallArgs &a) {
    const Value &v = requireArg(a, 0, "control_inputs", "control_dependencies");
    std::vector<ir::NodeId> deps;
    bool clear = v.isNone();
    if (!clear)
      for (const Value &x : ev.iterate(v, a.loc))
        deps.push_back(nodeOf(ev, x, a.loc));
    return Value::object(std::make_shared<ScopeObject>(
        "control_dependencies", [deps, clear](EvaluatorImpl &ev, const SourceLoc &) {
          ThreadState &t = ev.ts();
          if (clear) // control_dependencies(none) starts afresh, as in TF
            t.controlDeps.clear();
          t.controlDeps.push_back(deps);
          return Value::none();
        }));
  });
  def(env, "colocate_with", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "colocate_with", {"op", "ignore_existing"});
    const Value &v = requireArg(a, 0, "op", "colocate_with");
    bool ignoreExisting = ev.truthy(argOr(a, 1, "ignore_existing", Value::boolean(false)), a.loc);
    if (v.isNone() && !ignoreExisting)
      throwError(Code::kValueError,
                 "Trying to reset colocation (op is None) but ignore_existing is not True",
                 a.loc);
    std::vector<std::string> names;
    if (auto var = v.objectAs<VariableObject>())
      names.push_back(ev.graph().graph->node(var->info.handle).name());
    else if (!v.isNone())
      names.push_back(ev.graph().graph->node(nodeOf(ev, v, a.loc)).name());
    return Value::object(std::make_shared<ScopeObject>(
        "colocate_with", [names, ignoreExisting](EvaluatorImpl &ev, const SourceLoc &) {
          ThreadState &t = ev.ts();
          if (ignoreExisting)
            t.colocations.clear();
          if (!names.empty())
            t.colocations.push_back(names);
          // As in TF, colocation is stronger than the device scopes open
          // outside it: ops inside take the colocated op's device.
          DeviceScope reset;
          reset.kind = DeviceScope::kClear;
          t.devices.push_back(reset);
          return Value::none();
        }));
  });
  def(env, "device_spec", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "device_spec", {"job", "replica", "task", "device_type", "device_index"});
    ir::DeviceSpec spec;
    if (!a.positional.empty()) {
      auto parsed = ir::DeviceSpec::parse(toStr(a.positional[0], "device", a.loc));
      if (!parsed.hasValue())
        throwStatus(parsed.takeStatus(), a.loc);
      spec = *parsed;
    }
    auto field = [&](const char *name) { return argOr(a, 999, name, Value::none()); };
    if (Value v = field("job"); !v.isNone())
      spec.job = toStr(v, "job", a.loc);
    if (Value v = field("replica"); !v.isNone())
      spec.replica = static_cast<int>(toInt(v, "replica", a.loc));
    if (Value v = field("task"); !v.isNone())
      spec.task = static_cast<int>(toInt(v, "task", a.loc));
    if (Value v = field("device_type"); !v.isNone()) {
      std::string s = toStr(v, "device_type", a.loc);
      for (char &c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      spec.deviceType = s;
    }
    if (Value v = field("device_index"); !v.isNone())
      spec.deviceIndex = static_cast<int>(toInt(v, "device_index", a.loc));
    return Value::object(std::make_shared<DeviceSpecObject>(spec));
  });
  def(env, "requested_device", [](EvaluatorImpl &ev, CallArgs &a) {
    const Value &v = requireArg(a, 0, "x", "requested_device");
    ir::NodeId id;
    GraphContext *g;
    if (auto var = v.objectAs<VariableObject>()) {
      id = var->info.handle;
      g = var->graph;
    } else if (v.is(Value::kOp)) {
      id = v.asOp().node;
      g = v.asOp().graph;
    } else if (v.is(Value::kTensor)) {
      id = v.asTensor().out.node;
      g = v.asTensor().graph;
    } else {
      throwError(Code::kTypeError, "requested_device() needs a graph element", a.loc);
    }
    return Value::string(g->graph->node(id).requestedDevice());
  });
  (void)evaluator;
}

} // namespace sluice::frontend
