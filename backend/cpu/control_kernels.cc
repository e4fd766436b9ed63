// backend/cpu/control_kernels.cc: CPU kernels for control ops.
#include "backend/kernel_registry.h"

namespace sluice::backend {

namespace {

class NoOpKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &) override {}
};

// The executor provides fed values itself; reaching this kernel means a
// _feed node was run without its value, which is a runtime bug.
class FeedKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    ctx.fail(internalError("fed value for '" + node().name() +
                           "' was not provided to the step"));
  }
};

} // namespace

void registerControlKernels(KernelRegistry &reg) {
  reg.addSimple<NoOpKernel>("no_op");
  reg.addSimple<FeedKernel>("_feed");
}

} // namespace sluice::backend
