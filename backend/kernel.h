// backend/kernel.h: the interface between the executor and op kernels.
// A kernel is created once per node when an execution plan is built and
// is then run once per step; it must be safe to run from several steps at
// once (keep per-step data in the KernelContext).
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "ir/node.h"
#include "ir/tensor.h"
#include "support/cancellation.h"
#include "support/status.h"

namespace sluice::backend {

class ResourceMgr;
class FunctionRuntime;
class Rendezvous;

/// Per-step, per-node arguments of one kernel invocation.
class KernelContext {
public:
  struct Params {
    const ir::Node *node = nullptr;
    const ir::Tensor *const *inputs = nullptr;
    int numInputs = 0;
    ir::Tensor *outputs = nullptr;
    int numOutputs = 0;
    ResourceMgr *resources = nullptr;
    CancellationManager *cancellation = nullptr;
    int intraOpThreads = 1;
    int64_t stepId = 0;
    /// The functions of the graph being run (null when it has none).
    FunctionRuntime *functions = nullptr;
    /// Where send/recv meet (null when the step has one partition).
    Rendezvous *rendezvous = nullptr;
    /// The session's `deterministic` setting (SessionOptions).
    bool deterministic = false;
  };
  explicit KernelContext(const Params &p) : p_(p) {}

  const ir::Node &node() const { return *p_.node; }
  int numInputs() const { return p_.numInputs; }
  const ir::Tensor &input(int i) const { return *p_.inputs[i]; }
  int numOutputs() const { return p_.numOutputs; }
  void setOutput(int i, ir::Tensor t) { p_.outputs[i] = std::move(t); }
  /// Allocates output i with the given dims (numeric contents uninitialized).
  ir::Tensor &allocateOutput(int i, ir::DType dtype, ir::Dims dims) {
    p_.outputs[i] = ir::Tensor::uninitialized(dtype, std::move(dims));
    return p_.outputs[i];
  }
  ir::Tensor &output(int i) { return p_.outputs[i]; }

  ResourceMgr *resources() const { return p_.resources; }
  CancellationManager *cancellation() const { return p_.cancellation; }
  int intraOpThreads() const { return p_.intraOpThreads; }
  int64_t stepId() const { return p_.stepId; }
  FunctionRuntime *functions() const { return p_.functions; }
  Rendezvous *rendezvous() const { return p_.rendezvous; }
  /// Whether the session promised reproducible results: resources a
  /// kernel creates take this mode (a RandomShuffleQueue draws from a
  /// logical buffer), and unseeded random kernels fail instead.
  bool deterministic() const { return p_.deterministic; }

  /// The context of a kernel this one runs itself (an op of a fused body,
  /// the host kernel behind a GPU one): the same step, resources and
  /// settings, with its own node, inputs and outputs.
  KernelContext nested(const ir::Node &node, const ir::Tensor *const *inputs, int numInputs,
                       ir::Tensor *outputs, int numOutputs) const {
    Params p = p_;
    p.node = &node;
    p.inputs = inputs;
    p.numInputs = numInputs;
    p.outputs = outputs;
    p.numOutputs = numOutputs;
    return KernelContext(p);
  }

  /// Records a failure; the executor adds the node name and location.
  void fail(Status s) {
    if (status_.isOk())
      status_ = std::move(s);
  }
  bool ok() const { return status_.isOk(); }
  const Status &status() const { return status_; }

private:
  Params p_;
  Status status_;
};

class OpKernel {
public:
  explicit OpKernel(const ir::Node &node) : node_(node) {}
  virtual ~OpKernel() = default;

  const ir::Node &node() const { return node_; }

  /// Synchronous kernels compute here and return.
  virtual void compute(KernelContext &ctx) = 0;

  /// Asynchronous kernels (blocking ops) override both: `computeAsync` must
  /// not block the calling thread; it calls `done` exactly once, possibly
  /// from another thread, after filling outputs or calling ctx.fail().
  virtual bool isAsync() const { return false; }
  virtual void computeAsync(KernelContext &ctx, std::function<void()> done) {
    compute(ctx);
    done();
  }

  /// Expensive kernels are run on the thread pool; cheap ones inline by
  /// the thread that made them ready.
  virtual bool isExpensive() const { return node_.op().expensive; }

private:
  const ir::Node &node_;
};

/// Base of the blocking kernels: they implement computeAsync only; a
/// caller that runs one synchronously (eager host evaluation) waits here.
class AsyncOpKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  bool isAsync() const override { return true; }
  void compute(KernelContext &ctx) override {
    std::mutex m;
    std::condition_variable cv;
    bool finished = false;
    computeAsync(ctx, [&] {
      std::lock_guard<std::mutex> lock(m);
      finished = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return finished; });
  }
  void computeAsync(KernelContext &ctx, std::function<void()> done) override = 0;
};

} // namespace sluice::backend
