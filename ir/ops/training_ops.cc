// ir/ops/training_ops.cc: the optimizers' update ops (TF's
// ResourceApply*): each updates its variables in place from a gradient
// and hyper-parameters, the slot variables (accumulators, moments) by
// handle too.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

using AT = AttrType;

// `handles` resource inputs, then `scalars` hyper-parameters and the
// gradient, all of dtype T.
void applyOp(OpRegistry &reg, const char *name, const char *tf,
             std::vector<const char *> handles, std::vector<const char *> values, bool nesterov,
             const char *doc) {
  OpDefBuilder b(name);
  // TF1's optimizers build the ref form for VariableV2, the Resource form
  // for resource variables; Sluice's one variable stands for both.
  b.tf(tf, "Resource" + std::string(tf));
  for (const char *h : handles)
    b.input(std::string(h) + ": resource");
  for (const char *v : values)
    b.input(std::string(v) + ": T");
  b.typeAttr("T", kFloatTypes).attr("use_locking", AT::kBool, false);
  if (nesterov)
    b.attr("use_nesterov", AT::kBool, false);
  reg.add(b.stateful().shape(scalarShape).doc(doc).build());
}

} // namespace

void registerTrainingOps(OpRegistry &reg) {
  applyOp(reg, "apply_gradient_descent", "ApplyGradientDescent", {"var"}, {"alpha", "delta"}, false,
          "var -= alpha * delta");
  applyOp(reg, "apply_momentum", "ApplyMomentum", {"var", "accum"}, {"lr", "grad", "momentum"}, true,
          "accum = accum * momentum + grad; var -= lr * accum (nesterov: lr * (grad + "
          "momentum * accum))");
  applyOp(reg, "apply_adagrad", "ApplyAdagrad", {"var", "accum"}, {"lr", "grad"}, false,
          "accum += grad^2; var -= lr * grad / sqrt(accum)");
  applyOp(reg, "apply_rms_prop", "ApplyRMSProp", {"var", "ms", "mom"}, {"lr", "rho", "momentum", "epsilon", "grad"},
          false,
          "ms = rho * ms + (1 - rho) * grad^2; mom = momentum * mom + lr * grad / sqrt(ms + "
          "epsilon); var -= mom");
  applyOp(reg, "apply_adam", "ApplyAdam", {"var", "m", "v"},
          {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"}, true,
          "lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); m = beta1 * m + (1 - beta1) "
          "* grad; v = beta2 * v + (1 - beta2) * grad^2; var -= lr_t * m / (sqrt(v) + "
          "epsilon)");
}

} // namespace sluice::ir
