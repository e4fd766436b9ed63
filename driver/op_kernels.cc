// driver/op_kernels.cc: an op's kernels, from the registries and predicates
// the runtime itself uses (see op_kernels.h).
#include "driver/op_kernels.h"

#include <functional>

#include "backend/gpu/gpu_kernels.h"
#include "backend/jit/jit.h"
#include "backend/kernel_registry.h"
#include "passes/fusion.h"
#include "runtime/session_devices.h"

namespace sluice::driver {

namespace {

/// The kernels the JIT registers itself, without the built-in ones it
/// adds them to.
const backend::KernelRegistry &jitOwnKernels() {
  static const backend::KernelRegistry reg = [] {
    backend::KernelRegistry r;
    backend::jit::registerJitKernels(r);
    return r;
  }();
  return reg;
}

/// The GPU's own kernels: registered over an empty host registry, so that
/// none of the host-kernel claims (what gpuFused reports) is among them.
/// Registering opens no driver; nothing here asks whether a GPU exists.
const backend::KernelRegistry &gpuOwnKernels() {
  static const backend::KernelRegistry host{};
  static const backend::KernelRegistry reg = [] {
    backend::KernelRegistry r;
    backend::gpu::registerGpuKernels(r, host, nullptr);
    return r;
  }();
  return reg;
}

/// The dtypes output 0 of `op` may have: its fixed type, or those its
/// type attr allows (every dtype when it allows any).
std::vector<ir::DType> outputTypeCandidates(const ir::OpDef &op) {
  if (op.outputs.empty() || op.outputs[0].isList())
    return {};
  const ir::ArgDef &out = op.outputs[0];
  if (out.fixedType != ir::DType::kInvalid)
    return {out.fixedType};
  const ir::AttrDef *attr = op.findAttr(out.typeAttr);
  if (!attr)
    return {};
  if (!attr->allowed.empty())
    return attr->allowed;
  std::vector<ir::DType> all;
  for (int t = static_cast<int>(ir::DType::kF16); t <= static_cast<int>(ir::DType::kVariant); ++t)
    all.push_back(static_cast<ir::DType>(t));
  return all;
}

/// The candidates of output 0 for which `claims` holds of every output:
/// outputs typed like output 0 take its dtype, fixed ones their own; an
/// output typed by another attr makes the op claim nothing.
std::vector<ir::DType> claimedTypes(const ir::OpDef &op,
                                    const std::function<bool(ir::DType)> &claims) {
  std::vector<ir::DType> out;
  for (ir::DType t : outputTypeCandidates(op)) {
    bool all = true;
    for (const ir::ArgDef &o : op.outputs) {
      if (o.isList() || (o.fixedType == ir::DType::kInvalid && o.typeAttr != op.outputs[0].typeAttr))
        all = false;
      else
        all = all && claims(o.fixedType != ir::DType::kInvalid ? o.fixedType : t);
    }
    if (all)
      out.push_back(t);
  }
  return out;
}

} // namespace

OpKernels opKernels(const ir::OpDef &op) {
  OpKernels k;
  k.cpu = backend::kernelRegistry().has(op.name, "CPU");
  k.jitKernel = jitOwnKernels().has(op.name, "CPU");
  k.gpuKernel = gpuOwnKernels().has(op.name, "GPU");
  // Fusion never takes a stateful op, whatever its name.
  if (!op.stateful) {
    k.jitFused = claimedTypes(op, [&](ir::DType t) { return passes::isFusibleOpType(op.name, t); });
    k.gpuFused = claimedTypes(op, [&](ir::DType t) { return rt::gpuClaimsOpType(op.name, t); });
  }
  return k;
}

} // namespace sluice::driver
