// runtime/pass_config.cc: sessions' and compile's pass options.
#include "runtime/pass_config.h"

#include "backend/host_eval.h"
#include "runtime/session_devices.h"

namespace sluice::rt {

passes::KernelQueries kernelQueries(const backend::KernelRegistry *registry) {
  const backend::KernelRegistry &kernels = registry ? *registry : backend::kernelRegistry();
  passes::KernelQueries q;
  q.hasKernel = [&kernels](const ir::Node &n, const std::string &type) {
    return kernels.supports(n, type);
  };
  // Folding computes what the reference kernels would at run time, so a
  // folded constant is the value an unfolded run gives.
  q.evaluate = [](const ir::Node &n, const std::vector<const ir::Tensor *> &inputs) {
    return backend::evaluateOnHost(backend::kernelRegistry(), n, inputs);
  };
  return q;
}

std::vector<std::string> placementDevices(const SessionOptions &opts, const ir::Graph &g) {
  return opts.cluster ? opts.cluster->devices() : sessionDevices(g, opts.deviceCount);
}

passes::PassOptions passOptions(const SessionOptions &opts, std::vector<std::string> devices) {
  passes::PassOptions po;
  po.constantFolding = opts.constantFolding;
  po.fuseReadDecode = opts.fuseReadDecode;
  po.devices = std::move(devices);
  po.allowSoftPlacement = opts.allowSoftPlacement;
  po.kernels = kernelQueries(sessionKernels(opts.kernels, opts.backend, opts.fusion));
  return po;
}

passes::PassOptions sessionPassOptions(const SessionOptions &opts, const ir::Graph &g) {
  passes::PassOptions po = passOptions(opts, placementDevices(opts, g));
  po.noGpuReason = noGpuReason();
  return po;
}

} // namespace sluice::rt
