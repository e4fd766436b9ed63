// backend/gpu/fused_kernel.cc: `fused` on a GPU: the body's PTX (backend/
// jit/gpu_program.h) for the device's compute capability, one launch per
// loop nest on the device's stream; a body without GPU code runs on the
// host between copies (backend/gpu/host_kernel.h).
#include <mutex>

#include "backend/fused_interpreter.h"
#include "backend/gpu/gpu_kernels.h"
#include "backend/gpu/host_kernel.h"
#include "backend/gpu/platform.h"
#include "backend/jit/gpu_program.h"

namespace sluice::backend::gpu {

namespace {

class FusedKernel final : public OpKernel {
public:
  FusedKernel(const ir::Node &n, std::shared_ptr<Device> dev, const KernelRegistry &host)
      : OpKernel(n), dev_(std::move(dev)), host_(host) {}

  void compute(KernelContext &ctx) override {
    if (!prepare(ctx))
      return;
    if (fallback_)
      return fallback_->compute(ctx);
    const jit::ElementProgram &p = program_.program;
    if (ctx.numInputs() != static_cast<int>(p.inputTypes.size()) ||
        ctx.numOutputs() != static_cast<int>(p.outputTypes.size()))
      return ctx.fail(invalidArgument("fused node's inputs and outputs do not match its body '" +
                                      p.name + "'"));
    // Kept alive until the launches are queued: cuMemFree waits for them.
    std::vector<ir::Tensor> ins;
    std::vector<CUdeviceptr> ptrs;
    for (int k = 0; k < ctx.numInputs(); ++k) {
      const ir::Tensor &t = ctx.input(k);
      if (t.dtype() != p.inputTypes[k] || t.dims() != p.inputDims[k])
        return ctx.fail(invalidArgument(
            "fused input " + std::to_string(k) + " is " + std::string(ir::dtypeName(t.dtype())) +
            ir::dimsString(t.dims()) + ", its code was compiled for " +
            std::string(ir::dtypeName(p.inputTypes[k])) + ir::dimsString(p.inputDims[k])));
      auto d = dev_->place(t); // a fed value arrives in host memory
      if (!d.hasValue())
        return ctx.fail(d.takeStatus());
      ptrs.push_back(d->deviceMemory()->address());
      ins.push_back(std::move(*d));
    }
    for (int k = 0; k < ctx.numOutputs(); ++k) {
      auto d = dev_->allocateTensor(p.outputTypes[k], p.outputDims[k]);
      if (!d.hasValue())
        return ctx.fail(d.takeStatus());
      ptrs.push_back(d->deviceMemory()->address());
      ctx.setOutput(k, std::move(*d));
    }
    for (size_t n = 0; n < fns_.size(); ++n) {
      int64_t count = program_.counts[n];
      std::vector<void *> params;
      for (CUdeviceptr &ptr : ptrs)
        params.push_back(&ptr);
      params.push_back(&count);
      Status s = dev_->launch(fns_[n], count, params.data());
      if (!s.isOk())
        return ctx.fail(Status(s.code(), s.message() + " running " + program_.entries[n]));
      countLaunch();
    }
  }

private:
  // Compiles and loads the PTX once; concurrent steps wait for it.
  bool prepare(KernelContext &ctx) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!fns_.empty() || fallback_)
      return true;
    if (!failed_.isOk()) {
      ctx.fail(failed_);
      return false;
    }
    auto def = fusedBody(node(), ctx);
    if (!def.hasValue()) {
      failed_ = def.takeStatus();
      ctx.fail(failed_);
      return false;
    }
    std::string archNote;
    std::string arch = ptxArch(dev_->computeCapability(), &archNote);
    if (!archNote.empty())
      note(dev_->label() + ": " + archNote);
    Status why;
    auto prog = jit::compileGpuProgram(**def, "sluice_" + jit::ptxIdentifier(node().name()), arch);
    if (prog.hasValue()) {
      std::vector<CUfunction> fns;
      for (const std::string &e : prog->entries) {
        auto f = dev_->function(prog->ptx, e);
        if (!f.hasValue()) {
          why = f.takeStatus();
          break;
        }
        fns.push_back(*f);
      }
      if (why.isOk()) {
        countModule();
        program_ = std::move(*prog);
        fns_ = std::move(fns);
        return true;
      }
    } else {
      why = prog.takeStatus();
    }
    // No GPU code: the host runs the body (the JIT or the interpreter,
    // whichever `host` has for fused) between copies.
    auto k = host_.create(node(), "CPU");
    if (!k.hasValue()) {
      failed_ = k.takeStatus();
      ctx.fail(failed_);
      return false;
    }
    note("'" + node().name() + "' runs on the host between copies: " + why.message());
    fallback_ = std::make_unique<HostKernel>(node(), dev_, std::move(*k));
    return true;
  }

  std::shared_ptr<Device> dev_;
  const KernelRegistry &host_;
  std::mutex mu_;
  jit::GpuProgram program_;
  std::vector<CUfunction> fns_; // per nest
  std::unique_ptr<HostKernel> fallback_;
  Status failed_;
};

} // namespace

void registerFusedKernel(KernelRegistry &reg, const KernelRegistry &host) {
  const KernelRegistry *h = &host;
  reg.add("fused", "GPU", [h](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
    SLUICE_ASSIGN_OR_RETURN(auto dev, deviceOf(n.assignedDevice()));
    return std::unique_ptr<OpKernel>(std::make_unique<FusedKernel>(n, std::move(dev), *h));
  });
}

} // namespace sluice::backend::gpu
