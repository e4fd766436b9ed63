// backend/gpu/host_kernel.cc: host kernels behind device copies, and the
// backend's counters.
#include "backend/gpu/host_kernel.h"
#include "support/settings.h"

#include <atomic>
#include <cstdlib>
#include <iostream>

namespace sluice::backend::gpu {

namespace {
std::atomic<int64_t> launches{0}, hostRuns{0}, modules{0};
} // namespace

GpuStats stats() { return GpuStats{launches.load(), hostRuns.load(), modules.load()}; }
void countLaunch() { ++launches; }
void countHostRun() { ++hostRuns; }
void countModule() { ++modules; }

void note(const std::string &line) {
  if (settings()->gpuLog)
    std::cerr << "sluice-gpu: note: " << line << "\n";
}

void HostKernel::compute(KernelContext &ctx) {
  countHostRun();
  std::vector<ir::Tensor> hostIns(static_cast<size_t>(ctx.numInputs()));
  std::vector<const ir::Tensor *> ins;
  for (int k = 0; k < ctx.numInputs(); ++k) {
    auto h = ctx.input(k).toHost();
    if (!h.hasValue())
      return ctx.fail(h.takeStatus());
    hostIns[k] = std::move(*h);
    ins.push_back(&hostIns[k]);
  }
  std::vector<ir::Tensor> outs(static_cast<size_t>(ctx.numOutputs()));
  KernelContext hostCtx =
      ctx.nested(node(), ins.data(), ctx.numInputs(), outs.data(), ctx.numOutputs());
  host_->compute(hostCtx);
  if (!hostCtx.ok())
    return ctx.fail(hostCtx.status());
  for (int k = 0; k < ctx.numOutputs(); ++k) {
    ir::Tensor &o = outs[static_cast<size_t>(k)];
    if (!o.valid() || !ir::isPod(o.dtype())) {
      ctx.setOutput(k, std::move(o)); // the executor reports a missing output
      continue;
    }
    auto d = dev_->upload(o);
    if (!d.hasValue())
      return ctx.fail(d.takeStatus());
    ctx.setOutput(k, std::move(*d));
  }
}

} // namespace sluice::backend::gpu
