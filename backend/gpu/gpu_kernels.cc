// backend/gpu/gpu_kernels.cc: send, recv, constant and identity on a GPU;
// the host-kernel claims for elementwise ops. `fused` is fused_kernel.cc.
#include "backend/gpu/gpu_kernels.h"

#include <mutex>

#include "backend/gpu/host_kernel.h"
#include "backend/gpu/platform.h"
#include "backend/rendezvous.h"

namespace sluice::backend::gpu {

void registerFusedKernel(KernelRegistry &reg, const KernelRegistry &host); // fused_kernel.cc
void registerMatMulKernel(KernelRegistry &reg, const KernelRegistry &host); // matmul_kernel.cc

namespace {

std::string keyOf(const ir::Node &n) {
  return rendezvousKey(n.attr<std::string>("send_device"),
                       n.attr<int64_t>("send_device_incarnation"),
                       n.attr<std::string>("recv_device"), n.attr<std::string>("tensor_name"));
}

/// The factory of a GPU kernel K(node, device), for the node's GPU.
template <typename K> KernelFactory onDevice() {
  return [](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
    SLUICE_ASSIGN_OR_RETURN(auto dev, deviceOf(n.assignedDevice()));
    return std::unique_ptr<OpKernel>(std::make_unique<K>(n, std::move(dev)));
  };
}

// To another device: the host gets a host tensor (copied back on the
// device's stream, which also waits for the kernels that made it).
class SendKernel final : public OpKernel {
public:
  SendKernel(const ir::Node &n, std::shared_ptr<Device> dev)
      : OpKernel(n), dev_(std::move(dev)), key_(keyOf(n)) {}
  void compute(KernelContext &ctx) override {
    if (!ctx.rendezvous())
      return ctx.fail(internalError("send '" + node().name() + "' runs without a rendezvous"));
    auto host = ctx.input(0).toHost();
    if (!host.hasValue())
      return ctx.fail(host.takeStatus());
    Status s = ctx.rendezvous()->send(key_, std::move(*host));
    if (!s.isOk())
      ctx.fail(std::move(s));
  }

private:
  std::shared_ptr<Device> dev_;
  std::string key_;
};

// From another device: the host tensor is queued for the device on its
// stream, ahead of the kernels that will read it.
class RecvKernel final : public OpKernel {
public:
  RecvKernel(const ir::Node &n, std::shared_ptr<Device> dev)
      : OpKernel(n), dev_(std::move(dev)), key_(keyOf(n)) {}
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
    Device *dev = dev_.get();
    ctx.rendezvous()->recvAsync(
        key_, ctx.cancellation(), [c, dev, done = std::move(done)](Status s, ir::Tensor t) {
          if (s.isOk() && ir::isPod(t.dtype())) {
            auto d = dev->place(t);
            if (d.hasValue())
              c->setOutput(0, std::move(*d));
            else
              c->fail(d.takeStatus());
          } else if (s.isOk()) {
            c->setOutput(0, std::move(t)); // strings stay on the host
          } else {
            c->fail(std::move(s));
          }
          done();
        });
  }

private:
  std::shared_ptr<Device> dev_;
  std::string key_;
};

// Uploaded on first use; every step shares the device copy (GPU kernels
// never write their inputs).
class ConstantKernel final : public OpKernel {
public:
  ConstantKernel(const ir::Node &n, std::shared_ptr<Device> dev)
      : OpKernel(n), dev_(std::move(dev)) {}
  void compute(KernelContext &ctx) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!value_.valid()) {
      auto d = dev_->upload(node().attr<ir::Tensor>("value"));
      if (!d.hasValue())
        return ctx.fail(d.takeStatus());
      value_ = std::move(*d);
    }
    ctx.setOutput(0, value_);
  }

private:
  std::shared_ptr<Device> dev_;
  std::mutex mu_;
  ir::Tensor value_; // guarded by mu_
};

class IdentityKernel final : public OpKernel {
public:
  IdentityKernel(const ir::Node &n, std::shared_ptr<Device>) : OpKernel(n) {}
  void compute(KernelContext &ctx) override { ctx.setOutput(0, ctx.input(0)); }
};

bool numericOutputs(const ir::Node &n) {
  for (ir::DType t : n.outputTypes())
    if (!ir::isPod(t))
      return false;
  return true;
}

} // namespace

void registerGpuKernels(KernelRegistry &reg, const KernelRegistry &host,
                        const KernelSupport &elementwise) {
  reg.add("send", "GPU", onDevice<SendKernel>());
  reg.add("recv", "GPU", onDevice<RecvKernel>());
  reg.add("constant", "GPU", onDevice<ConstantKernel>(), numericOutputs);
  reg.add("identity", "GPU", onDevice<IdentityKernel>(), numericOutputs);
  registerFusedKernel(reg, host);
  registerMatMulKernel(reg, host);
  for (const std::string &op : host.ops("CPU")) {
    if (reg.has(op, "GPU"))
      continue;
    const KernelRegistry *h = &host;
    reg.add(
        op, "GPU",
        [h](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
          SLUICE_ASSIGN_OR_RETURN(auto dev, deviceOf(n.assignedDevice()));
          SLUICE_ASSIGN_OR_RETURN(auto k, h->create(n, "CPU"));
          note("'" + n.name() + "' (" + n.opName() + ") runs on the host between copies: it has no GPU code");
          return std::unique_ptr<OpKernel>(
              std::make_unique<HostKernel>(n, std::move(dev), std::move(k)));
        },
        [elementwise](const ir::Node &n) { return elementwise && elementwise(n); });
  }
}

} // namespace sluice::backend::gpu
