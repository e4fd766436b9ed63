// api/session.cc: Session: an rt::Session over a Program's graph, with
// TF's queue runners as native threads and the frontend's stall check.
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "api/detail/program_impl.h"
#include "backend/queue_interface.h"
#include "runtime/session.h"

namespace sluice {

struct Session::Impl {
  std::shared_ptr<const Program::Impl> program;
  std::unique_ptr<rt::Session> session;
  bool stallDetection = true;

  std::mutex mu;
  std::vector<std::thread> threads;           // guarded by mu
  std::vector<int> running;                   // live threads per runner; guarded by mu
  std::optional<Status> runnerError;          // the first runner failure; guarded by mu
  std::atomic<int> liveRunnerThreads{0};
  std::atomic<int> runsInFlight{0};

  ~Impl() {
    stopRunners().ignore();
    session->close().ignore();
  }

  Expected<std::vector<ir::Tensor>>
  run(const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
      const std::vector<ir::Output> &fetches, const std::vector<ir::NodeId> &targets);
  void runnerLoop(size_t runner, ir::NodeId enqueueOp);
  void runOps(const std::vector<ir::NodeId> &ops) {
    for (ir::NodeId op : ops)
      if (op != ir::kNoNode)
        (void)session->run({}, {}, {op}); // close/cancel errors do not matter here
  }
  void cancelAllRunners() {
    std::vector<ir::NodeId> ops;
    for (const auto &qr : program->queueRunners)
      ops.push_back(qr.cancelOp);
    runOps(ops);
  }
  Status stopRunners();
  std::optional<Status> stalledQueue();
};

namespace {

bool isCleanEnd(Code c) { return c == Code::kOutOfRange || c == Code::kCancelled; }

} // namespace

void Session::Impl::runnerLoop(size_t runner, ir::NodeId enqueueOp) {
  // TF's QueueRunner._run: enqueue until the input ends (out_of_range) or
  // the queue is cancelled; the last thread of a runner closes its queue;
  // any other error closes every runner's queue so consumers see the end.
  bool failed = false;
  while (true) {
    auto r = session->run({}, {}, {enqueueOp});
    if (r.hasValue())
      continue;
    Status s = r.takeStatus();
    if (!isCleanEnd(s.code())) {
      std::lock_guard<std::mutex> lock(mu);
      if (!runnerError)
        runnerError = s;
      failed = true;
    }
    break;
  }
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(mu);
    last = --running[runner] == 0;
  }
  if (failed)
    cancelAllRunners();
  else if (last)
    runOps({program->queueRunners[runner].closeOp});
  --liveRunnerThreads;
}

Status Session::Impl::stopRunners() {
  std::vector<std::thread> joining;
  {
    std::lock_guard<std::mutex> lock(mu);
    joining = std::move(threads);
    threads.clear();
  }
  if (!joining.empty()) {
    cancelAllRunners();
    for (auto &t : joining)
      t.join();
  }
  std::lock_guard<std::mutex> lock(mu);
  return runnerError ? *runnerError : Status::ok();
}

/// As the frontend's stall check: a run waits on a queue that nothing can
/// fill when no runner thread lives and no other run is in flight.
std::optional<Status> Session::Impl::stalledQueue() {
  if (liveRunnerThreads.load() > 0 || runsInFlight.load() > 1)
    return std::nullopt;
  std::string blocked;
  session->resources().forEach([&](backend::Resource &r) {
    auto *q = dynamic_cast<backend::QueueInterface *>(&r);
    if (q && blocked.empty() && q->numBlockedDequeuers() > 0)
      blocked = q->name();
  });
  if (blocked.empty())
    return std::nullopt;
  // Private queues are named `_<uid>_<node name>`.
  std::string nodeName = blocked;
  if (nodeName.size() > 1 && nodeName[0] == '_') {
    auto second = nodeName.find('_', 1);
    if (second != std::string::npos)
      nodeName = nodeName.substr(second + 1);
  }
  SourceLoc loc;
  if (const ir::Node *n = program->graph->findNode(nodeName))
    loc = n->loc();
  return Status(Code::kFailedPrecondition,
                "run stalled: dequeue on " + blocked +
                    " waits and no producer is running (start the queue runners, or "
                    "run an enqueue from another thread)",
                loc, nodeName);
}

Expected<std::vector<ir::Tensor>>
Session::Impl::run(const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
                   const std::vector<ir::Output> &fetches, const std::vector<ir::NodeId> &targets) {
  rt::RunOptions ro;
  if (stallDetection)
    ro.stallCheck = [this] { return stalledQueue(); };
  ++runsInFlight;
  auto r = session->run(feeds, fetches, targets, ro);
  --runsInFlight;
  if (!r.hasValue() && isCleanEnd(r.status().code())) {
    // The queue ended because a runner failed: that failure is the news.
    std::lock_guard<std::mutex> lock(mu);
    if (runnerError)
      return *runnerError;
  }
  return r;
}

Result<Session> Program::newSession(const SessionOptions &opts) const {
  rt::SessionOptions so;
  so.interOpThreads = opts.interOpThreads;
  so.intraOpThreads = opts.intraOpThreads;
  so.operationTimeoutMs = opts.operationTimeoutMs;
  if (opts.cpus > 1)
    so.deviceCount["CPU"] = opts.cpus;
  auto created = rt::Session::create(impl_->graph.get(), nullptr, so);
  if (!created)
    return api::toError(created.status());
  auto impl = std::make_unique<Session::Impl>();
  impl->program = impl_;
  impl->session = std::move(*created);
  impl->stallDetection = opts.stallDetection;
  return Session(std::move(impl));
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::Session(Session &&) noexcept = default;
Session &Session::operator=(Session &&) noexcept = default;
Session::~Session() = default;

Result<std::vector<HostTensor>> Session::run(const std::vector<std::string> &fetches,
                                             const Feeds &feeds,
                                             const std::vector<std::string> &targets) {
  const Program::Impl &p = *impl_->program;
  std::vector<std::pair<ir::Output, ir::Tensor>> inFeeds;
  for (const auto &[name, value] : feeds) {
    auto ref = p.resolve(name);
    if (!ref)
      return api::toError(ref.status());
    if (ref->isOp)
      return api::toError(invalidArgument("cannot feed '" + name + "': an op with no outputs"));
    if (!value.valid())
      return api::toError(invalidArgument("the value fed to '" + name + "' is an invalid tensor"));
    inFeeds.emplace_back(ref->out, api::toInternal(value));
  }
  std::vector<ir::Output> outs;
  for (const auto &name : fetches) {
    auto ref = p.resolve(name);
    if (!ref)
      return api::toError(ref.status());
    if (ref->isOp)
      return api::toError(
          invalidArgument("cannot fetch '" + name + "': an op with no outputs (run it as a target)"));
    outs.push_back(ref->out);
  }
  std::vector<ir::NodeId> nodes;
  for (const auto &name : targets) {
    auto ref = p.resolve(name);
    if (!ref)
      return api::toError(ref.status());
    nodes.push_back(ref->out.node);
  }
  auto r = impl_->run(inFeeds, outs, nodes);
  if (!r)
    return api::toError(r.status());
  std::vector<HostTensor> results;
  for (const ir::Tensor &t : *r) {
    auto h = api::toHost(t);
    if (!h)
      return api::toError(h.status());
    results.push_back(std::move(*h));
  }
  return results;
}

Result<HostTensor> Session::fetch(const std::string &name, const Feeds &feeds) {
  auto r = run({name}, feeds);
  if (!r.ok())
    return r.error();
  return std::move((*r)[0]);
}

Result<void> Session::runTargets(const std::vector<std::string> &targets, const Feeds &feeds) {
  auto r = run({}, feeds, targets);
  if (!r.ok())
    return r.error();
  return {};
}

Result<void> Session::initialize() {
  if (impl_->program->initializers.empty())
    return {};
  auto r = impl_->run({}, {}, impl_->program->initializers);
  if (!r)
    return api::toError(r.status());
  return {};
}

Result<void> Session::startQueueRunners() {
  if (impl_->session->isClosed())
    return api::toError(cancelled("Session has been closed."));
  const auto &runners = impl_->program->queueRunners;
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!impl_->threads.empty())
    return api::toError(failedPrecondition("the queue runners are already running"));
  impl_->running.assign(runners.size(), 0);
  for (size_t r = 0; r < runners.size(); ++r) {
    for (ir::NodeId op : runners[r].enqueueOps) {
      ++impl_->running[r];
      ++impl_->liveRunnerThreads;
      impl_->threads.emplace_back([impl = impl_.get(), r, op] { impl->runnerLoop(r, op); });
    }
  }
  return {};
}

Result<void> Session::stopQueueRunners() {
  Status s = impl_->stopRunners();
  if (!s.isOk())
    return api::toError(s);
  return {};
}

Result<void> Session::close() {
  Status s = impl_->stopRunners();
  Status c = impl_->session->close();
  if (!s.isOk())
    return api::toError(s);
  if (!c.isOk())
    return api::toError(c);
  return {};
}

} // namespace sluice
