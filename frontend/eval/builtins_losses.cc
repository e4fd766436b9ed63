// frontend/eval/builtins_losses.cc: TF1's losses (tf.nn.*_cross_entropy_
// with_logits, tf.losses.mean_squared_error, tf.nn.l2_loss) built from
// differentiable ops in their numerically stable forms, and the `dense`
// layer (tf.layers.dense: kernel, bias, activation).
#include <cmath>

#include "frontend/eval/objects.h"
#include "frontend/eval/training.h"

namespace sluice::frontend {

namespace {

// Builds ops at one call site, inside a fresh name scope.
class Ops {
public:
  Ops(EvaluatorImpl &ev, const SourceLoc &loc, const std::string &scope)
      : ev_(ev), loc_(loc), scope_(ev.ts(), ev.uniqueScope(scope)) {}
  Ops(const Ops &) = delete;
  Ops &operator=(const Ops &) = delete;

  ir::Output operator()(const std::string &op, std::vector<ir::Output> in, ir::AttrMap attrs = {},
                        const std::string &name = "") {
    return ev_.makeOp(op, std::move(in), std::move(attrs), loc_, name).asTensor().out;
  }
  ir::Output tensor(const Value &v, std::optional<ir::DType> t = std::nullopt) {
    return ev_.toTensor(v, t, loc_);
  }
  ir::Output scalar(double v, ir::DType t) {
    return tensor(Value::real(v), t);
  }
  const ir::Node &node(ir::Output o) { return ev_.graph().graph->node(o.node); }
  ir::DType dtype(ir::Output o) { return node(o).outputType(o.index); }
  const ir::Shape &shape(ir::Output o) { return node(o).outputShape(o.index); }
  Value value(ir::Output o) { return Value::tensor(&ev_.graph(), o); }
  /// Calls a builtin as the language would (its defaults, seeds, checks).
  Value call(const std::string &name, std::vector<Value> positional,
             std::vector<std::pair<std::string, Value>> keywords = {}) {
    CallArgs a;
    a.positional = std::move(positional);
    a.positionalLocs.assign(a.positional.size(), loc_);
    a.keywords = std::move(keywords);
    a.keywordLocs.assign(a.keywords.size(), loc_);
    a.loc = loc_;
    return ev_.call(*ev_.builtins->lookup(name), a);
  }

private:
  EvaluatorImpl &ev_;
  SourceLoc loc_;
  NameScopeGuard scope_;
};

std::string nameOr(CallArgs &a, size_t pos, const char *dflt) {
  Value v = argOr(a, pos, "name", Value::none());
  return v.isNone() ? std::string(dflt) : toStr(v, "name", a.loc);
}

// labels and logits of one float dtype and compatible static shapes.
std::pair<ir::Output, ir::Output> labelsAndLogits(Ops &o, CallArgs &a, const char *fn,
                                                  bool sameShape) {
  ir::Output logits = o.tensor(requireArg(a, 1, "logits", fn), ir::DType::kF32);
  ir::DType t = o.dtype(logits);
  if (!ir::isFloating(t))
    throwError(Code::kTypeError, std::string(fn) + ": logits must be floats, got " +
                                     std::string(ir::dtypeName(t)), a.loc);
  ir::Output labels = o.tensor(requireArg(a, 0, "labels", fn), t);
  if (sameShape && !o.shape(logits).isCompatibleWith(o.shape(labels)))
    throwError(Code::kValueError,
               "logits and labels must have the same shape (" + o.shape(logits).str() + " vs " +
                   o.shape(labels).str() + ")",
               a.loc);
  return {labels, logits};
}

Value sigmoidCrossEntropy(EvaluatorImpl &ev, CallArgs &a) {
  // max(x, 0) - x * z + log(1 + exp(-|x|)): no overflow for any x.
  checkKeywords(a, "sigmoid_cross_entropy_with_logits", {"labels", "logits", "name"});
  Ops o(ev, a.loc, nameOr(a, 2, "logistic_loss"));
  auto [z, x] = labelsAndLogits(o, a, "sigmoid_cross_entropy_with_logits", true);
  ir::DType t = o.dtype(x);
  ir::Output relu = o("maximum", {x, o.scalar(0, t)});
  ir::Output negAbs = o("negative", {o("abs", {x})});
  ir::Output softplus = o("log", {o("add", {o.scalar(1, t), o("exp", {negAbs})})});
  return o.value(o("add", {o("subtract", {relu, o("multiply", {x, z})}), softplus}));
}

Value softmaxCrossEntropy(EvaluatorImpl &ev, CallArgs &a) {
  // -sum(labels * log_softmax(logits)); as TF1's, no gradient into labels.
  checkKeywords(a, "softmax_cross_entropy_with_logits", {"labels", "logits", "dim", "axis", "name"});
  Value axisV = argOr(a, 2, "dim", argOr(a, 999, "axis", Value::integer(-1)));
  int64_t axis = toInt(axisV, "dim", a.loc);
  Ops o(ev, a.loc, nameOr(a, 3, "softmax_cross_entropy_with_logits"));
  auto [labels, logits] = labelsAndLogits(o, a, "softmax_cross_entropy_with_logits", true);
  ir::Output lsm = o("log_softmax", {logits}, {{"axis", axis}});
  ir::Output fixed = o("stop_gradient", {labels});
  ir::Output sum = o("reduce_sum", {o("multiply", {fixed, lsm})},
                     {{"axis", std::vector<int64_t>{axis}}});
  return o.value(o("negative", {sum}));
}

Value sparseSoftmaxCrossEntropy(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "sparse_softmax_cross_entropy_with_logits", {"labels", "logits", "name"});
  Ops o(ev, a.loc, nameOr(a, 2, "SparseSoftmaxCrossEntropyWithLogits"));
  ir::Output logits = o.tensor(requireArg(a, 1, "logits", "sparse_softmax_cross_entropy_with_logits"),
                               ir::DType::kF32);
  ir::Output labels = o.tensor(requireArg(a, 0, "labels", "sparse_softmax_cross_entropy_with_logits"),
                               ir::DType::kI32);
  const ir::Shape &ls = o.shape(logits);
  if (!ls.hasRank() || ls.rank() < 1 || ls.dim(ls.rank() - 1) < 0)
    throwError(Code::kValueError,
               "sparse_softmax_cross_entropy_with_logits needs the number of classes (the last "
               "dim of logits) to be known, got " + ls.str(),
               a.loc);
  if (!ir::isInteger(o.dtype(labels)))
    throwError(Code::kTypeError, "labels must be integers (class indices), got " +
                                     std::string(ir::dtypeName(o.dtype(labels))), a.loc);
  const ir::Shape &lab = o.shape(labels);
  if (lab.hasRank() && lab.rank() != ls.rank() - 1)
    throwError(Code::kValueError,
               "Rank mismatch: Rank of labels (received " + std::to_string(lab.rank()) +
                   ") should equal rank of logits minus 1 (received " + std::to_string(ls.rank()) +
                   ").",
               a.loc);
  ir::DType t = o.dtype(logits);
  ir::Output hot = o("one_hot", {labels}, {{"depth", ls.dim(ls.rank() - 1)}, {"dtype", t}});
  ir::Output lsm = o("log_softmax", {logits}, {{"axis", int64_t{-1}}});
  ir::Output sum = o("reduce_sum", {o("multiply", {hot, lsm})},
                     {{"axis", std::vector<int64_t>{-1}}});
  return o.value(o("negative", {sum}));
}

Value meanSquaredError(EvaluatorImpl &ev, CallArgs &a) {
  // tf.losses.mean_squared_error: the weighted mean over the non-zero
  // weights (SUM_BY_NONZERO_WEIGHTS); with weights 1 the plain mean.
  checkKeywords(a, "mean_squared_error", {"labels", "predictions", "weights", "scope"});
  Value scope = argOr(a, 3, "scope", Value::none());
  Ops o(ev, a.loc, scope.isNone() ? "mean_squared_error" : toStr(scope, "scope", a.loc));
  ir::Output pred = o.tensor(requireArg(a, 1, "predictions", "mean_squared_error"), ir::DType::kF32);
  ir::DType t = o.dtype(pred);
  ir::Output labels = o.tensor(requireArg(a, 0, "labels", "mean_squared_error"), t);
  if (!o.shape(pred).isCompatibleWith(o.shape(labels)))
    throwError(Code::kValueError,
               "Shapes " + o.shape(pred).str() + " and " + o.shape(labels).str() +
                   " are incompatible",
               a.loc);
  ir::Output sq = o("squared_difference", {pred, labels});
  Value w = argOr(a, 2, "weights", Value::none());
  if (w.isNone())
    return o.value(o("reduce_mean", {sq}));
  ir::Output weights = o("broadcast_to", {o.tensor(w, t), o("shape", {sq})});
  ir::Output nonzero = o("cast", {o("not_equal", {weights, o.scalar(0, t)})}, {{"dtype", t}});
  ir::Output total = o("reduce_sum", {o("multiply", {sq, weights})});
  ir::Output count = o("maximum", {o("reduce_sum", {nonzero}), o.scalar(1, t)});
  return o.value(o("divide", {total, count}));
}

Value l2Loss(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "l2_loss", {"t", "name"});
  Ops o(ev, a.loc, nameOr(a, 1, "L2Loss"));
  ir::Output t = o.tensor(requireArg(a, 0, "t", "l2_loss"), ir::DType::kF32);
  return o.value(o("divide", {o("reduce_sum", {o("square", {t})}), o.scalar(2, o.dtype(t))}));
}

Value dense(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "dense", {"inputs", "units", "activation", "use_bias", "kernel_initializer",
                             "bias_initializer", "name", "trainable"});
  ir::Output in = ev.toTensor(requireArg(a, 0, "inputs", "dense"), ir::DType::kF32, a.loc);
  int64_t units = toInt(requireArg(a, 1, "units", "dense"), "units", a.loc);
  if (units <= 0)
    throwError(Code::kValueError, "units must be positive, got " + std::to_string(units), a.loc);
  Value activation = argOr(a, 2, "activation", Value::none());
  bool useBias = ev.truthy(argOr(a, 3, "use_bias", Value::boolean(true)), a.loc);
  Value kernelInit = argOr(a, 4, "kernel_initializer", Value::none());
  Value biasInit = argOr(a, 5, "bias_initializer", Value::none());
  bool trainable = ev.truthy(argOr(a, 7, "trainable", Value::boolean(true)), a.loc);
  Ops o(ev, a.loc, nameOr(a, 6, "dense"));
  const ir::Shape &s = o.shape(in);
  if (!s.hasRank() || s.rank() < 2 || s.dim(s.rank() - 1) < 0)
    throwError(Code::kValueError,
               "The last dimension of the inputs to `dense` should be defined. Found " + s.str(),
               a.loc);
  ir::DType t = o.dtype(in);
  int64_t fanIn = s.dim(s.rank() - 1);
  auto shapeValue = [](std::vector<int64_t> dims) {
    List l;
    for (int64_t d : dims)
      l.push_back(Value::integer(d));
    return Value::list(std::move(l));
  };
  // An initializer is a function of the shape (TF's initializer objects);
  // the default kernel is Glorot uniform, as tf.layers.dense's.
  auto initial = [&](const Value &init, std::vector<int64_t> dims, bool kernel) {
    if (!init.isNone()) {
      CallArgs ia;
      ia.positional = {shapeValue(dims)};
      ia.positionalLocs = {a.loc};
      ia.loc = a.loc;
      return ev.call(init, ia);
    }
    if (!kernel)
      return o.call("zeros", {shapeValue(dims)}, {{"dtype", Value::dtype(t)}});
    double limit = std::sqrt(6.0 / static_cast<double>(dims[0] + dims[1]));
    return o.call("random_uniform", {shapeValue(dims), Value::real(-limit), Value::real(limit)},
                  {{"dtype", Value::dtype(t)}});
  };
  VariableOptions vo;
  vo.trainable = trainable;
  vo.dtype = t;
  Value kernel = createVariable(ev, "kernel", initial(kernelInit, {fanIn, units}, true), vo, a.loc);
  ir::Output y = o("matmul", {in, ev.toTensor(kernel, t, a.loc)}, {}, "MatMul");
  if (useBias) {
    Value bias = createVariable(ev, "bias", initial(biasInit, {units}, false), vo, a.loc);
    y = o("add", {y, ev.toTensor(bias, t, a.loc)}, {}, "BiasAdd");
  }
  if (activation.isNone())
    return o.value(y);
  CallArgs ca;
  ca.positional = {o.value(y)};
  ca.positionalLocs = {a.loc};
  ca.loc = a.loc;
  return ev.call(activation, ca);
}

} // namespace

void installLossBuiltins(EvaluatorImpl &, Env &env) {
  env.set("sigmoid_cross_entropy_with_logits",
          Value::builtin("sigmoid_cross_entropy_with_logits", sigmoidCrossEntropy));
  env.set("softmax_cross_entropy_with_logits",
          Value::builtin("softmax_cross_entropy_with_logits", softmaxCrossEntropy));
  env.set("sparse_softmax_cross_entropy_with_logits",
          Value::builtin("sparse_softmax_cross_entropy_with_logits", sparseSoftmaxCrossEntropy));
  env.set("mean_squared_error", Value::builtin("mean_squared_error", meanSquaredError));
  env.set("l2_loss", Value::builtin("l2_loss", l2Loss));
  env.set("dense", Value::builtin("dense", dense));
}

} // namespace sluice::frontend
