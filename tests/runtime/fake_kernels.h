// tests/runtime/fake_kernels.h: a kernel registry for tests in which
// `no_op` nodes behave by name: "block*" is an async kernel that waits
// until released or cancelled, "release*" (expensive, so it runs on the
// pool) releases every blocked op once `releaseWaitsFor` have started,
// "record*" appends its name to a log; "instant*" is an async kernel that
// logs like record* and calls done before computeAsync returns. The global registries stay fixed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/kernel_registry.h"

namespace sluice::rt {

struct FakeKernels {
  backend::KernelRegistry registry = backend::kernelRegistry();
  int releaseWaitsFor = 0;
  std::atomic<int> started{0}, released{0}, cancelledCount{0};

  struct Waiter {
    backend::KernelContext *ctx;
    std::function<void()> done;
    CancellationManager *cm;
    CancellationManager::Token token = CancellationManager::kInvalidToken;
    std::atomic<bool> fired{false};
  };

  FakeKernels() {
    registry.add("no_op", "CPU",
                 [this](const ir::Node &n) -> Expected<std::unique_ptr<backend::OpKernel>> {
                   const std::string &name = n.name();
                   if (name.rfind("block", 0) == 0)
                     return std::unique_ptr<backend::OpKernel>(new Block(n, this));
                   if (name.rfind("instant", 0) == 0)
                     return std::unique_ptr<backend::OpKernel>(new Instant(n, this));
                   if (name.rfind("release", 0) == 0)
                     return std::unique_ptr<backend::OpKernel>(new Release(n, this));
                   return std::unique_ptr<backend::OpKernel>(new Record(n, this));
                 });
  }

  std::string log() {
    std::lock_guard<std::mutex> l(mu);
    return log_;
  }

  void releaseAll() {
    std::vector<std::shared_ptr<Waiter>> ws;
    {
      std::lock_guard<std::mutex> l(mu);
      ws.swap(waiters);
    }
    for (auto &w : ws)
      if (!w->fired.exchange(true)) {
        w->cm->deregisterCallback(w->token);
        ++released;
        w->done();
      }
  }

  /// Waits (up to 10 s) until `n` block kernels have started.
  bool waitStarted(int n) {
    std::unique_lock<std::mutex> l(mu);
    return cv.wait_for(l, std::chrono::seconds(10), [&] { return started.load() >= n; });
  }

  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::shared_ptr<Waiter>> waiters;
  std::string log_;

  class Block : public backend::OpKernel {
  public:
    Block(const ir::Node &n, FakeKernels *f) : OpKernel(n), f_(f) {}
    bool isAsync() const override { return true; }
    void compute(backend::KernelContext &) override {}
    void computeAsync(backend::KernelContext &ctx, std::function<void()> done) override {
      auto w = std::make_shared<Waiter>();
      w->ctx = &ctx;
      w->done = std::move(done);
      w->cm = ctx.cancellation();
      FakeKernels *f = f_;
      // Register before publishing the waiter: once published it may be
      // released (and the step may end) at any moment.
      w->token = w->cm->registerCallback([w, f] {
        if (w->fired.exchange(true))
          return;
        w->ctx->fail(cancelled("Blocking op was cancelled"));
        ++f->cancelledCount;
        w->done();
      });
      if (w->token == CancellationManager::kInvalidToken) {
        w->fired = true;
        w->ctx->fail(cancelled("Blocking op was cancelled"));
        w->done();
        return;
      }
      {
        std::lock_guard<std::mutex> l(f->mu);
        f->waiters.push_back(w);
        ++f->started;
      }
      f->cv.notify_all();
    }

  private:
    FakeKernels *f_;
  };

  class Release : public backend::OpKernel {
  public:
    Release(const ir::Node &n, FakeKernels *f) : OpKernel(n), f_(f) {}
    bool isExpensive() const override { return true; }
    void compute(backend::KernelContext &) override {
      f_->waitStarted(f_->releaseWaitsFor);
      f_->releaseAll();
    }

  private:
    FakeKernels *f_;
  };

  class Instant : public backend::OpKernel {
  public:
    Instant(const ir::Node &n, FakeKernels *f) : OpKernel(n), f_(f) {}
    bool isAsync() const override { return true; }
    void compute(backend::KernelContext &) override {}
    void computeAsync(backend::KernelContext &, std::function<void()> done) override {
      {
        std::lock_guard<std::mutex> l(f_->mu);
        f_->log_ += node().name() + " ";
      }
      done();
    }

  private:
    FakeKernels *f_;
  };

  class Record : public backend::OpKernel {
  public:
    Record(const ir::Node &n, FakeKernels *f) : OpKernel(n), f_(f) {}
    void compute(backend::KernelContext &) override {
      std::lock_guard<std::mutex> l(f_->mu);
      f_->log_ += node().name() + " ";
    }

  private:
    FakeKernels *f_;
  };
};

} // namespace sluice::rt
