// runtime/session_devices.cc: the session's devices and kernels.
#include "runtime/session_devices.h"

#include "backend/gpu/gpu_kernels.h"
#include "backend/gpu/platform.h"
#include "backend/jit/jit.h"
#include "ir/device_spec.h"
#include "passes/fusion.h"
#include "passes/placer.h"

namespace sluice::rt {

namespace {

// What a GPU claims: the ops fusion puts in a GPU cluster (elementwise,
// of a known rank; dims known only at run time get PTX per set of call
// shapes), and reductions with kMinGpuReductionOutputs fixed outputs or
// more, folding in the CPU kernel's order. Other reductions stay on the
// CPU (fusion never joins ops across devices).
bool gpuElementwise(const ir::Node &n) {
  if (!passes::isFusibleOp(n))
    return false;
  if (n.opName().rfind("reduce_", 0) == 0) {
    const ir::Shape &s = n.outputShape(0);
    return s.isFullyDefined() && s.numElements() >= kMinGpuReductionOutputs;
  }
  for (const ir::Shape &s : n.outputShapes())
    if (!s.hasRank())
      return false;
  return true;
}

} // namespace

bool gpuClaimsOpType(std::string_view op, ir::DType t) {
  return passes::isFusibleOpType(op, t);
}

std::vector<std::string> sessionDevices(const ir::Graph &g,
                                        const std::map<std::string, int> &deviceCount) {
  // {"GPU": 0} must not even open the driver.
  auto it = deviceCount.find("GPU");
  int gpus = it != deviceCount.end() && it->second <= 0 ? 0 : backend::gpu::deviceCount();
  return passes::localDevices(g, deviceCount, gpus);
}

const backend::KernelRegistry *sessionKernels(const backend::KernelRegistry *custom,
                                              const std::string &backend, bool fusion) {
  if (custom)
    return custom;
  if (backend != "jit")
    return nullptr;
  if (!fusion)
    return &backend::jit::jitKernelRegistry();
  static const backend::KernelRegistry reg = [] {
    backend::KernelRegistry r;
    backend::registerAllKernels(r);
    backend::jit::registerJitKernels(r);
    backend::gpu::registerGpuKernels(r, backend::jit::jitKernelRegistry(), gpuElementwise);
    return r;
  }();
  return &reg;
}

std::string noGpuReason() { return backend::gpu::unavailableReason(); }

std::string deviceTypeOf(const std::string &device) {
  auto spec = ir::DeviceSpec::parse(device);
  return spec.hasValue() && spec->deviceType ? *spec->deviceType : "CPU";
}

} // namespace sluice::rt
