// backend/gpu/fused_kernel.cc: `fused` on a GPU: the body's PTX (backend/
// jit/gpu_program.h) for the device's compute capability, one launch per
// loop nest on the device's stream; a body whose shapes are known only at
// run time gets PTX per set of call shapes (backend/jit/specialize.h); a
// body (or shape set) without GPU code runs on the host between copies
// (backend/gpu/host_kernel.h).
#include <mutex>

#include "backend/fused_interpreter.h"
#include "backend/gpu/gpu_kernels.h"
#include "backend/gpu/host_kernel.h"
#include "backend/gpu/platform.h"
#include "backend/jit/gpu_program.h"
#include "backend/jit/specialize.h"

namespace sluice::backend::gpu {

namespace {

/// A GPU program and its loaded kernels (one per loop nest).
struct GpuCode {
  jit::GpuProgram program;
  std::vector<CUfunction> fns;
};

Expected<std::unique_ptr<GpuCode>> compile(Device &dev, const ir::FunctionDef &body,
                                           const std::string &symbol) {
  std::string archNote;
  std::string arch = ptxArch(dev.computeCapability(), &archNote);
  if (!archNote.empty())
    note(dev.label() + ": " + archNote);
  auto code = std::make_unique<GpuCode>();
  SLUICE_ASSIGN_OR_RETURN(code->program, jit::compileGpuProgram(body, symbol, arch));
  for (const std::string &e : code->program.entries) {
    SLUICE_ASSIGN_OR_RETURN(CUfunction f, dev.function(code->program.ptx, e));
    code->fns.push_back(f);
  }
  countModule();
  return code;
}

class FusedKernel final : public OpKernel {
public:
  FusedKernel(const ir::Node &n, std::shared_ptr<Device> dev, const KernelRegistry &host)
      : OpKernel(n), dev_(std::move(dev)), host_(host) {}

  void compute(KernelContext &ctx) override {
    if (!prepare(ctx))
      return;
    if (dynamic_) {
      std::vector<ir::Dims> dims;
      for (int k = 0; k < ctx.numInputs(); ++k)
        dims.push_back(ctx.input(k).dims());
      Status why;
      const GpuCode *c = shapes_.get(
          *def_, dims, [this](const ir::FunctionDef &b) { return compile(*dev_, b, symbol_); },
          &why);
      if (!why.isOk())
        note("'" + node().name() + "' runs on the host between copies for input shapes " +
             jit::shapesText(dims) + ": " + why.message());
      if (c)
        return launch(ctx, *c);
      OpKernel *host = nullptr;
      Status s;
      {
        std::lock_guard<std::mutex> lock(mu_);
        s = makeFallback();
        host = fallback_.get();
      }
      return host ? host->compute(ctx) : ctx.fail(s);
    }
    if (fallback_)
      return fallback_->compute(ctx);
    launch(ctx, *code_);
  }

private:
  void launch(KernelContext &ctx, const GpuCode &code) {
    const jit::ElementProgram &p = code.program.program;
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
    for (size_t n = 0; n < code.fns.size(); ++n) {
      int64_t count = code.program.counts[n];
      std::vector<void *> params;
      for (CUdeviceptr &ptr : ptrs)
        params.push_back(&ptr);
      params.push_back(&count);
      Status s = dev_->launch(code.fns[n], count, params.data());
      if (!s.isOk())
        return ctx.fail(Status(s.code(), s.message() + " running " + code.program.entries[n]));
      countLaunch();
    }
  }

  // The host kernel (the JIT or the interpreter, whichever `host` has for
  // fused) for what has no GPU code, made once; mu_ is held.
  Status makeFallback() {
    if (fallback_)
      return Status::ok();
    auto k = host_.create(node(), "CPU");
    if (!k.hasValue())
      return k.takeStatus();
    fallback_ = std::make_unique<HostKernel>(node(), dev_, std::move(*k));
    return Status::ok();
  }

  // Compiles and loads the PTX once (for static shapes); concurrent steps
  // wait for it.
  bool prepare(KernelContext &ctx) {
    std::lock_guard<std::mutex> lock(mu_);
    if (code_ || fallback_ || dynamic_)
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
    def_ = *def;
    symbol_ = "sluice_" + jit::ptxIdentifier(node().name());
    if (!jit::hasStaticShapes(*def_)) {
      dynamic_ = true; // compiled per set of call shapes
      return true;
    }
    auto code = compile(*dev_, *def_, symbol_);
    if (code.hasValue()) {
      code_ = std::move(*code);
      return true;
    }
    if (Status s = makeFallback(); !s.isOk()) {
      failed_ = s;
      ctx.fail(failed_);
      return false;
    }
    note("'" + node().name() + "' runs on the host between copies: " + code.status().message());
    return true;
  }

  std::shared_ptr<Device> dev_;
  const KernelRegistry &host_;
  std::mutex mu_;
  std::shared_ptr<const ir::FunctionDef> def_;
  std::string symbol_;
  bool dynamic_ = false;         // shapes known only at run time: shapes_
  std::unique_ptr<GpuCode> code_; // static shapes
  jit::ShapeCache<GpuCode> shapes_;
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
