// ir/op_registry.h: every op Sluice knows, by TF name.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/op_def.h"

namespace sluice::ir {

class OpRegistry {
public:
  /// Adds an op; a second op with the same name is a programmer error.
  void add(OpDef def);
  const OpDef *find(std::string_view name) const;
  /// Sets an op's gradient rule (ir/grads/); the op must exist.
  void setGradient(std::string_view name, GradFn fn);
  /// Declares that an op's inputs get no gradient (TF's NotDifferentiable).
  void setNotDifferentiable(std::string_view name);
  /// Every op name, sorted.
  std::vector<std::string> names() const;
  /// Ops added from here on belong to `family` (OpDef::family); "" ends
  /// the current family.
  void beginFamily(std::string family);
  /// The families, in the order they began.
  const std::vector<std::string> &families() const { return families_; }

private:
  std::unordered_map<std::string, std::unique_ptr<OpDef>> ops_;
  std::vector<std::string> families_;
  std::string family_; // the family ops added now belong to
};

/// The process-wide registry, filled on first use by registerAllOps().
const OpRegistry &opRegistry();

/// Adds every op family in ir/ops/ to `reg` (explicit, no static init).
void registerAllOps(OpRegistry &reg);

// One function per family, each in ir/ops/<family>_ops.cc.
void registerMathOps(OpRegistry &reg);
void registerArrayOps(OpRegistry &reg);
void registerRandomOps(OpRegistry &reg);
void registerStateOps(OpRegistry &reg);
void registerStringOps(OpRegistry &reg);
void registerControlOps(OpRegistry &reg);
void registerDataFlowOps(OpRegistry &reg); // ir/ops/data_flow_ops.cc
void registerAccumulatorOps(OpRegistry &reg); // ir/ops/accumulator_ops.cc
void registerIoOps(OpRegistry &reg);      // ir/ops/io_ops.cc
void registerSummaryOps(OpRegistry &reg); // ir/ops/summary_ops.cc
void registerParsingOps(OpRegistry &reg); // ir/ops/parsing_ops.cc
void registerPipelineOps(OpRegistry &reg);
void registerDatasetOps(OpRegistry &reg);
void registerTransferOps(OpRegistry &reg);
void registerGradientOps(OpRegistry &reg); // ir/ops/gradient_ops.cc: ops gradient rules use
void registerTrainingOps(OpRegistry &reg); // ir/ops/training_ops.cc: the optimizers' apply ops
void registerFusedOps(OpRegistry &reg);    // ir/ops/fused_ops.cc: the fusion pass's clusters
void registerAllGradients(OpRegistry &reg); // ir/grads/*.cc

} // namespace sluice::ir
