// backend/cpu/transfer_kernels.cc: send and recv through the step's
// rendezvous.
#include "backend/kernel_registry.h"
#include "backend/rendezvous.h"

namespace sluice::backend {

namespace {

std::string keyOf(const ir::Node &n) {
  return rendezvousKey(n.attr<std::string>("send_device"),
                       n.attr<int64_t>("send_device_incarnation"),
                       n.attr<std::string>("recv_device"), n.attr<std::string>("tensor_name"));
}

class SendKernel : public OpKernel {
public:
  explicit SendKernel(const ir::Node &n) : OpKernel(n), key_(keyOf(n)) {}
  void compute(KernelContext &ctx) override {
    if (!ctx.rendezvous())
      return ctx.fail(internalError("send '" + node().name() + "' runs without a rendezvous"));
    Status s = ctx.rendezvous()->send(key_, ctx.input(0));
    if (!s.isOk())
      ctx.fail(std::move(s));
  }

private:
  std::string key_;
};

class RecvKernel : public OpKernel {
public:
  explicit RecvKernel(const ir::Node &n) : OpKernel(n), key_(keyOf(n)) {}
  bool isAsync() const override { return true; }
  void compute(KernelContext &ctx) override {
    ctx.fail(internalError("recv must run asynchronously"));
  }
  void computeAsync(KernelContext &ctx, std::function<void()> done) override {
    if (!ctx.rendezvous()) {
      ctx.fail(internalError("recv '" + node().name() + "' runs without a rendezvous"));
      return done();
    }
    KernelContext *c = &ctx;
    ctx.rendezvous()->recvAsync(key_, ctx.cancellation(),
                                [c, done = std::move(done)](Status s, ir::Tensor t) {
                                  if (s.isOk())
                                    c->setOutput(0, std::move(t));
                                  else
                                    c->fail(std::move(s));
                                  done();
                                });
  }

private:
  std::string key_;
};

} // namespace

void registerTransferKernels(KernelRegistry &reg) {
  reg.addSimple<SendKernel>("send");
  reg.addSimple<RecvKernel>("recv");
}

} // namespace sluice::backend
