// backend/gpu/gpu_kernels.h: the kernels of GPU devices.
#pragma once

#include "backend/kernel_registry.h"

namespace sluice::backend::gpu {

/// Adds the GPU kernels to `reg`: `fused` as PTX (its body compiled for
/// the device's compute capability, loaded once per device and body; a
/// body without GPU code runs on the host instead, with a note), send
/// (device to host, then the rendezvous) and recv (the rendezvous, then
/// host to device), constant (uploaded once), identity, matmul of f32
/// and f64 through cuBLAS (claimed only when cuBLAS opens); and a GPU
/// claim, for placement, on every node of a `host` op that `elementwise`
/// accepts: fusion makes such nodes `fused` on their GPU, and one that
/// stays a plain op runs `host`'s kernel between copies. `host` must
/// outlive `reg`'s kernels.
void registerGpuKernels(KernelRegistry &reg, const KernelRegistry &host,
                        const KernelSupport &elementwise);

} // namespace sluice::backend::gpu
