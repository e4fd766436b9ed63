// backend/kernel_registry.cc: kernel lookup and the explicit one-time fill.
#include "backend/kernel_registry.h"

namespace sluice::backend {

void KernelRegistry::add(std::string op, std::string dev, KernelFactory f, KernelSupport s) {
  factories_[{std::move(op), std::move(dev)}] = Entry{std::move(f), std::move(s)};
}

std::vector<std::string> KernelRegistry::ops(const std::string &dev) const {
  std::vector<std::string> out;
  for (const auto &[key, entry] : factories_)
    if (key.second == dev)
      out.push_back(key.first);
  return out;
}

bool KernelRegistry::supports(const ir::Node &node, const std::string &dev) const {
  auto it = factories_.find({node.opName(), dev});
  return it != factories_.end() && (!it->second.supports || it->second.supports(node));
}

bool KernelRegistry::has(const std::string &op, const std::string &dev) const {
  return factories_.count({op, dev}) > 0;
}

Expected<std::unique_ptr<OpKernel>>
KernelRegistry::create(const ir::Node &node, const std::string &dev) const {
  auto it = factories_.find({node.opName(), dev});
  if (it == factories_.end())
    return Status(Code::kNotFound,
                  "no " + dev + " kernel for op '" + node.opName() + "'",
                  node.loc(), node.name());
  auto k = it->second.factory(node);
  if (!k.hasValue()) {
    Status s = k.takeStatus();
    s.withLoc(node.loc()).withNode(node.name());
    return s;
  }
  return k;
}

void registerAllKernels(KernelRegistry &reg) {
  registerMathKernels(reg);
  registerArrayKernels(reg);
  registerRandomKernels(reg);
  registerStateKernels(reg);
  registerStringKernels(reg);
  registerControlKernels(reg);
  registerDataFlowKernels(reg);
  registerAccumulatorKernels(reg);
  registerIoKernels(reg);
  registerCheckpointKernels(reg);
  registerSummaryKernels(reg);
  registerParsingKernels(reg);
  registerPipelineKernels(reg);
  registerDatasetKernels(reg);
  registerTransferKernels(reg);
  registerReadCsvKernels(reg);
  registerGradientKernels(reg);
  registerTrainingKernels(reg);
  registerFusedKernels(reg);
}

const KernelRegistry &kernelRegistry() {
  static const KernelRegistry reg = [] {
    KernelRegistry r;
    registerAllKernels(r);
    return r;
  }();
  return reg;
}

} // namespace sluice::backend
