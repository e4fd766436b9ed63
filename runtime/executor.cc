// runtime/executor.cc: the execution plan and the step scheduler.
//
// Plan layout: items are the nodes a step runs, in topological order.
// Each item's outputs own a contiguous range of the step's value slots;
// fed values sit in slots after all outputs. An item's inputs are slot
// indices (inputSlots_), so a kernel reads its inputs with no lookup.
//
// Scheduling: the thread that completes a node decrements its consumers'
// pending counts and runs newly ready cheap kernels itself from a local
// stack (no task, no allocation per op). Expensive kernels go to the pool
// (one is kept inline when the thread has nothing else to do). Async
// kernels are started with computeAsync and their `done` continues from
// whatever thread calls it, so a blocked op never holds a pool thread.
//
// Completion counts "tokens", not nodes: each running loop, pool task and
// in-flight async op holds one; nodes run inline by a loop need no atomic
// at all. A node with a single producer needs no atomic pending count
// either, which keeps a chain of dependent ops free of atomics.
#include "runtime/executor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <optional>

#include "passes/prune.h"

namespace sluice::rt {

namespace {
enum class Kind : uint8_t { kInline, kPool, kAsync };
constexpr int kInlineInputs = 8;
} // namespace

struct Executor::Item {
  const ir::Node *node = nullptr;
  backend::OpKernel *kernel = nullptr;
  int32_t inputStart = 0, numInputs = 0;
  int32_t outputStart = 0, numOutputs = 0;
  int32_t consumerStart = 0, numConsumers = 0;
  int32_t initialPending = 0;
  Kind kind = Kind::kInline;
};

namespace {
struct ReadyStack {
  Executor::Step *step;
  std::vector<int32_t> items;
};
// The stack of the loop this thread is running, so that an async kernel
// completing synchronously inside computeAsync continues in that loop
// instead of recursing.
thread_local ReadyStack *tlsStack = nullptr;

struct AsyncCall {
  std::vector<const ir::Tensor *> inputs;
  std::optional<backend::KernelContext> ctx;
};
} // namespace

namespace {

// Host kernels never see device memory: a tensor in it reaching a host
// executor is an error, not a read of a device address.
Status deviceTensorError(const ir::Tensor &t, const std::string &what) {
  return internalError(what + " is in " + t.deviceMemory()->deviceName() +
                       " memory, which host kernels cannot read (a device tensor must be "
                       "copied back by a send from its device)");
}

} // namespace

struct Executor::Step {
  const Executor *exec = nullptr;
  const StepParams *params = nullptr;
  CancellationManager *cm = nullptr;
  std::vector<ir::Tensor> values;
  std::unique_ptr<std::atomic<int32_t>[]> pending;
  std::atomic<int64_t> outstanding{0};
  std::atomic<bool> aborted{false};
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false; // guarded by mu
  Status status;         // guarded by mu

  backend::KernelContext::Params kernelParams(const Item &it,
                                              const ir::Tensor *const *ins) {
    backend::KernelContext::Params p;
    p.node = it.node;
    p.inputs = ins;
    p.numInputs = it.numInputs;
    p.outputs = values.data() + it.outputStart;
    p.numOutputs = it.numOutputs;
    p.resources = params->resources;
    p.cancellation = cm;
    p.intraOpThreads = exec->opts_.intraOpThreads;
    p.deterministic = exec->opts_.deterministic;
    p.stepId = params->stepId;
    p.functions = exec->opts_.functions.get();
    p.rendezvous = params->rendezvous;
    return p;
  }

  void recordError(int32_t item, Status s) {
    if (item >= 0) {
      const ir::Node &n = *exec->items_[item].node;
      s = Status(s.code(), s.message() + " (op " + n.opName() + ")", s.loc(),
                 s.node());
      s.withNode(n.name()).withLoc(n.loc());
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      if (status.isOk())
        status = std::move(s);
    }
    aborted.store(true, std::memory_order_relaxed);
    cm->startCancel();
  }

  bool checkOutputs(int32_t i) {
    const Item &it = exec->items_[i];
    for (int o = 0; o < it.numOutputs; ++o) {
      const ir::Tensor &t = values[it.outputStart + o];
      ir::DType want = it.node->outputType(o);
      if (t.valid() && t.dtype() == want && !(t.isOnDevice() && exec->hostMemory_))
        continue;
      if (t.valid() && t.isOnDevice() && exec->hostMemory_) {
        recordError(i, deviceTensorError(t, "output " + std::to_string(o)));
        return false;
      }
      recordError(i, internalError(
                         "kernel did not produce output " + std::to_string(o) +
                         " as " + std::string(ir::dtypeName(want)) +
                         (t.valid() ? " (got " +
                                          std::string(ir::dtypeName(t.dtype())) +
                                          ")"
                                    : "")));
      return false;
    }
    return true;
  }

  bool runSync(int32_t i) {
    const Item &it = exec->items_[i];
    const int32_t *slots = exec->inputSlots_.data() + it.inputStart;
    const ir::Tensor *small[kInlineInputs];
    std::vector<const ir::Tensor *> big;
    const ir::Tensor **ins = small;
    if (it.numInputs > kInlineInputs) {
      big.resize(it.numInputs);
      ins = big.data();
    }
    for (int k = 0; k < it.numInputs; ++k)
      ins[k] = &values[slots[k]];
    backend::KernelContext ctx(kernelParams(it, ins));
    if (it.kind == Kind::kPool) {
      auto t0 = std::chrono::steady_clock::now();
      it.kernel->compute(ctx);
      auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now() - t0)
                    .count();
      // A smoothed estimate; racing steps may lose an update, harmlessly.
      std::atomic<uint32_t> &cost = exec->costNs_[i];
      uint64_t old = cost.load(std::memory_order_relaxed);
      uint64_t now = static_cast<uint64_t>(std::min<int64_t>(ns, UINT32_MAX));
      cost.store(static_cast<uint32_t>(old == 0 ? now : (old * 3 + now) / 4),
                 std::memory_order_relaxed);
    } else {
      it.kernel->compute(ctx);
    }
    if (!ctx.ok()) {
      recordError(i, ctx.status());
      return false;
    }
    return checkOutputs(i);
  }

  void finishToken() {
    if (outstanding.fetch_sub(1, std::memory_order_acq_rel) != 1)
      return;
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
    cv.notify_all();
  }

  // An expensive kernel goes to the pool only once it has been seen to
  // take long; until then (its first run) it runs inline and is timed.
  bool offload(int32_t i) const {
    constexpr uint32_t kOffloadNs = 20000;
    return exec->items_[i].kind == Kind::kPool && params->pool &&
           exec->costNs_[i].load(std::memory_order_relaxed) >= kOffloadNs;
  }

  void schedulePool(int32_t i) {
    outstanding.fetch_add(1, std::memory_order_relaxed);
    params->pool->schedule([this, i] {
      ReadyStack st{this, {i}};
      runLoop(st);
      finishToken();
    });
  }

  void propagate(int32_t i, ReadyStack &stack) {
    if (aborted.load(std::memory_order_relaxed))
      return;
    const Item &it = exec->items_[i];
    const int32_t *cs = exec->consumers_.data() + it.consumerStart;
    int32_t deferred = -1;
    for (int k = 0; k < it.numConsumers; ++k) {
      int32_t c = cs[k];
      const Item &ci = exec->items_[c];
      if (ci.initialPending != 1 &&
          pending[c].fetch_sub(1, std::memory_order_acq_rel) != 1)
        continue;
      if (!offload(c)) {
        stack.items.push_back(c);
        continue;
      }
      if (deferred >= 0)
        schedulePool(deferred);
      deferred = c;
    }
    if (deferred >= 0) {
      // Keep one expensive op on this thread when it would otherwise idle.
      if (stack.items.empty())
        stack.items.push_back(deferred);
      else
        schedulePool(deferred);
    }
  }

  void startAsync(int32_t i) {
    const Item &it = exec->items_[i];
    outstanding.fetch_add(1, std::memory_order_relaxed);
    auto *call = new AsyncCall;
    const int32_t *slots = exec->inputSlots_.data() + it.inputStart;
    for (int k = 0; k < it.numInputs; ++k)
      call->inputs.push_back(&values[slots[k]]);
    call->ctx.emplace(kernelParams(it, call->inputs.data()));
    it.kernel->computeAsync(*call->ctx, [this, i, call] { asyncDone(i, call); });
  }

  void asyncDone(int32_t i, AsyncCall *call) {
    bool ok = call->ctx->ok();
    if (!ok)
      recordError(i, call->ctx->status());
    else
      ok = checkOutputs(i);
    delete call;
    if (ok) {
      if (tlsStack && tlsStack->step == this) {
        propagate(i, *tlsStack); // completed inside a loop of this step
      } else {
        ReadyStack st{this, {}};
        propagate(i, st);
        runLoop(st);
      }
    }
    finishToken();
  }

  void runLoop(ReadyStack &stack) {
    ReadyStack *saved = tlsStack;
    tlsStack = &stack;
    while (!stack.items.empty()) {
      int32_t i = stack.items.back();
      stack.items.pop_back();
      if (aborted.load(std::memory_order_relaxed))
        continue;
      if (exec->items_[i].kind == Kind::kAsync) {
        startAsync(i);
        continue;
      }
      if (runSync(i))
        propagate(i, stack);
    }
    tlsStack = saved;
  }
};

Executor::Executor() = default;
Executor::~Executor() = default;

int Executor::numNodes() const { return static_cast<int>(items_.size()); }

Expected<std::unique_ptr<Executor>>
Executor::create(std::shared_ptr<const ir::Graph> graph,
                 std::vector<ir::Output> feeds, std::vector<ir::Output> fetches,
                 std::vector<ir::NodeId> targets, const ExecutorOptions &opts) {
  const ir::Graph &g = *graph;
  auto checkOutput = [&](const ir::Output &o, const char *what) -> Status {
    if (o.node < 0 || o.node >= g.numNodes() || o.index < 0 ||
        o.index >= g.node(o.node).numOutputs())
      return invalidArgument(std::string(what) +
                             " refers to a missing node output");
    return Status::ok();
  };
  for (const auto &o : feeds)
    SLUICE_TRY(checkOutput(o, "feed"));
  for (const auto &o : fetches)
    SLUICE_TRY(checkOutput(o, "fetch"));
  for (ir::NodeId t : targets)
    if (t < 0 || t >= g.numNodes())
      return invalidArgument("target refers to a missing node");

  std::unique_ptr<Executor> ex(new Executor);
  ex->opts_ = opts;
  ex->hostMemory_ = opts.deviceType != "GPU";
  if (!ex->opts_.functions && !g.functions().empty())
    ex->opts_.functions = makeFunctionRuntime(g.functions(), opts);
  const backend::KernelRegistry &kernels =
      opts.kernels ? *opts.kernels : backend::kernelRegistry();

  std::vector<bool> needed = passes::neededNodes(g, feeds, fetches, targets);
  SLUICE_ASSIGN_OR_RETURN(auto order, g.topologicalOrder());
  std::vector<int32_t> itemOf(g.numNodes(), -1);
  for (ir::NodeId id : order) {
    if (!needed[id])
      continue;
    itemOf[id] = static_cast<int32_t>(ex->items_.size());
    Item it;
    it.node = &g.node(id);
    it.numOutputs = it.node->numOutputs();
    it.outputStart = ex->numOutputSlots_;
    ex->numOutputSlots_ += it.numOutputs;
    ex->items_.push_back(it);
  }
  std::map<ir::Output, int32_t> feedSlot;
  for (size_t k = 0; k < feeds.size(); ++k)
    if (!feedSlot.emplace(feeds[k], ex->numOutputSlots_ + int32_t(k)).second)
      return invalidArgument("tensor '" + g.node(feeds[k].node).name() + ":" +
                             std::to_string(feeds[k].index) +
                             "' is fed more than once");
  auto slotOf = [&](const ir::Output &o) -> int32_t {
    auto f = feedSlot.find(o);
    if (f != feedSlot.end())
      return f->second;
    return ex->items_[itemOf[o.node]].outputStart + o.index;
  };

  std::vector<std::vector<int32_t>> consumersOf(ex->items_.size());
  std::vector<int32_t> producers;
  for (size_t i = 0; i < ex->items_.size(); ++i) {
    Item &it = ex->items_[i];
    const ir::Node &n = *it.node;
    it.inputStart = static_cast<int32_t>(ex->inputSlots_.size());
    it.numInputs = n.numInputs();
    producers.clear();
    for (const ir::Output &in : n.inputs()) {
      ex->inputSlots_.push_back(slotOf(in));
      if (!feedSlot.count(in))
        producers.push_back(itemOf[in.node]);
    }
    for (ir::NodeId c : n.controlInputs())
      if (itemOf[c] >= 0) // a control input that does not run is met by its feeds
        producers.push_back(itemOf[c]);
    std::sort(producers.begin(), producers.end());
    producers.erase(std::unique(producers.begin(), producers.end()),
                    producers.end());
    it.initialPending = static_cast<int32_t>(producers.size());
    for (int32_t p : producers)
      consumersOf[p].push_back(static_cast<int32_t>(i));
    if (it.initialPending == 0)
      ex->roots_.push_back(static_cast<int32_t>(i));

    SLUICE_ASSIGN_OR_RETURN(auto kernel, kernels.create(n, opts.deviceType));
    it.kernel = kernel.get();
    it.kind = kernel->isAsync()       ? Kind::kAsync
              : kernel->isExpensive() ? Kind::kPool
                                      : Kind::kInline;
    ex->kernels_.push_back(std::move(kernel));
  }
  for (size_t i = 0; i < ex->items_.size(); ++i) {
    ex->items_[i].consumerStart = static_cast<int32_t>(ex->consumers_.size());
    ex->items_[i].numConsumers = static_cast<int32_t>(consumersOf[i].size());
    ex->consumers_.insert(ex->consumers_.end(), consumersOf[i].begin(),
                          consumersOf[i].end());
  }
  // Roots are popped from the back; reverse so they start in graph order.
  std::reverse(ex->roots_.begin(), ex->roots_.end());
  for (const ir::Output &o : fetches)
    ex->fetchSlots_.push_back(slotOf(o));
  ex->graph_ = std::move(graph);
  ex->feeds_ = std::move(feeds);
  ex->fetches_ = std::move(fetches);
  ex->costNs_.reset(new std::atomic<uint32_t>[ex->items_.size()]);
  for (size_t i = 0; i < ex->items_.size(); ++i)
    ex->costNs_[i].store(0, std::memory_order_relaxed);
  return ex;
}

Expected<std::vector<ir::Tensor>> Executor::run(const StepParams &params) const {
  size_t numFeeds = feeds_.size();
  if ((params.feedValues ? params.feedValues->size() : 0) != numFeeds)
    return invalidArgument("expected " + std::to_string(numFeeds) +
                           " fed values");
  for (size_t k = 0; k < numFeeds; ++k) {
    const ir::Tensor &v = (*params.feedValues)[k];
    ir::DType want = graph_->node(feeds_[k].node).outputType(feeds_[k].index);
    if (v.dtype() != want)
      return invalidArgument(
          "fed value for '" + graph_->node(feeds_[k].node).name() + ":" +
          std::to_string(feeds_[k].index) + "' has dtype " +
          std::string(ir::dtypeName(v.dtype())) + ", expected " +
          std::string(ir::dtypeName(want)));
    if (v.isOnDevice() && hostMemory_)
      return deviceTensorError(v,
                               "the value fed for '" + graph_->node(feeds_[k].node).name() + "'");
  }

  std::unique_ptr<Step> step;
  {
    std::lock_guard<std::mutex> lock(freeMu_);
    if (!freeSteps_.empty()) {
      step = std::move(freeSteps_.back());
      freeSteps_.pop_back();
    }
  }
  if (!step) {
    step = std::make_unique<Step>();
    step->exec = this;
    step->values.resize(numOutputSlots_ + numFeeds);
    step->pending.reset(new std::atomic<int32_t>[items_.size()]);
  }
  Step &s = *step;
  CancellationManager ownCm;
  s.params = &params;
  s.cm = params.cancellation ? params.cancellation : &ownCm;
  s.outstanding.store(1, std::memory_order_relaxed); // the caller's loop
  s.aborted.store(false, std::memory_order_relaxed);
  s.finished = false;
  s.status = Status::ok();
  for (size_t i = 0; i < items_.size(); ++i)
    if (items_[i].initialPending > 1)
      s.pending[i].store(items_[i].initialPending, std::memory_order_relaxed);
  for (size_t k = 0; k < numFeeds; ++k)
    s.values[numOutputSlots_ + k] = (*params.feedValues)[k];

  // A step cancelled before it starts (a closed session) runs nothing.
  if (s.cm->isCancelled())
    s.recordError(-1, cancelled("Step was cancelled before it started"));

  ReadyStack stack{&s, {}};
  stack.items.reserve(std::min<size_t>(roots_.size() + 16, 1024));
  int32_t deferred = -1;
  for (int32_t r : roots_) {
    if (!s.offload(r)) {
      stack.items.push_back(r);
      continue;
    }
    if (deferred >= 0)
      s.schedulePool(deferred);
    deferred = r;
  }
  if (deferred >= 0) {
    if (stack.items.empty())
      stack.items.push_back(deferred);
    else
      s.schedulePool(deferred);
  }
  s.runLoop(stack);
  s.finishToken();

  {
    std::unique_lock<std::mutex> lock(s.mu);
    auto finished = [&] { return s.finished; };
    if (params.deadline == std::chrono::steady_clock::time_point::max() &&
        !params.stallCheck) {
      s.cv.wait(lock, finished);
    } else {
      // Wake at the deadline, and every 100 ms to ask the stall check.
      constexpr auto kPoll = std::chrono::milliseconds(100);
      while (!finished()) {
        auto now = std::chrono::steady_clock::now();
        auto wakeAt = params.stallCheck ? std::min(params.deadline, now + kPoll)
                                        : params.deadline;
        if (s.cv.wait_until(lock, wakeAt, finished))
          break;
        std::optional<Status> failure;
        if (std::chrono::steady_clock::now() >= params.deadline) {
          failure = deadlineExceeded("Timed out waiting for notification");
        } else if (params.stallCheck) {
          lock.unlock();
          failure = (*params.stallCheck)();
          lock.lock();
        }
        if (failure) {
          lock.unlock();
          s.recordError(-1, std::move(*failure));
          lock.lock();
          s.cv.wait(lock, finished);
          break;
        }
      }
    }
  }

  Expected<std::vector<ir::Tensor>> result = std::vector<ir::Tensor>();
  if (!s.status.isOk()) {
    result = std::move(s.status);
    s.status = Status::ok();
  } else {
    result->reserve(fetchSlots_.size());
    for (int32_t slot : fetchSlots_) {
      // The caller gets host tensors: a GPU partition's fetch comes back.
      auto host = s.values[slot].toHost();
      if (!host.hasValue()) {
        result = host.takeStatus();
        break;
      }
      result->push_back(std::move(*host));
    }
  }
  for (auto &v : s.values)
    v = ir::Tensor();
  s.params = nullptr;
  s.cm = nullptr;
  {
    std::lock_guard<std::mutex> lock(freeMu_);
    freeSteps_.push_back(std::move(step));
  }
  return result;
}

} // namespace sluice::rt
