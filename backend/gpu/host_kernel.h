// backend/gpu/host_kernel.h: a host kernel run for a node on a GPU: its
// device inputs are copied to the host, the host kernel computes, and its
// outputs are copied back. What placement put on a GPU but the GPU has no
// code for (a shape only known at run time, a math call without
// libdevice) still runs, with a note, instead of failing.
#pragma once

#include <memory>

#include "backend/gpu/device.h"
#include "backend/kernel.h"

namespace sluice::backend::gpu {

class HostKernel final : public OpKernel {
public:
  HostKernel(const ir::Node &node, std::shared_ptr<Device> dev, std::unique_ptr<OpKernel> host)
      : OpKernel(node), dev_(std::move(dev)), host_(std::move(host)) {}
  void compute(KernelContext &ctx) override;
  bool isExpensive() const override { return host_->isExpensive(); }

private:
  std::shared_ptr<Device> dev_;
  std::unique_ptr<OpKernel> host_;
};

/// Host-side counters of the GPU backend (tests, notes).
struct GpuStats {
  int64_t launches = 0;      // kernels queued
  int64_t hostFallbacks = 0; // node runs on the host (HostKernel)
  int64_t modulesLoaded = 0; // GPU programs compiled and loaded (per shape set)
};
GpuStats stats();
void countLaunch();
void countHostRun();
void countModule();

/// Writes `line` to stderr as a note when SLUICE_GPU_LOG is set.
void note(const std::string &line);

} // namespace sluice::backend::gpu
