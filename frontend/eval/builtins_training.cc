// frontend/eval/builtins_training.cc: gradients(...) over the IR's reverse
// mode (ir/gradients.h), trainable_variables(), and TF's learning-rate
// decay.
#include "frontend/eval/training.h"

#include "frontend/eval/objects.h"

namespace sluice::frontend {

namespace {

// The output a gradient is taken with respect to: a tensor, or a
// variable's handle (its reads all feed it).
ir::Output gradientTarget(EvaluatorImpl &ev, const Value &x, const SourceLoc &loc) {
  if (auto v = x.objectAs<VariableObject>())
    return ir::Output{v->info.handle, 0};
  if (x.is(Value::kTensor))
    return x.asTensor().out;
  throwError(Code::kTypeError, "gradients() takes tensors and variables, got " + x.typeName(),
             loc);
  (void)ev;
}

} // namespace

std::vector<std::optional<ir::Output>> buildGradients(EvaluatorImpl &ev,
                                                      const std::vector<ir::Output> &ys,
                                                      const std::vector<ir::Output> &xs,
                                                      const std::vector<std::optional<ir::Output>> &gradYs,
                                                      const std::string &name,
                                                      const SourceLoc &loc) {
  Expected<std::vector<std::optional<ir::Output>>> r = [&] {
    NameScopeGuard scope(ev.ts(), ev.uniqueScope(name));
    ir::GradientOptions opts;
    opts.factory = [&ev](ir::NodeSpec spec) -> Expected<ir::Node *> {
      spec.name = ev.scopedName(spec.name);
      try {
        return &ev.addNode(std::move(spec));
      } catch (LangError &e) {
        return e.status;
      }
    };
    return ir::buildGradients(*ev.graph().graph, ys, xs, gradYs, opts);
  }();
  if (!r.hasValue()) {
    Status s = r.takeStatus();
    throwStatus(std::move(s), s.loc().valid() ? s.loc() : loc);
  }
  return std::move(*r);
}

namespace {

Value gradientsBuiltin(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "gradients", {"ys", "xs", "grad_ys", "name", "colocate_gradients_with_ops",
                                 "gate_gradients", "aggregation_method", "stop_gradients"});
  auto listOf = [&](const Value &v) {
    return v.isSequence() ? ev.iterate(v, a.loc) : std::vector<Value>{v};
  };
  std::vector<ir::Output> ys, xs;
  for (const Value &y : listOf(requireArg(a, 0, "ys", "gradients")))
    ys.push_back(ev.toTensor(y, std::nullopt, a.loc));
  Value xsV = requireArg(a, 1, "xs", "gradients");
  for (const Value &x : listOf(xsV))
    xs.push_back(gradientTarget(ev, x, a.loc));
  std::vector<std::optional<ir::Output>> gradYs;
  if (Value g = argOr(a, 2, "grad_ys", Value::none()); !g.isNone()) {
    std::vector<Value> gs = listOf(g);
    if (gs.size() != ys.size())
      throwError(Code::kValueError,
                 "Passed " + std::to_string(gs.size()) + " grad_ys for " +
                     std::to_string(ys.size()) + " ys",
                 a.loc);
    for (size_t i = 0; i < gs.size(); ++i) {
      if (gs[i].isNone()) {
        gradYs.emplace_back();
        continue;
      }
      const ir::Node &yn = ev.graph().graph->node(ys[i].node);
      gradYs.push_back(ev.toTensor(gs[i], yn.outputType(ys[i].index), a.loc));
    }
  }
  std::string name = toStr(argOr(a, 3, "name", Value::string("gradients")), "name", a.loc);
  auto grads = buildGradients(ev, ys, xs, gradYs, name, a.loc);
  List out;
  for (const auto &g : grads)
    out.push_back(g ? Value::tensor(&ev.graph(), *g) : Value::none());
  return Value::list(std::move(out));
}

Value exponentialDecay(EvaluatorImpl &ev, CallArgs &a) {
  // lr * decay_rate ^ (global_step / decay_steps), the exponent floored
  // with staircase (TF's tf.train.exponential_decay).
  checkKeywords(a, "exponential_decay", {"learning_rate", "global_step", "decay_steps",
                                         "decay_rate", "staircase", "name"});
  const SourceLoc &loc = a.loc;
  std::string name = toStr(argOr(a, 5, "name", Value::string("ExponentialDecay")), "name", loc);
  NameScopeGuard scope(ev.ts(), ev.uniqueScope(name));
  auto tensor = [&](const Value &v, std::optional<ir::DType> dt) {
    return ev.toTensor(v, dt, loc);
  };
  ir::Output lr = tensor(requireArg(a, 0, "learning_rate", "exponential_decay"), ir::DType::kF32);
  ir::DType dt = ev.graph().graph->node(lr.node).outputType(lr.index);
  ir::Output step = tensor(requireArg(a, 1, "global_step", "exponential_decay"), std::nullopt);
  if (ev.graph().graph->node(step.node).outputType(step.index) != dt)
    step = ev.makeOp("cast", {step}, {{"dtype", dt}}, loc).asTensor().out;
  ir::Output steps = tensor(requireArg(a, 2, "decay_steps", "exponential_decay"), dt);
  ir::Output rate = tensor(requireArg(a, 3, "decay_rate", "exponential_decay"), dt);
  ir::Output p = ev.makeOp("divide", {step, steps}, {}, loc).asTensor().out;
  if (ev.truthy(argOr(a, 4, "staircase", Value::boolean(false)), loc))
    p = ev.makeOp("floor", {p}, {}, loc).asTensor().out;
  return ev.makeOp("multiply", {lr, ev.makeOp("pow", {rate, p}, {}, loc).asTensor().out}, {},
                   loc);
}

} // namespace

void installTrainingBuiltins(EvaluatorImpl &, Env &env) {
  env.set("gradients", Value::builtin("gradients", gradientsBuiltin));
  env.set("trainable_variables", Value::builtin("trainable_variables", [](EvaluatorImpl &ev,
                                                                         CallArgs &) {
            List out;
            for (const auto &v : ev.graph().globalVariables)
              if (v.trainable)
                out.push_back(Value::object(std::make_shared<VariableObject>(&ev.graph(), v)));
            return Value::list(std::move(out));
          }));
  env.set("exponential_decay", Value::builtin("exponential_decay", exponentialDecay));
}

} // namespace sluice::frontend
