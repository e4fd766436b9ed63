// runtime/session_devices.h: what a local session runs on: its devices
// (CPUs, and the GPUs the driver reports) and the kernel registry its
// placer and executors share, so a node goes where its kernel is.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "backend/kernel_registry.h"
#include "ir/graph.h"

namespace sluice::rt {

/// passes::localDevices with this process's GPUs (backend/gpu).
std::vector<std::string> sessionDevices(const ir::Graph &g,
                                        const std::map<std::string, int> &deviceCount);

/// `custom` when set (tests); for the jit backend the JIT's kernels, plus
/// the GPU kernels when fusion is on (a GPU runs fused clusters); null
/// (the built-in kernels) for the interpreter.
const backend::KernelRegistry *sessionKernels(const backend::KernelRegistry *custom,
                                              const std::string &backend, bool fusion);

/// A GPU claims a reduction only with this many fixed outputs or more: it
/// takes a thread per output element (a row program, a thread per row),
/// and below this too few threads run for the device to pay off.
inline constexpr int64_t kMinGpuReductionOutputs = 4096;

/// Whether a GPU claims nodes of `op` whose outputs are `t`, for its fused
/// clusters, before it looks at their shapes (kMinGpuReductionOutputs, a
/// known rank): the op-and-dtype half of the GPU's claim. The op reference
/// lists the dtypes for which it holds.
bool gpuClaimsOpType(std::string_view op, ir::DType t);

/// Why a /gpu request cannot be met here ("" when there are GPUs).
std::string noGpuReason();

/// The device type of a full device name ("GPU" for ".../device:GPU:0").
std::string deviceTypeOf(const std::string &device);

} // namespace sluice::rt
