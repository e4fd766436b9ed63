// frontend/eval/builtins_sync_replicas.cc: TF1's SyncReplicasOptimizer
// (sync_replicas_optimizer.py) and ConditionalAccumulator. Each worker's
// train op applies its gradients to one accumulator per variable (on the
// variable's ps task) and then waits for a token from the shared token
// queue; the chief's queue runner takes the mean of replicas_to_aggregate
// gradients per variable, applies it with the wrapped optimizer (global
// step + 1) and enqueues the next step's tokens. A gradient computed at an
// older step than the accumulator's is dropped, so a slow (backup) worker
// never applies stale gradients.
#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"
#include "ir/device_spec.h"

namespace sluice::frontend {

namespace {

ir::NodeId nodeOf(const Value &v, const char *what, const SourceLoc &loc) {
  if (v.is(Value::kOp))
    return v.asOp().node;
  if (v.is(Value::kTensor))
    return v.asTensor().out.node;
  throwError(Code::kTypeError, std::string(what) + " must be an op, got a " + v.typeName(), loc);
}

/// Runs `body` with the scopes TF's `with ops.device(d)` (and, when
/// `topScope`, `ops.name_scope("")`) would give.
template <typename F>
auto withScopes(EvaluatorImpl &ev, const std::string &device, bool topScope,
                const SourceLoc &loc, F &&body) {
  ThreadState &ts = ev.ts();
  size_t devices = ts.devices.size(), scopes = ts.nameScopes.size();
  if (!device.empty()) {
    auto spec = ir::DeviceSpec::parse(device);
    if (!spec.hasValue())
      throwStatus(spec.takeStatus(), loc);
    DeviceScope d;
    d.kind = DeviceScope::kSpec;
    d.spec = *spec;
    ts.devices.push_back(std::move(d));
  }
  if (topScope)
    ts.nameScopes.push_back("");
  struct Restore {
    ThreadState &ts;
    size_t devices, scopes;
    ~Restore() {
      ts.devices.resize(devices);
      ts.nameScopes.resize(scopes);
    }
  } restore{ts, devices, scopes};
  return body();
}

template <typename F> auto withControlDeps(EvaluatorImpl &ev, std::vector<ir::NodeId> deps, F &&body) {
  ControlDepsGuard after(ev.ts(), std::move(deps));
  return body();
}

// --- conditional_accumulator ----------------------------------------------------

class AccumulatorObject : public HandleObject {
public:
  GraphContext *graph = nullptr;
  ir::NodeId handle = ir::kNoNode;
  ir::DType dtype = ir::DType::kF32;
  ir::Shape shape;

  GraphContext *handleGraph() const override { return graph; }
  ir::Output handleOutput() const override { return {handle, 0}; }
  std::string typeName() const override { return "conditional_accumulator"; }
  std::string repr() const override {
    return "<conditional_accumulator '" + graph->graph->node(handle).name() + "'>";
  }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;

  Value applyGrad(EvaluatorImpl &ev, const Value &grad, const Value &localStep,
                  const std::string &name, const SourceLoc &loc) {
    ir::Output g = ev.toTensor(grad, dtype, loc);
    ir::Output step = ev.toTensor(localStep, ir::DType::kI64, loc);
    if (ev.graph().graph->node(step.node).outputType(step.index) != ir::DType::kI64)
      step = ev.makeOp("cast", {step}, {{"dtype", ir::DType::kI64}}, loc).asTensor().out;
    return ev.makeOp("accumulator_apply_gradient", {{handle, 0}, step, g}, {{"dtype", dtype}}, loc,
                     name);
  }
  Value takeGrad(EvaluatorImpl &ev, const Value &numRequired, const std::string &name,
                 const SourceLoc &loc) {
    ir::Output n = ev.toTensor(numRequired, ir::DType::kI32, loc);
    return ev.makeOp("accumulator_take_gradient", {{handle, 0}, n}, {{"dtype", dtype}}, loc, name);
  }
  Value setGlobalStep(EvaluatorImpl &ev, const Value &step, const std::string &name,
                      const SourceLoc &loc) {
    ir::Output s = ev.toTensor(step, ir::DType::kI64, loc);
    if (ev.graph().graph->node(s.node).outputType(s.index) != ir::DType::kI64)
      s = ev.makeOp("cast", {s}, {{"dtype", ir::DType::kI64}}, loc).asTensor().out;
    return ev.makeOp("accumulator_set_global_step", {{handle, 0}, s}, {}, loc, name);
  }
};

std::string nameOr(EvaluatorImpl &, CallArgs &a, size_t pos, const std::string &dflt) {
  Value v = argOr(a, pos, "name", Value::none());
  return v.isNone() ? dflt : toStr(v, "name", a.loc);
}

std::optional<Value> AccumulatorObject::getAttr(EvaluatorImpl &ev, const std::string &attr) {
  auto self = std::static_pointer_cast<AccumulatorObject>(shared_from_this());
  if (attr == "dtype")
    return Value::dtype(dtype);
  if (attr == "name")
    return Value::string(graph->graph->node(handle).name());
  if (attr == "accumulator_ref" || attr == "op")
    return Value::tensor(graph, {handle, 0});
  if (attr == "apply_grad")
    return Value::builtin(attr, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "apply_grad", {"grad", "local_step", "name"});
      return self->applyGrad(ev, requireArg(a, 0, "grad", "apply_grad"),
                             argOr(a, 1, "local_step", Value::integer(0)),
                             nameOr(ev, a, 2, "AccumulatorApplyGradient"), a.loc);
    });
  if (attr == "take_grad")
    return Value::builtin(attr, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "take_grad", {"num_required", "name"});
      return self->takeGrad(ev, requireArg(a, 0, "num_required", "take_grad"),
                            nameOr(ev, a, 1, "AccumulatorTakeGradient"), a.loc);
    });
  if (attr == "num_accumulated")
    return Value::builtin(attr, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "num_accumulated", {"name"});
      return ev.makeOp("accumulator_num_accumulated", {{self->handle, 0}}, {}, a.loc,
                       nameOr(ev, a, 0, "AccumulatorNumAccumulated"));
    });
  if (attr == "set_global_step")
    return Value::builtin(attr, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "set_global_step", {"new_global_step", "name"});
      return self->setGlobalStep(ev, requireArg(a, 0, "new_global_step", "set_global_step"),
                                 nameOr(ev, a, 1, "AccumulatorSetGlobalStep"), a.loc);
    });
  return std::nullopt;
}

std::shared_ptr<AccumulatorObject> makeAccumulator(EvaluatorImpl &ev, ir::DType dtype,
                                                   const ir::Shape &shape,
                                                   const std::string &sharedName,
                                                   const std::string &reduction,
                                                   const std::string &name, const SourceLoc &loc) {
  if (dtype != ir::DType::kF16 && dtype != ir::DType::kF32 && dtype != ir::DType::kF64)
    throwError(Code::kTypeError,
               "conditional_accumulator holds floating-point gradients, not " +
                   std::string(ir::dtypeName(dtype)),
               loc);
  if (reduction != "MEAN" && reduction != "SUM")
    throwError(Code::kValueError, "reduction_type must be 'MEAN' or 'SUM', got '" + reduction + "'",
               loc);
  Value h = ev.makeOp("conditional_accumulator", {},
                      {{"dtype", dtype},
                       {"shape", shape},
                       {"shared_name", sharedName},
                       {"reduction_type", reduction}},
                      loc, name);
  auto acc = std::make_shared<AccumulatorObject>();
  acc->graph = h.asTensor().graph;
  acc->handle = h.asTensor().out.node;
  acc->dtype = dtype;
  acc->shape = shape;
  return acc;
}

// --- sync_replicas_optimizer ----------------------------------------------------

class SyncReplicasObject : public Object {
public:
  Value opt;
  int64_t replicasToAggregate = 0, totalNumReplicas = 0, tokensPerStep = 0;
  std::string name;
  bool applied = false;
  std::shared_ptr<VariableObject> globalStep, localStep;
  Value syncTokenQueue, chiefQueueRunner, chiefInitOp, localStepInitOp, readyForLocalInitOp;

  std::string typeName() const override { return "optimizer"; }
  std::string repr() const override { return "<optimizer " + name + ">"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &attr) override;

  void requireApplied(const char *what, const SourceLoc &loc) const {
    if (!applied)
      throwError(Code::kValueError,
                 std::string(what) + " needs apply_gradients() (or minimize()) first", loc);
  }

  Value applyGradients(EvaluatorImpl &ev, const Value &gradsAndVars, const Value &gsValue,
                       const std::string &scope, const SourceLoc &loc);
  Value initTokens(EvaluatorImpl &ev, int64_t numTokens, const SourceLoc &loc);
};

Value SyncReplicasObject::applyGradients(EvaluatorImpl &ev, const Value &gradsAndVars,
                                         const Value &gsValue, const std::string &scope,
                                         const SourceLoc &loc) {
  std::vector<std::pair<Value, std::shared_ptr<VariableObject>>> pairs;
  for (const Value &p : ev.iterate(gradsAndVars, loc)) {
    std::vector<Value> gv = p.isSequence() ? ev.iterate(p, loc) : std::vector<Value>{};
    auto var = gv.size() == 2 ? gv[1].objectAs<VariableObject>() : nullptr;
    if (!var)
      throwError(Code::kTypeError, "grads_and_vars must hold (gradient, variable) pairs", loc);
    pairs.emplace_back(gv[0], var);
  }
  if (pairs.empty())
    throwError(Code::kValueError, "Must supply at least one variable", loc);
  if (gsValue.isNone())
    throwError(Code::kValueError, "Global step is required to check staleness", loc);
  auto gs = gsValue.objectAs<VariableObject>();
  if (!gs)
    throwError(Code::kTypeError, "global_step must be a variable, got a " + gsValue.typeName(),
               loc);
  if (applied)
    throwError(Code::kValueError, "apply_gradients() of a sync_replicas_optimizer may run once",
               loc);
  globalStep = gs;
  GraphContext &g = ev.graph();
  const ir::Node &gsNode = g.graph->node(gs->info.handle);
  ir::DType stepType = gsNode.attr<ir::DType>("dtype");
  std::string stepDevice = gsNode.requestedDevice();

  // The local step lives on this worker: colocated with an op the current
  // scopes place here, so that a device setter cannot move it to a ps
  // (where every worker would share it).
  ir::NodeId anchor = nodeOf(ev.makeOp("no_op", {}, {}, loc, "local_anchor"), "anchor", loc);
  {
    VariableOptions vo;
    vo.dtype = stepType;
    vo.trainable = false;
    vo.colocateWith = anchor;
    Value v = [&] {
      NameScopeGuard root(ev.ts(), "");
      return createVariable(ev, "sync_rep_local_step", Value::integer(0), vo, loc);
    }();
    localStep = v.objectAs<VariableObject>();
    g.globalVariables.pop_back();
    g.localVariables.push_back(localStep->info);
  }
  // TF's local_step_init_op and ready_for_local_init_op.
  localStepInitOp = ev.callWith(ev.builtin("assign"), {Value::object(localStep), gsValue}, {},
                             loc);
  readyForLocalInitOp = ev.callWith(ev.builtin("report_uninitialized_variables"),
                                 {ev.callWith(ev.builtin("global_variables"), {}, {}, loc)},
                                 {}, loc);

  std::vector<ir::NodeId> trainOps;
  List aggregated;
  std::vector<std::pair<std::shared_ptr<AccumulatorObject>, std::string>> accumulators;
  {
    NameScopeGuard inScope(ev.ts(), ev.uniqueScope(scope));
    for (const auto &[grad, var] : pairs) {
      if (grad.isNone()) {
        aggregated.push_back(Value::tuple({Value::none(), Value::object(var)}));
        continue;
      }
      const ir::Node &h = g.graph->node(var->info.handle);
      std::string device = h.requestedDevice();
      withScopes(ev, device, false, loc, [&] {
        auto acc = makeAccumulator(ev, h.attr<ir::DType>("dtype"), h.attr<ir::Shape>("shape"),
                                   h.name() + "/grad_accum", "MEAN", "conditional_accumulator",
                                   loc);
        trainOps.push_back(nodeOf(acc->applyGrad(ev, grad, Value::object(localStep),
                                                 "AccumulatorApplyGradient", loc),
                                  "apply", loc));
        aggregated.push_back(
            Value::tuple({acc->takeGrad(ev, Value::integer(replicasToAggregate),
                                        "AccumulatorTakeGradient", loc),
                          Value::object(var)}));
        accumulators.emplace_back(acc, device);
        return 0;
      });
    }
  }

  Value trainOp = withScopes(ev, stepDevice, true, loc, [&] {
    Value update = ev.callWith(ev.getAttr(opt, "apply_gradients", loc),
                            {Value::list(std::move(aggregated))}, {{"global_step", gsValue}}, loc);
    List stepTypes{Value::dtype(stepType)};
    List scalarShape{Value::list({})};
    syncTokenQueue = ev.callWith(ev.builtin("fifo_queue"),
                              {Value::integer(-1), Value::list(stepTypes), Value::list(scalarShape)},
                              {{"name", Value::string("sync_token_q")},
                               {"shared_name", Value::string("sync_token_q")}},
                              loc);
    // The chief's runner needs a queue to close on stop; not the token
    // queue, which a closed ps would never reopen (as TF).
    Value dummy = ev.callWith(ev.builtin("fifo_queue"),
                           {Value::integer(1), Value::list({Value::dtype(ir::DType::kI32)}),
                            Value::list(scalarShape)},
                           {{"name", Value::string("dummy_queue")},
                            {"shared_name", Value::string("dummy_queue")}},
                           loc);
    Value token = withControlDeps(ev, trainOps, [&] {
      return ev.callWith(ev.getAttr(syncTokenQueue, "dequeue", loc), {}, {}, loc);
    });
    Value train = ev.callWith(ev.builtin("assign"), {Value::object(localStep), token}, {}, loc);
    Value syncOp = withControlDeps(ev, {nodeOf(update, "update", loc)}, [&] {
      ir::Output dims = ev.toTensor(Value::list({Value::integer(tokensPerStep)}), ir::DType::kI32,
                                    loc);
      // A read of its own, after the update: the variable's shared read
      // could run before the increment and hand out the old step.
      ir::Output step = ev.makeOp("read_variable", {{gs->info.handle, 0}}, {{"dtype", stepType}},
                                  loc, "read_global_step")
                            .asTensor()
                            .out;
      Value tokens = ev.makeOp("fill", {dims, step}, {}, loc);
      return ev.callWith(ev.getAttr(syncTokenQueue, "enqueue_many", loc),
                      {Value::list({tokens})}, {}, loc);
    });
    chiefQueueRunner = ev.callWith(ev.builtin("queue_runner"),
                                {dummy, Value::list({syncOp})}, {}, loc);
    List chiefInit{localStepInitOp};
    for (auto &[acc, device] : accumulators)
      withScopes(ev, device, false, loc, [&] {
        chiefInit.push_back(acc->setGlobalStep(ev, gsValue, "SetGlobalStep", loc));
        return 0;
      });
    CallArgs group;
    group.loc = loc;
    for (Value &op : chiefInit) {
      group.positional.push_back(op);
      group.positionalLocs.push_back(loc);
    }
    chiefInitOp = ev.call(ev.builtin("group"), group);
    return train;
  });
  applied = true;
  return trainOp;
}

Value SyncReplicasObject::initTokens(EvaluatorImpl &ev, int64_t numTokens, const SourceLoc &loc) {
  requireApplied("get_init_tokens_op()", loc);
  int64_t needed = replicasToAggregate - totalNumReplicas;
  if (numTokens == -1)
    numTokens = replicasToAggregate;
  else if (numTokens < needed)
    throwError(Code::kValueError, "Too few tokens to finish the first step: " +
                                      std::to_string(numTokens) + " (given) vs " +
                                      std::to_string(needed) + " (needed)",
               loc);
  const ir::Node &gsNode = ev.graph().graph->node(globalStep->info.handle);
  return withScopes(ev, gsNode.requestedDevice(), true, loc, [&] {
    if (numTokens <= 0)
      return ev.makeOp("no_op", {}, {}, loc, "no_init_tokens");
    ir::Output dims = ev.toTensor(Value::list({Value::integer(numTokens)}), ir::DType::kI32, loc);
    Value tokens = ev.makeOp("fill", {dims, globalStep->info.readValue}, {}, loc);
    return ev.callWith(ev.getAttr(syncTokenQueue, "enqueue_many", loc), {Value::list({tokens})},
                    {}, loc);
  });
}

std::optional<Value> SyncReplicasObject::getAttr(EvaluatorImpl &ev, const std::string &attr) {
  auto self = std::static_pointer_cast<SyncReplicasObject>(shared_from_this());
  if (attr == "compute_gradients" || attr == "get_slot" || attr == "get_slot_names")
    return ev.getAttr(opt, attr, SourceLoc{});
  if (attr == "get_name")
    return Value::builtin(attr, [self](EvaluatorImpl &, CallArgs &) {
      return Value::string(self->name);
    });
  if (attr == "apply_gradients")
    return Value::builtin(attr, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "apply_gradients", {"grads_and_vars", "global_step", "name"});
      return self->applyGradients(ev, requireArg(a, 0, "grads_and_vars", "apply_gradients"),
                                  argOr(a, 1, "global_step", Value::none()),
                                  nameOr(ev, a, 2, self->name), a.loc);
    });
  if (attr == "minimize")
    return Value::builtin(attr, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "minimize", {"loss", "global_step", "var_list", "name"});
      Value pairs = ev.callWith(ev.getAttr(self->opt, "compute_gradients", a.loc),
                             {requireArg(a, 0, "loss", "minimize")},
                             {{"var_list", argOr(a, 2, "var_list", Value::none())}}, a.loc);
      return self->applyGradients(ev, pairs, argOr(a, 1, "global_step", Value::none()),
                                  nameOr(ev, a, 3, self->name), a.loc);
    });
  if (attr == "get_init_tokens_op")
    return Value::builtin(attr, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "get_init_tokens_op", {"num_tokens"});
      return self->initTokens(
          ev, toInt(argOr(a, 0, "num_tokens", Value::integer(-1)), "num_tokens", a.loc), a.loc);
    });
  if (attr == "get_chief_queue_runner")
    return Value::builtin(attr, [self](EvaluatorImpl &, CallArgs &a) {
      if (!self->applied)
        throwError(Code::kValueError, "Should be called after apply_gradients().", a.loc);
      return self->chiefQueueRunner;
    });
  auto needApplied = [&](const Value &v) -> Value {
    self->requireApplied(attr.c_str(), SourceLoc{});
    return v;
  };
  if (attr == "chief_init_op")
    return needApplied(chiefInitOp);
  if (attr == "local_step_init_op")
    return needApplied(localStepInitOp);
  if (attr == "ready_for_local_init_op")
    return needApplied(readyForLocalInitOp);
  if (attr == "local_step")
    return needApplied(Value::object(localStep));
  if (attr == "replicas_to_aggregate")
    return Value::integer(replicasToAggregate);
  if (attr == "total_num_replicas")
    return Value::integer(totalNumReplicas);
  return std::nullopt;
}

} // namespace

void installSyncReplicasBuiltins(EvaluatorImpl &, Env &env) {
  env.set("conditional_accumulator",
          Value::builtin("conditional_accumulator", [](EvaluatorImpl &ev, CallArgs &a) {
            checkKeywords(a, "conditional_accumulator",
                          {"dtype", "shape", "shared_name", "name", "reduction_type"});
            ir::DType t = toDType(requireArg(a, 0, "dtype", "conditional_accumulator"), "dtype",
                                  a.loc);
            Value shapeV = argOr(a, 1, "shape", Value::none());
            ir::Shape shape = shapeV.isNone() ? ir::Shape::unknown()
                                              : toShape(shapeV, "shape", a.loc);
            Value shared = argOr(a, 2, "shared_name", Value::none());
            Value reduction = argOr(a, 4, "reduction_type", Value::string("MEAN"));
            return Value::object(makeAccumulator(
                ev, t, shape, shared.isNone() ? "" : toStr(shared, "shared_name", a.loc),
                toStr(reduction, "reduction_type", a.loc),
                nameOr(ev, a, 3, "conditional_accumulator"), a.loc));
          }));
  env.set("sync_replicas_optimizer",
          Value::builtin("sync_replicas_optimizer", [](EvaluatorImpl &ev, CallArgs &a) {
            checkKeywords(a, "sync_replicas_optimizer",
                          {"opt", "replicas_to_aggregate", "total_num_replicas", "use_locking",
                           "name"});
            auto s = std::make_shared<SyncReplicasObject>();
            s->opt = requireArg(a, 0, "opt", "sync_replicas_optimizer");
            auto inner = s->opt.is(Value::kObject) ? s->opt.asObject() : nullptr;
            if (!inner || !inner->getAttr(ev, "apply_gradients"))
              throwError(Code::kTypeError, "opt must be an optimizer, got a " +
                                               s->opt.typeName(), a.loc);
            s->replicasToAggregate = toInt(requireArg(a, 1, "replicas_to_aggregate",
                                                      "sync_replicas_optimizer"),
                                           "replicas_to_aggregate", a.loc);
            if (s->replicasToAggregate <= 0)
              throwError(Code::kValueError, "replicas_to_aggregate must be positive, got " +
                                                std::to_string(s->replicasToAggregate), a.loc);
            Value total = argOr(a, 2, "total_num_replicas", Value::none());
            s->totalNumReplicas = total.isNone() ? s->replicasToAggregate
                                                 : toInt(total, "total_num_replicas", a.loc);
            if (s->totalNumReplicas <= 0)
              throwError(Code::kValueError, "total_num_replicas must be positive, got " +
                                                std::to_string(s->totalNumReplicas), a.loc);
            s->tokensPerStep = std::max(s->totalNumReplicas, s->replicasToAggregate);
            s->name = nameOr(ev, a, 4, "sync_replicas");
            return Value::object(s);
          }));
}

} // namespace sluice::frontend
