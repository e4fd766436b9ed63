// driver/op_kernels.h: which kernels an op has on the CPU, in the JIT and
// on a GPU, asked of the kernel registries and of the fusion and GPU claim
// predicates themselves, for the op reference.
#pragma once

#include <vector>

#include "ir/dtype.h"
#include "ir/op_def.h"

namespace sluice::driver {

/// An op's kernels. The answers come from registrations and predicates,
/// never from this machine's devices, so they are the same on every host.
struct OpKernels {
  /// A built-in kernel (backend/kernel_registry.h); the JIT backend runs
  /// it too, for nodes it does not fuse.
  bool cpu = false;
  /// The JIT registers a kernel of its own for the op (`fused`, compiled
  /// with LLVM).
  bool jitKernel = false;
  /// Output dtypes for which fusion (passes/fusion.h) puts the op in
  /// clusters, which the JIT compiles.
  std::vector<ir::DType> jitFused;
  /// A kernel of GPU code or a GPU-side kernel (backend/gpu/gpu_kernels.h).
  bool gpuKernel = false;
  /// Output dtypes for which a GPU claims the op for its fused clusters
  /// (rt::gpuClaimsOpType; reductions only when large enough).
  std::vector<ir::DType> gpuFused;
};

OpKernels opKernels(const ir::OpDef &op);

} // namespace sluice::driver
