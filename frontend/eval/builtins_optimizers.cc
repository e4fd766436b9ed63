// frontend/eval/builtins_optimizers.cc: TF1's optimizers (GradientDescent,
// Momentum, Adagrad, RMSProp, Adam) with minimize / compute_gradients /
// apply_gradients; slot variables live with their variable, and each
// update is one apply_* op (ir/ops/training_ops.cc).
#include <map>

#include "frontend/eval/objects.h"
#include "frontend/eval/training.h"

namespace sluice::frontend {

namespace {

enum class Kind { kSgd, kMomentum, kAdagrad, kRmsProp, kAdam };

struct SlotSpec {
  const char *name;  // get_slot name ("momentum", "m", ...)
  const char *suffix; // the variable's name suffix ("Momentum", "Adam", ...)
  double init;       // its constant initial value
};

class OptimizerObject : public Object {
public:
  Kind kind;
  std::string name;
  std::map<std::string, Value> hyper; // learning_rate, momentum, ...
  bool nesterov = false;
  std::map<std::pair<ir::NodeId, std::string>, Value> slots; // (var handle, slot name)
  std::vector<Value> nonSlot; // Adam: beta1_power, beta2_power

  std::string typeName() const override { return "optimizer"; }
  std::string repr() const override { return "<optimizer " + name + ">"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &attr) override;

  std::vector<SlotSpec> slotSpecs() const {
    switch (kind) {
    case Kind::kSgd: return {};
    case Kind::kMomentum: return {{"momentum", "Momentum", 0}};
    case Kind::kAdagrad:
      return {{"accumulator", "Adagrad", hyper.at("initial_accumulator_value").asNumber()}};
    case Kind::kRmsProp: return {{"rms", "RMSProp", 1}, {"momentum", "RMSProp_1", 0}};
    case Kind::kAdam: return {{"m", "Adam", 0}, {"v", "Adam_1", 0}};
    }
    return {};
  }
};

// A variable at the top of the name scopes, colocated with `with`.
Value absoluteVariable(EvaluatorImpl &ev, const std::string &name, const Value &init,
                       ir::DType t, ir::NodeId with, const SourceLoc &loc) {
  NameScopeGuard root(ev.ts(), "");
  VariableOptions o;
  o.dtype = t;
  o.trainable = false;
  o.colocateWith = with;
  return createVariable(ev, name, init, o, loc);
}

// A slot's initial value: `init` everywhere, shaped like the variable.
Value slotInit(EvaluatorImpl &ev, const VariableObject &var, double init, const SourceLoc &loc) {
  const ir::Node &h = ev.graph().graph->node(var.info.handle);
  ir::DType t = h.attr<ir::DType>("dtype");
  const ir::Shape &s = h.attr<ir::Shape>("shape");
  if (s.isFullyDefined()) {
    List dimValues;
    for (int64_t d : s.dims())
      dimValues.push_back(Value::integer(d));
    ir::Output dims = ev.toTensor(Value::list(std::move(dimValues)), ir::DType::kI32, loc);
    ir::Output v = ev.toTensor(Value::real(init), t, loc);
    return ev.makeOp("fill", {dims, v}, {}, loc, "Initializer");
  }
  // A partly known shape: the variable's own value gives it.
  ir::Output like = ev.makeOp("ones_like", {var.info.readValue}, {}, loc).asTensor().out;
  ir::Output k = ev.toTensor(Value::real(init), t, loc);
  return ev.makeOp("multiply", {like, k}, {}, loc, "Initializer");
}

std::vector<std::pair<Value, std::shared_ptr<VariableObject>>>
computeGradients(EvaluatorImpl &ev, const Value &loss, const Value &varList,
                 const SourceLoc &loc) {
  std::vector<std::shared_ptr<VariableObject>> vars;
  if (varList.isNone()) {
    for (const auto &v : ev.graph().globalVariables)
      if (v.trainable)
        vars.push_back(std::make_shared<VariableObject>(&ev.graph(), v));
  } else {
    for (const Value &v : ev.iterate(varList, loc)) {
      auto var = v.objectAs<VariableObject>();
      if (!var)
        throwError(Code::kTypeError, "var_list must hold variables, got " + v.typeName(), loc);
      vars.push_back(var);
    }
  }
  if (vars.empty())
    throwError(Code::kValueError, "No variables to optimize.", loc);
  ir::Output y = ev.toTensor(loss, std::nullopt, loc);
  std::vector<ir::Output> xs;
  for (auto &v : vars)
    xs.push_back(ir::Output{v->info.handle, 0});
  auto grads = buildGradients(ev, {y}, xs, {}, "gradients", loc);
  std::vector<std::pair<Value, std::shared_ptr<VariableObject>>> out;
  for (size_t i = 0; i < vars.size(); ++i)
    out.emplace_back(grads[i] ? Value::tensor(&ev.graph(), *grads[i]) : Value::none(), vars[i]);
  return out;
}

Value applyGradients(EvaluatorImpl &ev, OptimizerObject &opt,
                     const std::vector<std::pair<Value, std::shared_ptr<VariableObject>>> &pairs,
                     const Value &globalStep, const std::string &name, const SourceLoc &loc) {
  std::vector<std::pair<ir::Output, std::shared_ptr<VariableObject>>> updates;
  std::string varNames;
  for (const auto &[g, v] : pairs) {
    const ir::Node &h = ev.graph().graph->node(v->info.handle);
    varNames += (varNames.empty() ? "'" : ", '") + h.name() + "'";
    if (g.isNone())
      continue;
    updates.emplace_back(ev.toTensor(g, h.attr<ir::DType>("dtype"), loc), v);
  }
  if (updates.empty())
    throwError(Code::kValueError,
               "No gradients provided for any variable, check your graph for ops that do not "
               "support gradients, between variables [" + varNames + "] and the loss",
               loc);
  NameScopeGuard scope(ev.ts(), ev.uniqueScope(name));
  std::vector<ir::NodeId> applies;
  auto hp = [&](const char *key, ir::DType t) { return ev.toTensor(opt.hyper.at(key), t, loc); };
  if (opt.kind == Kind::kAdam && opt.nonSlot.empty()) {
    // Adam's beta powers live with the first variable, as TF's.
    const auto &first = updates.front().second;
    ir::DType t = ev.graph().graph->node(first->info.handle).attr<ir::DType>("dtype");
    opt.nonSlot.push_back(absoluteVariable(ev, "beta1_power", opt.hyper.at("beta1"), t,
                                           first->info.handle, loc));
    opt.nonSlot.push_back(absoluteVariable(ev, "beta2_power", opt.hyper.at("beta2"), t,
                                           first->info.handle, loc));
  }
  for (const auto &[grad, var] : updates) {
    const ir::Node &h = ev.graph().graph->node(var->info.handle);
    ir::DType t = h.attr<ir::DType>("dtype");
    std::vector<ir::Output> in{ir::Output{var->info.handle, 0}};
    for (const SlotSpec &s : opt.slotSpecs()) {
      auto key = std::make_pair(var->info.handle, std::string(s.name));
      if (!opt.slots.count(key))
        opt.slots[key] = absoluteVariable(ev, h.name() + "/" + s.suffix,
                                          slotInit(ev, *var, s.init, loc), t, var->info.handle,
                                          loc);
      in.push_back(ir::Output{opt.slots[key].objectAs<VariableObject>()->info.handle, 0});
    }
    ir::AttrMap attrs;
    std::string op;
    switch (opt.kind) {
    case Kind::kSgd:
      op = "apply_gradient_descent";
      in.push_back(hp("learning_rate", t));
      in.push_back(grad);
      break;
    case Kind::kMomentum:
      op = "apply_momentum";
      in.push_back(hp("learning_rate", t));
      in.push_back(grad);
      in.push_back(hp("momentum", t));
      attrs["use_nesterov"] = opt.nesterov;
      break;
    case Kind::kAdagrad:
      op = "apply_adagrad";
      in.push_back(hp("learning_rate", t));
      in.push_back(grad);
      break;
    case Kind::kRmsProp:
      op = "apply_rms_prop";
      for (const char *k : {"learning_rate", "decay", "momentum", "epsilon"})
        in.push_back(hp(k, t));
      in.push_back(grad);
      break;
    case Kind::kAdam:
      op = "apply_adam";
      in.push_back(ev.toTensor(opt.nonSlot[0], t, loc));
      in.push_back(ev.toTensor(opt.nonSlot[1], t, loc));
      for (const char *k : {"learning_rate", "beta1", "beta2", "epsilon"})
        in.push_back(hp(k, t));
      in.push_back(grad);
      break;
    }
    applies.push_back(ev.makeOp(op, std::move(in), std::move(attrs), loc,
                                "update_" + h.name() + "/" + op)
                          .asOp()
                          .node);
  }
  std::vector<ir::NodeId> finish = applies;
  {
    ControlDepsGuard afterUpdates(ev.ts(), applies);
    if (opt.kind == Kind::kAdam) {
      // After every update: beta powers advance one step.
      for (int i = 0; i < 2; ++i) {
        auto bp = opt.nonSlot[static_cast<size_t>(i)].objectAs<VariableObject>();
        ir::DType t = ev.graph().graph->node(bp->info.handle).attr<ir::DType>("dtype");
        ir::Output next = ev.makeOp("multiply",
                                    {bp->info.readValue, hp(i == 0 ? "beta1" : "beta2", t)},
                                    {}, loc)
                              .asTensor()
                              .out;
        finish.push_back(ev.makeOp("assign", {ir::Output{bp->info.handle, 0}, next},
                                   {{"validate_shape", true}}, loc,
                                   i == 0 ? "update_beta1_power" : "update_beta2_power")
                             .asTensor()
                             .out.node);
      }
    }
    if (!globalStep.isNone()) {
      auto gs = globalStep.objectAs<VariableObject>();
      if (!gs)
        throwError(Code::kTypeError, "global_step must be a variable, got " +
                                         globalStep.typeName(), loc);
      ir::DType t = ev.graph().graph->node(gs->info.handle).attr<ir::DType>("dtype");
      finish.push_back(ev.makeOp("assign_add", {ir::Output{gs->info.handle, 0},
                                                ev.toTensor(Value::integer(1), t, loc)},
                                 {}, loc, "increment_global_step")
                           .asTensor()
                           .out.node);
    }
  }
  ir::NodeSpec group;
  group.op = "no_op";
  group.name = ev.scopedName("group_deps");
  group.loc = loc;
  group.controlInputs = finish;
  ir::Node &n = ev.addNode(std::move(group));
  return Value::op(&ev.graph(), n.id());
}

std::optional<Value> OptimizerObject::getAttr(EvaluatorImpl &, const std::string &attr) {
  auto self = std::static_pointer_cast<OptimizerObject>(shared_from_this());
  if (attr == "compute_gradients")
    return Value::builtin(attr, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "compute_gradients", {"loss", "var_list", "gate_gradients",
                                             "aggregation_method", "colocate_gradients_with_ops"});
      auto pairs = computeGradients(ev, requireArg(a, 0, "loss", "compute_gradients"),
                                    argOr(a, 1, "var_list", Value::none()), a.loc);
      List out;
      for (auto &[g, v] : pairs)
        out.push_back(Value::tuple({g, Value::object(v)}));
      return Value::list(std::move(out));
    });
  if (attr == "apply_gradients")
    return Value::builtin(attr, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "apply_gradients", {"grads_and_vars", "global_step", "name"});
      std::vector<std::pair<Value, std::shared_ptr<VariableObject>>> pairs;
      for (const Value &p : ev.iterate(requireArg(a, 0, "grads_and_vars", "apply_gradients"), a.loc)) {
        std::vector<Value> gv = p.isSequence() ? ev.iterate(p, a.loc) : std::vector<Value>{};
        auto var = gv.size() == 2 ? gv[1].objectAs<VariableObject>() : nullptr;
        if (!var)
          throwError(Code::kTypeError, "grads_and_vars must hold (gradient, variable) pairs",
                     a.loc);
        pairs.emplace_back(gv[0], var);
      }
      Value nameV = argOr(a, 2, "name", Value::none());
      return applyGradients(ev, *self, pairs, argOr(a, 1, "global_step", Value::none()),
                            nameV.isNone() ? self->name : toStr(nameV, "name", a.loc), a.loc);
    });
  if (attr == "minimize")
    return Value::builtin(attr, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "minimize", {"loss", "global_step", "var_list", "gate_gradients",
                                    "aggregation_method", "colocate_gradients_with_ops", "name",
                                    "grad_loss"});
      auto pairs = computeGradients(ev, requireArg(a, 0, "loss", "minimize"),
                                    argOr(a, 2, "var_list", Value::none()), a.loc);
      Value nameV = argOr(a, 6, "name", Value::none());
      return applyGradients(ev, *self, pairs, argOr(a, 1, "global_step", Value::none()),
                            nameV.isNone() ? self->name : toStr(nameV, "name", a.loc), a.loc);
    });
  if (attr == "get_slot")
    return Value::builtin(attr, [self](EvaluatorImpl &, CallArgs &a) {
      auto var = requireArg(a, 0, "var", "get_slot").objectAs<VariableObject>();
      if (!var)
        throwError(Code::kTypeError, "get_slot needs a variable", a.loc);
      std::string slot = toStr(requireArg(a, 1, "name", "get_slot"), "name", a.loc);
      auto it = self->slots.find({var->info.handle, slot});
      return it == self->slots.end() ? Value::none() : it->second;
    });
  if (attr == "get_slot_names")
    return Value::builtin(attr, [self](EvaluatorImpl &, CallArgs &) {
      List out;
      for (const SlotSpec &s : self->slotSpecs())
        out.push_back(Value::string(s.name));
      return Value::list(std::move(out));
    });
  if (attr == "get_name")
    return Value::builtin(attr, [self](EvaluatorImpl &, CallArgs &) {
      return Value::string(self->name);
    });
  return std::nullopt;
}

// optimizer(learning_rate, ...): TF1's constructor arguments in order.
Value makeOptimizer(Kind kind, const char *fn, std::vector<std::pair<const char *, Value>> params,
                    const char *defaultName, EvaluatorImpl &ev, CallArgs &a) {
  std::vector<const char *> allowed;
  for (auto &[k, v] : params)
    allowed.push_back(k);
  allowed.push_back("use_locking");
  allowed.push_back("name");
  if (kind == Kind::kMomentum)
    allowed.push_back("use_nesterov");
  if (kind == Kind::kRmsProp)
    allowed.push_back("centered");
  // checkKeywords takes an initializer list: check by hand.
  for (size_t k = 0; k < a.keywords.size(); ++k)
    if (std::find_if(allowed.begin(), allowed.end(), [&](const char *n) {
          return a.keywords[k].first == n;
        }) == allowed.end())
      throwError(Code::kTypeError, std::string(fn) + "() got an unexpected keyword argument '" +
                                       a.keywords[k].first + "'",
                 k < a.keywordLocs.size() ? a.keywordLocs[k] : a.loc);
  auto opt = std::make_shared<OptimizerObject>();
  opt->kind = kind;
  for (size_t i = 0; i < params.size(); ++i) {
    Value v = argOr(a, i, params[i].first, params[i].second);
    if (v.isNone())
      throwError(Code::kTypeError, std::string(fn) + "() missing required argument '" +
                                       params[i].first + "'",
                 a.loc);
    if (!v.isNumber() && !v.is(Value::kTensor) && !v.objectAs<VariableObject>())
      throwError(Code::kTypeError, std::string(fn) + ": " + params[i].first +
                                       " must be a number or a tensor, got " + v.typeName(),
                 a.loc);
    opt->hyper[params[i].first] = v;
  }
  if (kind == Kind::kMomentum)
    opt->nesterov = ev.truthy(argOr(a, 999, "use_nesterov", Value::boolean(false)), a.loc);
  if (kind == Kind::kRmsProp && ev.truthy(argOr(a, 999, "centered", Value::boolean(false)), a.loc))
    throwError(Code::kUnimplemented, "rms_prop_optimizer(centered: true) is not supported", a.loc);
  Value nameV = argOr(a, 999, "name", Value::none());
  opt->name = nameV.isNone() ? defaultName : toStr(nameV, "name", a.loc);
  return Value::object(opt);
}

} // namespace

void installOptimizerBuiltins(EvaluatorImpl &, Env &env) {
  env.set("gradient_descent_optimizer",
          Value::builtin("gradient_descent_optimizer", [](EvaluatorImpl &ev, CallArgs &a) {
            return makeOptimizer(Kind::kSgd, "gradient_descent_optimizer",
                                 {{"learning_rate", Value::none()}}, "GradientDescent", ev, a);
          }));
  env.set("momentum_optimizer",
          Value::builtin("momentum_optimizer", [](EvaluatorImpl &ev, CallArgs &a) {
            return makeOptimizer(Kind::kMomentum, "momentum_optimizer",
                                 {{"learning_rate", Value::none()}, {"momentum", Value::none()}},
                                 "Momentum", ev, a);
          }));
  env.set("adagrad_optimizer",
          Value::builtin("adagrad_optimizer", [](EvaluatorImpl &ev, CallArgs &a) {
            return makeOptimizer(Kind::kAdagrad, "adagrad_optimizer",
                                 {{"learning_rate", Value::none()},
                                  {"initial_accumulator_value", Value::real(0.1)}},
                                 "Adagrad", ev, a);
          }));
  env.set("rms_prop_optimizer",
          Value::builtin("rms_prop_optimizer", [](EvaluatorImpl &ev, CallArgs &a) {
            return makeOptimizer(Kind::kRmsProp, "rms_prop_optimizer",
                                 {{"learning_rate", Value::none()},
                                  {"decay", Value::real(0.9)},
                                  {"momentum", Value::real(0.0)},
                                  {"epsilon", Value::real(1e-10)}},
                                 "RMSProp", ev, a);
          }));
  env.set("adam_optimizer", Value::builtin("adam_optimizer", [](EvaluatorImpl &ev, CallArgs &a) {
            return makeOptimizer(Kind::kAdam, "adam_optimizer",
                                 {{"learning_rate", Value::real(0.001)},
                                  {"beta1", Value::real(0.9)},
                                  {"beta2", Value::real(0.999)},
                                  {"epsilon", Value::real(1e-8)}},
                                 "Adam", ev, a);
          }));
}

} // namespace sluice::frontend
