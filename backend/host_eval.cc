// backend/host_eval.cc: a kernel run once, synchronously, on the host.
#include "backend/host_eval.h"

#include "backend/kernel.h"

namespace sluice::backend {

Expected<std::vector<ir::Tensor>> evaluateOnHost(const KernelRegistry &kernels,
                                                 const ir::Node &node,
                                                 const std::vector<const ir::Tensor *> &inputs) {
  SLUICE_ASSIGN_OR_RETURN(auto kernel, kernels.create(node, "CPU"));
  std::vector<ir::Tensor> outputs(node.numOutputs());
  KernelContext::Params p;
  p.node = &node;
  p.inputs = inputs.data();
  p.numInputs = static_cast<int>(inputs.size());
  p.outputs = outputs.data();
  p.numOutputs = node.numOutputs();
  KernelContext ctx(p);
  kernel->compute(ctx);
  if (!ctx.ok())
    return ctx.status();
  return outputs;
}

} // namespace sluice::backend
