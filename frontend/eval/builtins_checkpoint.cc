// frontend/eval/builtins_checkpoint.cc: saver(), the checkpoint helpers
// (latest_checkpoint, get_checkpoint_state, checkpoint_exists,
// list_variables, load_variable), the global step (create_global_step,
// get_global_step, get_or_create_global_step) and
// report_uninitialized_variables, with TF1's names and rules.
#include <iostream>
#include <set>

#include "backend/io/checkpoint.h"
#include "frontend/eval/checkpoint_objects.h"

namespace sluice::frontend {

namespace io = backend::io;

namespace {

using BuiltinFn = std::function<Value(EvaluatorImpl &, CallArgs &)>;

void def(Env &env, const std::string &name, BuiltinFn fn) {
  env.set(name, Value::builtin(name, std::move(fn)));
}

std::string nameOf(GraphContext &g, const VariableInfo &v) {
  return g.graph->node(v.handle).name();
}

VariableInfo variableOf(EvaluatorImpl &ev, const Value &v, const SourceLoc &loc) {
  auto var = v.objectAs<VariableObject>();
  if (!var)
    throwError(Code::kTypeError, "saver var_list must hold variables, got a " + v.typeName(), loc);
  if (var->graph != ev.ts().graph)
    throwError(Code::kValueError, "a variable of var_list belongs to another graph", loc);
  return var->info;
}

std::string dirArg(CallArgs &a, const std::string &fn) {
  return toStr(requireArg(a, 0, "checkpoint_dir", fn), "checkpoint_dir", a.loc);
}
std::string latestArg(CallArgs &a) {
  Value v = argOr(a, 1, "latest_filename", Value::none());
  return v.isNone() ? "" : toStr(v, "latest_filename", a.loc);
}

void warn(EvaluatorImpl &ev, const std::string &text) {
  if (text.empty())
    return;
  std::ostream &os = ev.opts.err ? *ev.opts.err : std::cerr;
  os << "warning: " << text << "\n";
}

std::unique_ptr<io::CheckpointReader> openReader(const std::string &path, const SourceLoc &loc) {
  auto r = io::CheckpointReader::open(path);
  if (!r.hasValue())
    throwStatus(r.takeStatus(), loc);
  return std::move(*r);
}

/// TF's create_global_step: an int64 scalar variable "global_step" at the
/// graph's top level (no name scope, no control dependencies), not
/// trainable.
Value createGlobalStep(EvaluatorImpl &ev, const SourceLoc &loc) {
  RootScopeGuard root(ev.ts());
  CallArgs a;
  a.loc = loc;
  a.positional = {Value::integer(0)};
  a.positionalLocs = {loc};
  a.keywords = {{"name", Value::string("global_step")},
                {"dtype", Value::dtype(ir::DType::kI64)},
                {"trainable", Value::boolean(false)}};
  a.keywordLocs = {loc, loc, loc};
  return ev.call(*ev.builtins->lookup("variable"), a);
}

} // namespace

void installCheckpointBuiltins(EvaluatorImpl &evaluator, Env &env) {
  def(env, "saver", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "saver", {"var_list", "max_to_keep", "sharded", "keep_checkpoint_every_n_hours",
                               "name", "allow_empty"});
    GraphContext &g = ev.graph();
    Value varList = argOr(a, 0, "var_list", Value::none());
    std::vector<std::pair<std::string, VariableInfo>> vars;
    if (varList.isNone()) {
      for (const VariableInfo &v : g.globalVariables)
        vars.emplace_back(nameOf(g, v), v);
    } else if (varList.is(Value::kDict)) {
      for (const auto &[k, v] : varList.asDict()->items)
        vars.emplace_back(toStr(k, "a var_list key", a.loc), variableOf(ev, v, a.loc));
    } else {
      for (const Value &v : ev.iterate(varList, a.loc)) {
        VariableInfo info = variableOf(ev, v, a.loc);
        vars.emplace_back(nameOf(g, info), info);
      }
    }
    std::set<std::string> keys;
    std::set<ir::NodeId> handles;
    for (const auto &[k, v] : vars) {
      if (!keys.insert(k).second)
        throwError(Code::kValueError, "At least two variables have the same name: " + k, a.loc);
      if (!handles.insert(v.handle).second)
        throwError(Code::kValueError, "The same variable is saved twice: " + nameOf(g, v), a.loc);
    }
    bool allowEmpty = ev.truthy(argOr(a, 99, "allow_empty", Value::boolean(false)), a.loc);
    if (vars.empty()) {
      if (allowEmpty)
        return Value::none();
      throwError(Code::kValueError, "No variables to save", a.loc);
    }
    Value keepV = argOr(a, 1, "max_to_keep", Value::integer(5));
    int64_t maxToKeep = keepV.isNone() ? 0 : toInt(keepV, "max_to_keep", a.loc);
    if (maxToKeep < 0)
      throwError(Code::kValueError, "max_to_keep must be >= 0, got " + std::to_string(maxToKeep),
                 a.loc);
    bool sharded = ev.truthy(argOr(a, 2, "sharded", Value::boolean(false)), a.loc);
    double hours = toNumber(argOr(a, 99, "keep_checkpoint_every_n_hours", Value::real(10000)),
                            "keep_checkpoint_every_n_hours", a.loc);
    Value nameV = argOr(a, 99, "name", Value::none());
    std::string name = nameV.isNone() ? "save" : toStr(nameV, "name", a.loc);
    if (name.empty())
      name = "save";
    return Value::object(SaverObject::build(ev, std::move(vars), maxToKeep, sharded, hours, name, a.loc));
  });

  def(env, "latest_checkpoint", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "latest_checkpoint", {"checkpoint_dir", "latest_filename"});
    std::string warning;
    auto p = io::latestCheckpoint(dirArg(a, "latest_checkpoint"), latestArg(a), &warning);
    warn(ev, warning);
    return p ? Value::string(*p) : Value::none();
  });
  def(env, "get_checkpoint_state", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "get_checkpoint_state", {"checkpoint_dir", "latest_filename"});
    std::string warning;
    auto s = io::getCheckpointState(dirArg(a, "get_checkpoint_state"), latestArg(a), &warning);
    if (!s.hasValue())
      throwStatus(s.takeStatus(), a.loc);
    warn(ev, warning);
    if (!*s)
      return Value::none();
    return Value::object(std::make_shared<CheckpointStateObject>(std::move(**s)));
  });
  def(env, "checkpoint_exists", [](EvaluatorImpl &, CallArgs &a) {
    std::string p = toStr(requireArg(a, 0, "checkpoint_prefix", "checkpoint_exists"),
                          "checkpoint_prefix", a.loc);
    return Value::boolean(io::checkpointExists(p));
  });
  def(env, "list_variables", [](EvaluatorImpl &, CallArgs &a) {
    std::string p = toStr(requireArg(a, 0, "ckpt_dir_or_file", "list_variables"), "checkpoint", a.loc);
    if (auto latest = io::latestCheckpoint(p))
      p = *latest;
    auto reader = openReader(p, a.loc);
    List out;
    for (const io::CheckpointEntry &e : reader->entries()) {
      List dims;
      for (int64_t d : e.dims)
        dims.push_back(Value::integer(d));
      out.push_back(Value::tuple({Value::string(e.name), Value::list(std::move(dims))}));
    }
    return Value::list(std::move(out));
  });
  def(env, "load_variable", [](EvaluatorImpl &, CallArgs &a) {
    std::string p = toStr(requireArg(a, 0, "ckpt_dir_or_file", "load_variable"), "checkpoint", a.loc);
    std::string name = toStr(requireArg(a, 1, "name", "load_variable"), "name", a.loc);
    if (auto latest = io::latestCheckpoint(p))
      p = *latest;
    auto reader = openReader(p, a.loc);
    // TF strips a tensor name's ":0".
    if (name.size() > 2 && name.compare(name.size() - 2, 2, ":0") == 0)
      name.resize(name.size() - 2);
    const io::CheckpointEntry *e = reader->find(name);
    if (!e)
      throwError(Code::kNotFound, "Key " + name + " not found in checkpoint " + p, a.loc);
    auto t = reader->read(*e);
    if (!t.hasValue())
      throwStatus(t.takeStatus(), a.loc);
    return Value::hostTensor(std::move(*t));
  });

  def(env, "get_global_step", [](EvaluatorImpl &ev, CallArgs &a) {
    auto v = findGlobalStep(ev.graph(), a.loc);
    if (!v)
      return Value::none();
    return Value::object(std::make_shared<VariableObject>(ev.ts().graph, *v));
  });
  def(env, "create_global_step", [](EvaluatorImpl &ev, CallArgs &a) {
    if (findGlobalStep(ev.graph(), a.loc) || ev.graph().graph->isNameUsed("global_step"))
      throwError(Code::kValueError, "\"global_step\" already exists.", a.loc);
    return createGlobalStep(ev, a.loc);
  });
  def(env, "get_or_create_global_step", [](EvaluatorImpl &ev, CallArgs &a) {
    if (auto v = findGlobalStep(ev.graph(), a.loc))
      return Value::object(std::make_shared<VariableObject>(ev.ts().graph, *v));
    return createGlobalStep(ev, a.loc);
  });
  def(env, "report_uninitialized_variables", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "report_uninitialized_variables", {"var_list", "name"});
    Value list = argOr(a, 0, "var_list", Value::none());
    std::vector<VariableInfo> vars;
    GraphContext &g = ev.graph();
    if (list.isNone()) {
      vars = g.globalVariables;
      vars.insert(vars.end(), g.localVariables.begin(), g.localVariables.end());
    } else {
      for (const Value &v : ev.iterate(list, a.loc)) {
        auto var = v.objectAs<VariableObject>();
        if (!var)
          throwError(Code::kTypeError, "report_uninitialized_variables() needs variables", a.loc);
        vars.push_back(var->info);
      }
    }
    Value nameV = argOr(a, 1, "name", Value::none());
    return reportUninitialized(ev, vars,
                               nameV.isNone() ? "report_uninitialized_variables"
                                              : toStr(nameV, "name", a.loc),
                               a.loc);
  });
  (void)evaluator;
}

} // namespace sluice::frontend
