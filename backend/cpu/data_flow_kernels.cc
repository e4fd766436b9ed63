// backend/cpu/data_flow_kernels.cc: CPU kernels for the queue ops: create
// or re-open a queue and output its handle; the blocking ops are async
// kernels that hold no thread while they wait.

#include "backend/kernel_registry.h"
#include "backend/queue_base.h"
#include "backend/resource_mgr.h"

namespace sluice::backend {

namespace {

std::string queueType(const std::string &op) {
  if (op == "fifo_queue")
    return "FIFOQueue";
  if (op == "padding_fifo_queue")
    return "PaddingFIFOQueue";
  if (op == "random_shuffle_queue")
    return "RandomShuffleQueue";
  return "PriorityQueue";
}

class QueueOpKernel : public OpKernel {
public:
  explicit QueueOpKernel(const ir::Node &n)
      : OpKernel(n), container_(n.attr<std::string>("container")),
        sharedName_(n.attr<std::string>("shared_name")) {
    spec_.type = queueType(n.opName());
    spec_.capacity = n.attr<int64_t>("capacity");
    spec_.types = n.attr<std::vector<ir::DType>>("component_types");
    spec_.shapes = n.attr<std::vector<ir::Shape>>("shapes");
    if (spec_.type == "PriorityQueue") {
      // The user lists the payload only; the i64 priority comes first.
      spec_.types.insert(spec_.types.begin(), ir::DType::kI64);
      if (!spec_.shapes.empty())
        spec_.shapes.insert(spec_.shapes.begin(), ir::Shape::scalar());
    }
    if (spec_.type == "RandomShuffleQueue") {
      spec_.minAfterDequeue = n.attr<int64_t>("min_after_dequeue");
      spec_.seed = n.attr<int64_t>("seed");
      spec_.seed2 = n.attr<int64_t>("seed2");
    }
  }

  void compute(KernelContext &ctx) override {
    if (!ctx.resources())
      return ctx.fail(internalError("no resource manager in this step"));
    std::string key;
    {
      // One plan per session, so one resource manager: open once.
      std::lock_guard<std::mutex> lock(mu_);
      if (openedIn_ != ctx.resources()) {
        QueueSpec spec = spec_;
        spec.deterministic = ctx.deterministic();
        auto opened = openQueue(*ctx.resources(), container_, sharedName_, node().name(), spec);
        if (!opened.hasValue())
          return ctx.fail(opened.takeStatus());
        key_ = *opened;
        openedIn_ = ctx.resources();
      }
      key = key_;
    }
    ir::Tensor &h = ctx.allocateOutput(0, ir::DType::kResource, {});
    h.strings()[0] = key;
  }

private:
  std::string container_, sharedName_;
  QueueSpec spec_;
  std::mutex mu_;
  ResourceMgr *openedIn_ = nullptr; // guarded by mu_
  std::string key_;                 // guarded by mu_
};

/// Base of the async queue kernels: finds the queue, then `start`s.
class AsyncQueueKernel : public AsyncOpKernel {
public:
  using AsyncOpKernel::AsyncOpKernel;
  void computeAsync(KernelContext &ctx, std::function<void()> done) override {
    auto q = lookupQueue(ctx, 0);
    if (!q.hasValue()) {
      ctx.fail(q.takeStatus());
      return done();
    }
    start(ctx, **q, std::move(done));
  }

protected:
  virtual void start(KernelContext &ctx, QueueInterface &q, std::function<void()> done) = 0;

  /// Fails unless the dequeue's outputs are the queue's components.
  bool checkTypes(KernelContext &ctx, QueueInterface &q) {
    if (static_cast<int>(q.componentTypes().size()) != ctx.numOutputs()) {
      ctx.fail(invalidArgument("Queue '" + q.name() + "' has " +
                               std::to_string(q.componentTypes().size()) +
                               " components but the dequeue expects " +
                               std::to_string(ctx.numOutputs())));
      return false;
    }
    for (int i = 0; i < ctx.numOutputs(); ++i)
      if (q.componentTypes()[i] != node().outputType(i)) {
        ctx.fail(invalidArgument(
            "Type mismatch in tuple component " + std::to_string(i) + ". Queue '" +
            q.name() + "' has " + std::string(ir::dtypeName(q.componentTypes()[i])) +
            ", the dequeue expects " + std::string(ir::dtypeName(node().outputType(i)))));
        return false;
      }
    return true;
  }

  static QueueInterface::StatusCallback statusDone(KernelContext &ctx,
                                                   std::function<void()> done) {
    return [&ctx, done = std::move(done)](Status s) {
      if (!s.isOk())
        ctx.fail(std::move(s));
      done();
    };
  }
  static QueueInterface::TupleCallback tupleDone(KernelContext &ctx,
                                                 std::function<void()> done) {
    return [&ctx, done = std::move(done)](Status s, QueueInterface::Tuple t) {
      if (!s.isOk())
        ctx.fail(std::move(s));
      else
        for (size_t i = 0; i < t.size() && static_cast<int>(i) < ctx.numOutputs(); ++i)
          ctx.setOutput(static_cast<int>(i), std::move(t[i]));
      done();
    };
  }
};

class EnqueueKernel : public AsyncQueueKernel {
public:
  EnqueueKernel(const ir::Node &n, bool many) : AsyncQueueKernel(n), many_(many) {}

protected:
  void start(KernelContext &ctx, QueueInterface &q, std::function<void()> done) override {
    QueueInterface::Tuple t;
    t.reserve(ctx.numInputs() - 1);
    for (int i = 1; i < ctx.numInputs(); ++i)
      t.push_back(ctx.input(i));
    if (many_)
      q.tryEnqueueMany(std::move(t), ctx.cancellation(), statusDone(ctx, std::move(done)));
    else
      q.tryEnqueue(std::move(t), ctx.cancellation(), statusDone(ctx, std::move(done)));
  }

private:
  bool many_;
};

class DequeueKernel : public AsyncQueueKernel {
public:
  using AsyncQueueKernel::AsyncQueueKernel;

protected:
  void start(KernelContext &ctx, QueueInterface &q, std::function<void()> done) override {
    if (!checkTypes(ctx, q))
      return done();
    q.tryDequeue(ctx.cancellation(), tupleDone(ctx, std::move(done)));
  }
};

class DequeueManyKernel : public AsyncQueueKernel {
public:
  DequeueManyKernel(const ir::Node &n, bool upTo) : AsyncQueueKernel(n), upTo_(upTo) {}

protected:
  void start(KernelContext &ctx, QueueInterface &q, std::function<void()> done) override {
    const ir::Tensor &nt = ctx.input(1);
    if (nt.numElements() != 1) {
      ctx.fail(invalidArgument("n must be a scalar, got shape " + ir::dimsString(nt.dims())));
      return done();
    }
    if (!checkTypes(ctx, q))
      return done();
    int64_t n = nt.elementAsInt(0);
    q.tryDequeueMany(n, upTo_, ctx.cancellation(), tupleDone(ctx, std::move(done)));
  }

private:
  bool upTo_;
};

class CloseKernel : public AsyncQueueKernel {
public:
  explicit CloseKernel(const ir::Node &n)
      : AsyncQueueKernel(n), cancel_(n.attr<bool>("cancel_pending_enqueues")) {}

protected:
  void start(KernelContext &ctx, QueueInterface &q, std::function<void()> done) override {
    q.close(cancel_, statusDone(ctx, std::move(done)));
  }

private:
  bool cancel_;
};

class SizeKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto q = lookupQueue(ctx, 0);
    if (!q.hasValue())
      return ctx.fail(q.takeStatus());
    ctx.setOutput(0, ir::Tensor::scalar<int32_t>(static_cast<int32_t>((*q)->size())));
  }
};

class IsClosedKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto q = lookupQueue(ctx, 0);
    if (!q.hasValue())
      return ctx.fail(q.takeStatus());
    ctx.setOutput(0, ir::Tensor::scalar<bool>((*q)->isClosed()));
  }
};

template <typename K, typename... Args> KernelFactory factory(Args... args) {
  return [=](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
    return std::unique_ptr<OpKernel>(std::make_unique<K>(n, args...));
  };
}

} // namespace

void registerDataFlowKernels(KernelRegistry &reg) {
  for (const char *op : {"fifo_queue", "padding_fifo_queue", "random_shuffle_queue",
                         "priority_queue"})
    reg.addSimple<QueueOpKernel>(op);
  reg.add("queue_enqueue", "CPU", factory<EnqueueKernel>(false));
  reg.add("queue_enqueue_many", "CPU", factory<EnqueueKernel>(true));
  reg.addSimple<DequeueKernel>("queue_dequeue");
  reg.add("queue_dequeue_many", "CPU", factory<DequeueManyKernel>(false));
  reg.add("queue_dequeue_up_to", "CPU", factory<DequeueManyKernel>(true));
  reg.addSimple<CloseKernel>("queue_close");
  reg.addSimple<SizeKernel>("queue_size");
  reg.addSimple<IsClosedKernel>("queue_is_closed");
}

} // namespace sluice::backend
