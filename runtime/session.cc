// runtime/session.cc: feed checks, the executor cache keyed by the run's
// signature, deadlines and close. Compiling (clone + passes + plan) happens
// on a cache miss only.
#include "runtime/session.h"

#include <chrono>
#include <cstdio>

#include "passes/pipeline.h"
#include "passes/placer.h"
#include "runtime/executor.h"

namespace sluice::rt {

struct Session::Compiled {
  std::unique_ptr<Executor> executor;
  int numNodes = 0; // graph size it was compiled from
};

namespace {

class SharedLock {
public:
  explicit SharedLock(std::shared_mutex *m) : m_(m) {
    if (m_)
      m_->lock_shared();
  }
  ~SharedLock() {
    if (m_)
      m_->unlock_shared();
  }

private:
  std::shared_mutex *m_;
};

std::string tensorName(const ir::Graph &g, ir::Output o) {
  return g.node(o.node).name() + ":" + std::to_string(o.index);
}

std::string signatureKey(
    const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
    const std::vector<ir::Output> &fetches,
    const std::vector<ir::NodeId> &targets, int numNodes) {
  std::string key;
  key.reserve(16 * (feeds.size() + fetches.size() + targets.size()) + 16);
  for (const auto &[o, v] : feeds)
    key += std::to_string(o.node) + ":" + std::to_string(o.index) + ",";
  key += "|";
  for (const auto &o : fetches)
    key += std::to_string(o.node) + ":" + std::to_string(o.index) + ",";
  key += "|";
  for (ir::NodeId t : targets)
    key += std::to_string(t) + ",";
  key += "|" + std::to_string(numNodes);
  return key;
}

int hardwareThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

} // namespace

Session::Session(const ir::Graph *graph, std::shared_mutex *graphMutex,
                 SessionOptions options)
    : graph_(graph), graphMutex_(graphMutex), options_(std::move(options)),
      pool_(options_.interOpThreads) {}

Expected<std::unique_ptr<Session>> Session::create(const ir::Graph *graph,
                                                   std::shared_mutex *graphMutex,
                                                   SessionOptions options) {
  if (!graph)
    return invalidArgument("a session needs a graph");
  if (options.intraOpThreads < 0 || options.interOpThreads < 0)
    return invalidArgument("thread counts must not be negative");
  return std::unique_ptr<Session>(
      new Session(graph, graphMutex, std::move(options)));
}

Session::~Session() { close().ignore(); }

bool Session::isClosed() const {
  std::lock_guard<std::mutex> lock(stepsMu_);
  return closed_;
}

size_t Session::numCachedExecutors() const {
  std::lock_guard<std::mutex> lock(cacheMu_);
  return cache_.size();
}

Status Session::checkRequest(
    const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
    const std::vector<ir::Output> &fetches,
    const std::vector<ir::NodeId> &targets, int *numNodes) const {
  SharedLock lock(graphMutex_);
  const ir::Graph &g = *graph_;
  *numNodes = g.numNodes();
  auto outputExists = [&](ir::Output o) {
    return o.node >= 0 && o.node < g.numNodes() && o.index >= 0 &&
           o.index < g.node(o.node).numOutputs();
  };
  for (const auto &[o, value] : feeds) {
    if (!outputExists(o))
      return invalidArgument("feed refers to a tensor that is not in the graph");
    const ir::Node &n = g.node(o.node);
    ir::DType want = n.outputType(o.index);
    if (value.dtype() != want)
      return invalidArgument(
          "Cannot feed value of dtype " + std::string(ir::dtypeName(value.dtype())) +
          " for Tensor '" + tensorName(g, o) + "', which has dtype " +
          std::string(ir::dtypeName(want)));
    const ir::Shape &shape = n.outputShape(o.index);
    if (!shape.isCompatibleWith(value.dims()))
      return invalidArgument("Cannot feed value of shape " +
                             ir::dimsString(value.dims()) + " for Tensor '" +
                             tensorName(g, o) + "', which has shape '" +
                             shape.str() + "'");
  }
  for (size_t i = 0; i < feeds.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (feeds[i].first == feeds[j].first)
        return invalidArgument("Tensor '" + tensorName(g, feeds[i].first) +
                               "' is fed more than once");
  for (const ir::Output &o : fetches)
    if (!outputExists(o))
      return invalidArgument("fetch refers to a tensor that is not in the graph");
  for (ir::NodeId t : targets)
    if (t < 0 || t >= g.numNodes())
      return invalidArgument("target refers to a node that is not in the graph");
  return Status::ok();
}

void Session::log(const std::string &line) const {
  if (options_.log)
    options_.log(line);
  else
    std::fprintf(stderr, "%s\n", line.c_str());
}

std::vector<std::string> Session::devices() const {
  SharedLock lock(graphMutex_);
  return passes::localDevices(*graph_, options_.deviceCount);
}

Expected<std::vector<std::string>> Session::placement() const {
  std::unique_ptr<ir::Graph> clone;
  {
    SharedLock lock(graphMutex_);
    clone = graph_->clone();
  }
  passes::PlacementOptions po;
  po.devices = passes::localDevices(*clone, options_.deviceCount);
  po.allowSoftPlacement = options_.allowSoftPlacement;
  po.kernels = options_.kernels;
  SLUICE_TRY(passes::placeGraph(*clone, po, nullptr));
  std::vector<std::string> out;
  for (ir::NodeId id = 0; id < clone->numNodes(); ++id)
    out.push_back(clone->node(id).assignedDevice());
  return out;
}

Expected<std::shared_ptr<Session::Compiled>>
Session::compile(const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
                 const std::vector<ir::Output> &fetches,
                 const std::vector<ir::NodeId> &targets) {
  std::unique_ptr<ir::Graph> clone;
  auto compiled = std::make_shared<Compiled>();
  {
    SharedLock lock(graphMutex_);
    clone = graph_->clone();
    compiled->numNodes = graph_->numNodes();
  }
  passes::PassContext ctx;
  for (const auto &[o, v] : feeds)
    ctx.feeds.push_back(o);
  ctx.fetches = fetches;
  ctx.targets = targets;
  ctx.options.constantFolding = options_.constantFolding;
  ctx.options.devices = passes::localDevices(*clone, options_.deviceCount);
  ctx.options.allowSoftPlacement = options_.allowSoftPlacement;
  passes::PipelineOptions po;
  po.place = true;
  SLUICE_TRY(passes::runPipeline(clone, ctx, po));
  {
    std::lock_guard<std::mutex> lock(logMu_);
    for (const Status &note : ctx.notes)
      if (notedNodes_.insert(note.node()).second)
        log((note.loc().valid() ? note.loc().str() + ": " : std::string()) + "note: " +
            note.message());
    if (options_.logDevicePlacement)
      for (ir::NodeId id = 0; id < clone->numNodes(); ++id) {
        const ir::Node &n = clone->node(id);
        if (loggedNodes_.insert(n.name()).second)
          log(n.name() + ": (" + n.opName() + "): " + n.assignedDevice());
      }
  }

  ExecutorOptions eo;
  eo.kernels = options_.kernels;
  eo.intraOpThreads =
      options_.intraOpThreads > 0 ? options_.intraOpThreads : hardwareThreads();
  eo.deterministic = options_.deterministic;
  SLUICE_ASSIGN_OR_RETURN(
      compiled->executor,
      Executor::create(std::shared_ptr<const ir::Graph>(std::move(clone)),
                       std::move(ctx.feeds), std::move(ctx.fetches),
                       std::move(ctx.targets), eo));
  return compiled;
}

Expected<std::vector<ir::Tensor>>
Session::run(const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
             const std::vector<ir::Output> &fetches,
             const std::vector<ir::NodeId> &targets, const RunOptions &opts) {
  if (isClosed())
    return cancelled("Session has been closed.");
  int numNodes = 0;
  SLUICE_TRY(checkRequest(feeds, fetches, targets, &numNodes));

  std::string key = signatureKey(feeds, fetches, targets, numNodes);
  std::shared_ptr<Compiled> compiled;
  {
    std::lock_guard<std::mutex> lock(cacheMu_);
    auto it = cache_.find(key);
    if (it != cache_.end())
      compiled = it->second;
  }
  if (!compiled) {
    SLUICE_ASSIGN_OR_RETURN(compiled, compile(feeds, fetches, targets));
    std::lock_guard<std::mutex> lock(cacheMu_);
    // The graph only grows, so plans compiled from an older, smaller graph
    // will not be asked for again.
    for (auto it = cache_.begin(); it != cache_.end();)
      it = it->second->numNodes < compiled->numNodes ? cache_.erase(it)
                                                     : std::next(it);
    cache_.emplace(key, compiled);
  }

  std::vector<ir::Tensor> values;
  values.reserve(feeds.size());
  for (const auto &[o, v] : feeds)
    values.push_back(v);

  CancellationManager cm;
  {
    std::lock_guard<std::mutex> lock(stepsMu_);
    if (closed_)
      return cancelled("Session has been closed.");
    activeSteps_.insert(&cm);
  }
  StepParams params;
  params.feedValues = &values;
  params.resources = &resources_;
  params.cancellation = &cm;
  params.pool = &pool_;
  params.stepId = nextStepId_.fetch_add(1, std::memory_order_relaxed);
  int64_t timeoutMs = opts.timeoutMs > 0 ? opts.timeoutMs : options_.operationTimeoutMs;
  if (timeoutMs > 0)
    params.deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  if (opts.stallCheck)
    params.stallCheck = &opts.stallCheck;
  auto result = compiled->executor->run(params);
  {
    std::lock_guard<std::mutex> lock(stepsMu_);
    activeSteps_.erase(&cm);
  }
  stepsCv_.notify_all();
  return result;
}

Status Session::close() {
  std::unique_lock<std::mutex> lock(stepsMu_);
  closed_ = true;
  // Cancel under the lock: a step removes its manager (and destroys it)
  // only while holding stepsMu_.
  for (CancellationManager *cm : activeSteps_)
    cm->startCancel();
  stepsCv_.wait(lock, [&] { return activeSteps_.empty(); });
  return Status::ok();
}

} // namespace sluice::rt
