// runtime/session.cc: feed checks, the executor cache keyed by the run's
// signature, deadlines and close. Compiling (clone + passes + plan) happens
// on a cache miss only.
#include "runtime/session.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "passes/pipeline.h"
#include "passes/partition.h"
#include "passes/placer.h"
#include "backend/jit/jit.h"
#include "backend/rendezvous.h"
#include "runtime/pass_config.h"
#include "runtime/session_devices.h"
#include "runtime/executor.h"

namespace sluice::rt {

struct Session::Compiled {
  std::unique_ptr<Executor> executor; // the whole step on one device
  /// A step spanning several devices: one executor per partition, run
  /// together and joined by a rendezvous.
  struct Part {
    std::unique_ptr<Executor> executor;
    std::vector<int> feeds;   // indices into the run's feeds
    std::vector<int> fetches; // indices into the run's fetches
  };
  std::vector<Part> parts;
  /// A cluster step: each partition registered on its device's task.
  struct RemotePart {
    std::string device, handle;
    std::vector<int> feeds, fetches;
  };
  std::vector<RemotePart> remote;
  std::shared_ptr<RemoteCluster> cluster; // where `remote` is registered
  ~Compiled() {
    if (!cluster || remote.empty())
      return;
    std::vector<std::pair<std::string, std::string>> handles;
    for (const RemotePart &r : remote)
      if (!r.handle.empty())
        handles.emplace_back(r.device, r.handle);
    cluster->deregisterPartitions(handles);
  }
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

const std::string &oneDevice() {
  static const std::string d = "/job:localhost/replica:0/task:0/device:CPU:0";
  return d;
}

int hardwareThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

} // namespace

Session::Session(const ir::Graph *graph, std::shared_mutex *graphMutex,
                 SessionOptions options)
    : graph_(graph), graphMutex_(graphMutex), options_(std::move(options)),
      pool_(options_.interOpThreads) {
  if (options_.cluster) {
    std::random_device rd;
    // The top bits tell sessions apart on the tasks they share.
    stepIdBase_ = static_cast<int64_t>((uint64_t(rd()) << 32 | rd()) & 0x7fffffff00000000ULL);
  }
}

Expected<std::unique_ptr<Session>> Session::create(const ir::Graph *graph,
                                                   std::shared_mutex *graphMutex,
                                                   SessionOptions options) {
  if (!graph)
    return invalidArgument("a session needs a graph");
  if (options.intraOpThreads < 0 || options.interOpThreads < 0)
    return invalidArgument("thread counts must not be negative");
  if (options.backend != "interp" && options.backend != "jit")
    return invalidArgument("backend must be 'interp' or 'jit', got '" + options.backend + "'");
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
  if (options_.cluster)
    return options_.cluster->devices();
  SharedLock lock(graphMutex_);
  return sessionDevices(*graph_, options_.deviceCount);
}

Expected<std::vector<std::string>> Session::placement() const {
  std::unique_ptr<ir::Graph> clone;
  {
    SharedLock lock(graphMutex_);
    clone = graph_->clone();
  }
  if (options_.ignoreDeviceRequests)
    return std::vector<std::string>(static_cast<size_t>(clone->numNodes()), oneDevice());
  passes::PassOptions config = sessionPassOptions(options_, *clone);
  passes::PlacementOptions po;
  po.devices = config.devices;
  po.allowSoftPlacement = config.allowSoftPlacement;
  po.kernels = config.kernels;
  po.noGpuReason = config.noGpuReason;
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
  ctx.options = sessionPassOptions(options_, *clone);
  passes::PipelineOptions po;
  po.place = !options_.ignoreDeviceRequests;
  po.fuse = options_.fusion;
  if (options_.ignoreDeviceRequests)
    for (ir::NodeId id = 0; id < clone->numNodes(); ++id)
      clone->node(id).setAssignedDevice(oneDevice());
  // log_device_placement names the step's nodes as the user wrote them:
  // the graph after the first prune, before folding replaces any.
  std::vector<std::string> placementLines;
  if (options_.logDevicePlacement) {
    po.printAfter = "prune";
    po.afterPass = [&placementLines](std::string_view, const ir::Graph &g) {
      if (!placementLines.empty())
        return;
      for (ir::NodeId id = 0; id < g.numNodes(); ++id) {
        const ir::Node &n = g.node(id);
        placementLines.push_back(n.name() + ": (" + n.opName() + "): " + n.assignedDevice());
      }
    };
  }
  SLUICE_TRY(passes::runPipeline(clone, ctx, po));
  {
    std::lock_guard<std::mutex> lock(logMu_);
    for (const Status &note : ctx.notes)
      if (notedNodes_.insert(note.node()).second)
        log((note.loc().valid() ? note.loc().str() + ": " : std::string()) + "note: " +
            note.message());
    for (const std::string &line : placementLines)
      if (loggedNodes_.insert(line.substr(0, line.find(": ("))).second)
        log(line);
  }

  ExecutorOptions eo;
  eo.kernels = sessionKernels(options_.kernels, options_.backend, options_.fusion);
  eo.intraOpThreads =
      options_.intraOpThreads > 0 ? options_.intraOpThreads : hardwareThreads();
  eo.deterministic = options_.deterministic;
  SLUICE_ASSIGN_OR_RETURN(passes::PartitionedGraph split, passes::partitionGraph(*clone));
  if (options_.cluster) {
    // Every partition goes to the task that owns its device, even a lone
    // one: this process hosts none of the cluster's devices itself.
    size_t n = split.parts.size();
    compiled->cluster = options_.cluster;
    std::vector<RemoteCluster::PartitionSpec> specs(n);
    compiled->remote.resize(n);
    for (size_t p = 0; p < n; ++p) {
      specs[p].graph = split.parts[p].graph.get();
      specs[p].device = split.parts[p].device;
      specs[p].deterministic = options_.deterministic;
      specs[p].intraOpThreads = eo.intraOpThreads;
      specs[p].backend = options_.backend;
      compiled->remote[p].device = split.parts[p].device;
    }
    for (size_t i = 0; i < ctx.feeds.size(); ++i) {
      auto [p, o] = split.locate(ctx.feeds[i]);
      specs[p].feeds.push_back(o);
      compiled->remote[p].feeds.push_back(static_cast<int>(i));
    }
    for (size_t i = 0; i < ctx.fetches.size(); ++i) {
      auto [p, o] = split.locate(ctx.fetches[i]);
      specs[p].fetches.push_back(o);
      compiled->remote[p].fetches.push_back(static_cast<int>(i));
    }
    for (ir::NodeId t : ctx.targets)
      specs[split.where[t].first].targets.push_back(split.where[t].second);
    for (size_t p = 0; p < n; ++p) {
      const ir::Graph &pg = *split.parts[p].graph;
      for (ir::NodeId id = 0; id < pg.numNodes(); ++id)
        if (pg.node(id).opName() == "send")
          specs[p].targets.push_back(id);
      SLUICE_ASSIGN_OR_RETURN(compiled->remote[p].handle,
                              options_.cluster->registerPartition(specs[p]));
    }
    return compiled;
  }
  if (split.parts.size() <= 1) {
    if (!split.parts.empty()) // each partition's kernels are its device's
      eo.deviceType = deviceTypeOf(split.parts[0].device);
    SLUICE_ASSIGN_OR_RETURN(
        compiled->executor,
        Executor::create(std::shared_ptr<const ir::Graph>(std::move(clone)),
                         std::move(ctx.feeds), std::move(ctx.fetches),
                         std::move(ctx.targets), eo));
    return compiled;
  }
  size_t n = split.parts.size();
  std::vector<std::vector<ir::Output>> feedsOf(n), fetchesOf(n);
  std::vector<std::vector<ir::NodeId>> targetsOf(n);
  compiled->parts.resize(n);
  for (size_t i = 0; i < ctx.feeds.size(); ++i) {
    auto [p, o] = split.locate(ctx.feeds[i]);
    feedsOf[p].push_back(o);
    compiled->parts[p].feeds.push_back(static_cast<int>(i));
  }
  for (size_t i = 0; i < ctx.fetches.size(); ++i) {
    auto [p, o] = split.locate(ctx.fetches[i]);
    fetchesOf[p].push_back(o);
    compiled->parts[p].fetches.push_back(static_cast<int>(i));
  }
  for (ir::NodeId t : ctx.targets)
    targetsOf[split.where[t].first].push_back(split.where[t].second);
  for (size_t p = 0; p < n; ++p) {
    // Every send runs: another partition waits for it.
    const ir::Graph &pg = *split.parts[p].graph;
    for (ir::NodeId id = 0; id < pg.numNodes(); ++id)
      if (pg.node(id).opName() == "send")
        targetsOf[p].push_back(id);
    eo.deviceType = deviceTypeOf(split.parts[p].device);
    SLUICE_ASSIGN_OR_RETURN(
        compiled->parts[p].executor,
        Executor::create(std::shared_ptr<const ir::Graph>(std::move(split.parts[p].graph)),
                         std::move(feedsOf[p]), std::move(fetchesOf[p]),
                         std::move(targetsOf[p]), eo));
  }
  return compiled;
}

Expected<std::vector<ir::Tensor>>
Session::runPartitions(const Compiled &c, const std::vector<ir::Tensor> &feedValues,
                       size_t numFetches, const StepParams &step) {
  backend::LocalRendezvous rendezvous;
  size_t n = c.parts.size();
  std::vector<std::optional<Expected<std::vector<ir::Tensor>>>> results(n);
  auto runPart = [&](size_t p) {
    std::vector<ir::Tensor> feeds;
    for (int i : c.parts[p].feeds)
      feeds.push_back(feedValues[i]);
    StepParams params = step;
    params.feedValues = &feeds;
    params.rendezvous = &rendezvous;
    results[p] = c.parts[p].executor->run(params);
    // A failed partition must not leave the others waiting on its sends.
    if (!results[p]->hasValue())
      rendezvous.abort(results[p]->status());
  };
  // Each partition blocks its thread until the step ends, so each gets a
  // thread of its own (pool threads stay free for kernels); partition 0
  // runs on the caller's.
  std::vector<std::function<void()>> jobs;
  for (size_t p = 0; p < n; ++p)
    jobs.push_back([&runPart, p] { runPart(p); });
  stepThreads_.runAll(jobs);
  const Status *firstError = nullptr;
  for (auto &r : results)
    if (!r->hasValue() &&
        (!firstError || (firstError->code() == Code::kCancelled &&
                         r->status().code() != Code::kCancelled)))
      firstError = &r->status();
  if (firstError)
    return *firstError;
  std::vector<ir::Tensor> out(numFetches);
  for (size_t p = 0; p < n; ++p)
    for (size_t k = 0; k < c.parts[p].fetches.size(); ++k)
      out[c.parts[p].fetches[k]] = std::move((**results[p])[k]);
  return out;
}

Expected<std::vector<ir::Tensor>>
Session::runRemote(const Compiled &c, const std::vector<ir::Tensor> &feedValues,
                   size_t numFetches, const StepParams &step) {
  // Every partition runs at once on its task; the first real failure (not
  // the cancellations it causes) is the step's, and aborts the rest.
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    size_t remaining = 0;
    std::vector<Status> errors;
    std::vector<std::vector<ir::Tensor>> outputs;
  };
  auto st = std::make_shared<State>();
  size_t n = c.remote.size();
  st->remaining = n;
  st->outputs.resize(n);
  std::vector<std::string> devices;
  for (const auto &r : c.remote)
    devices.push_back(r.device);
  RemoteCluster &cluster = *options_.cluster;
  int64_t stepId = stepIdBase_ + step.stepId;
  CancellationManager::Token token = CancellationManager::kInvalidToken;
  if (step.cancellation)
    token = step.cancellation->registerCallback([&cluster, stepId, devices] {
      cluster.abortStep(stepId, devices, cancelled("Step was cancelled"));
    });
  for (size_t p = 0; p < n; ++p) {
    std::vector<ir::Tensor> feeds;
    for (int i : c.remote[p].feeds)
      feeds.push_back(feedValues[static_cast<size_t>(i)]);
    cluster.runPartition(c.remote[p].device, c.remote[p].handle, stepId, std::move(feeds),
                         step.deadline, n == 1,
                         [st, p, &cluster, stepId, devices](Status s, std::vector<ir::Tensor> out) {
                           bool first = false;
                           {
                             std::lock_guard<std::mutex> lock(st->mu);
                             if (!s.isOk()) {
                               first = st->errors.empty();
                               st->errors.push_back(s);
                             } else {
                               st->outputs[p] = std::move(out);
                             }
                           }
                           // A failed partition must not leave the others
                           // waiting on its sends.
                           if (first)
                             cluster.abortStep(stepId, devices, s);
                           std::lock_guard<std::mutex> lock(st->mu);
                           if (--st->remaining == 0)
                             st->cv.notify_all();
                         });
  }
  {
    std::unique_lock<std::mutex> lock(st->mu);
    st->cv.wait(lock, [&] { return st->remaining == 0; });
  }
  if (step.cancellation && token != CancellationManager::kInvalidToken)
    step.cancellation->deregisterCallback(token);
  if (n > 1) // a lone partition's task dropped the step itself
    cluster.cleanupStep(stepId, devices);
  const Status *firstError = nullptr;
  for (const Status &e : st->errors)
    if (!firstError || (firstError->code() == Code::kCancelled && e.code() != Code::kCancelled))
      firstError = &e;
  if (firstError)
    return *firstError;
  std::vector<ir::Tensor> out(numFetches);
  for (size_t p = 0; p < n; ++p) {
    if (st->outputs[p].size() != c.remote[p].fetches.size())
      return internalError("a task returned " + std::to_string(st->outputs[p].size()) +
                           " values for " + std::to_string(c.remote[p].fetches.size()) +
                           " fetches");
    for (size_t k = 0; k < c.remote[p].fetches.size(); ++k)
      out[static_cast<size_t>(c.remote[p].fetches[k])] = std::move(st->outputs[p][k]);
  }
  return out;
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
  auto result = !compiled->remote.empty() ? runRemote(*compiled, values, fetches.size(), params)
                : compiled->parts.empty()
                    ? compiled->executor->run(params)
                    : runPartitions(*compiled, values, fetches.size(), params);
  {
    std::lock_guard<std::mutex> lock(stepsMu_);
    activeSteps_.erase(&cm);
  }
  stepsCv_.notify_all();
  return result;
}

void Session::forgetCompiled() {
  std::lock_guard<std::mutex> lock(cacheMu_);
  cache_.clear();
}

void Session::cancelRunningSteps() {
  std::lock_guard<std::mutex> lock(stepsMu_);
  // Under the lock: a step removes its manager only while holding it.
  for (CancellationManager *cm : activeSteps_)
    cm->startCancel();
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
