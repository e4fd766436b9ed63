// ir/op_registry.cc: the op table and its one-time explicit fill.
#include "ir/op_registry.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace sluice::ir {

void OpRegistry::add(OpDef def) {
  std::string name = def.name;
  if (def.family.empty())
    def.family = family_;
  bool inserted =
      ops_.emplace(name, std::make_unique<OpDef>(std::move(def))).second;
  assert(inserted && "op registered twice");
  (void)inserted;
}

const OpDef *OpRegistry::find(std::string_view name) const {
  auto it = ops_.find(std::string(name));
  return it == ops_.end() ? nullptr : it->second.get();
}

void OpRegistry::setGradient(std::string_view name, GradFn fn) {
  auto it = ops_.find(std::string(name));
  assert(it != ops_.end() && "gradient for an unknown op");
  it->second->gradient = std::move(fn);
}

void OpRegistry::setNotDifferentiable(std::string_view name) {
  auto it = ops_.find(std::string(name));
  assert(it != ops_.end() && "NotDifferentiable for an unknown op");
  it->second->notDifferentiable = true;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &[k, v] : ops_)
    out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

void OpRegistry::beginFamily(std::string family) {
  if (!family.empty() &&
      std::find(families_.begin(), families_.end(), family) == families_.end())
    families_.push_back(family);
  family_ = std::move(family);
}

void registerAllOps(OpRegistry &reg) {
  const std::pair<const char *, void (*)(OpRegistry &)> families[] = {
      {"math", registerMathOps},
      {"array", registerArrayOps},
      {"random", registerRandomOps},
      {"state", registerStateOps},
      {"string", registerStringOps},
      {"control", registerControlOps},
      {"data flow", registerDataFlowOps},
      {"accumulator", registerAccumulatorOps},
      {"io", registerIoOps},
      {"summary", registerSummaryOps},
      {"parsing", registerParsingOps},
      {"pipeline", registerPipelineOps},
      {"dataset", registerDatasetOps},
      {"transfer", registerTransferOps},
      {"gradient", registerGradientOps},
      {"training", registerTrainingOps},
      {"fused", registerFusedOps},
  };
  for (const auto &[family, registerFamily] : families) {
    reg.beginFamily(family);
    registerFamily(reg);
  }
  reg.beginFamily(""); // ops a caller adds later (tests) have none
  // Last: the rules refer to the ops above.
  registerAllGradients(reg);
}

const OpRegistry &opRegistry() {
  static const OpRegistry reg = [] {
    OpRegistry r;
    registerAllOps(r);
    return r;
  }();
  return reg;
}

} // namespace sluice::ir
