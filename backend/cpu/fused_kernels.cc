// backend/cpu/fused_kernels.cc: `fused` on the CPU, interpreted: the body
// runs op by op with the reference kernels (backend/fused_interpreter.h).
#include <mutex>

#include "backend/fused_interpreter.h"

namespace sluice::backend {

namespace {

class InterpFusedKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    // The body lives in the graph's library, which the kernel first sees
    // in a context; it is prepared once and shared by concurrent steps.
    const FusedInterpreter *in = prepare(ctx);
    if (in)
      in->run(ctx);
  }

private:
  const FusedInterpreter *prepare(KernelContext &ctx) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!interp_ && prepared_.isOk()) {
      auto def = fusedBody(node(), ctx);
      auto in = def.hasValue() ? FusedInterpreter::create(*def, kernelRegistry())
                               : Expected<std::unique_ptr<FusedInterpreter>>(def.takeStatus());
      if (in.hasValue())
        interp_ = std::move(*in);
      else
        prepared_ = in.takeStatus();
    }
    if (!interp_)
      ctx.fail(prepared_);
    return interp_.get();
  }

  std::mutex mu_;
  std::unique_ptr<FusedInterpreter> interp_;
  Status prepared_;
};

} // namespace

void registerFusedKernels(KernelRegistry &reg) { reg.addSimple<InterpFusedKernel>("fused"); }

} // namespace sluice::backend
