// api/session.cc: Session: an rt::Session over a Program's graph, with
// tflib's queue runners on native threads and its stall check.
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "api/detail/program_impl.h"
#include "runtime/session.h"
#include "tflib/input/coordinator.h"
#include "tflib/input/queue_runner.h"
#include "tflib/input/stall_check.h"

namespace sluice {

struct Session::Impl {
  std::shared_ptr<const Program::Impl> program;
  std::unique_ptr<rt::Session> session;
  bool stallDetection = true;
  const std::shared_ptr<tflib::ProgramActivity> activity =
      std::make_shared<tflib::ProgramActivity>();

  std::mutex mu;
  std::vector<std::shared_ptr<tflib::QueueRunner>> runners; // made on first start; guarded by mu
  std::shared_ptr<tflib::Coordinator> coord;                // of the running round; guarded by mu
  std::vector<std::thread> threads;                         // guarded by mu

  ~Impl() {
    stopRunners().ignore();
    session->close().ignore();
  }

  Expected<std::vector<ir::Tensor>>
  run(const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
      const std::vector<ir::Output> &fetches, const std::vector<ir::NodeId> &targets);
  Status startRunners();
  Status stopRunners();
  /// The error a runner thread stopped the round with, if any.
  std::optional<Status> runnerError() {
    std::lock_guard<std::mutex> lock(mu);
    return coord ? coord->error() : std::nullopt;
  }
};

// The runners are TF's QueueRunners under one Coordinator (tflib/input): a
// runner's failure stops the round, which cancels every runner's queue so
// consumers see the end; stopping does the same without an error.
Status Session::Impl::startRunners() {
  std::lock_guard<std::mutex> lock(mu);
  if (!threads.empty())
    return failedPrecondition("the queue runners are already running");
  if (runners.empty())
    for (const tflib::QueueRunnerDef &def : program->queueRunners)
      runners.push_back(std::make_shared<tflib::QueueRunner>(def));
  coord = std::make_shared<tflib::Coordinator>();
  for (auto &runner : runners)
    for (auto &body : runner->startRound(*session, coord, activity)) {
      auto alive = std::make_shared<tflib::ProgramActivity::Thread>(activity);
      threads.emplace_back([run = std::move(body.run), alive]() mutable {
        (void)run(); // a runner's error is the coordinator's (runnerError)
        alive.reset();
      });
    }
  return Status::ok();
}

Status Session::Impl::stopRunners() {
  std::vector<std::thread> joining;
  std::shared_ptr<tflib::Coordinator> c;
  {
    std::lock_guard<std::mutex> lock(mu);
    joining = std::move(threads);
    threads.clear();
    c = coord;
  }
  if (c)
    c->requestStop();
  for (auto &t : joining)
    t.join();
  if (!c)
    return Status::ok();
  std::optional<Status> err = c->markJoined();
  return err ? *err : Status::ok();
}

Expected<std::vector<ir::Tensor>>
Session::Impl::run(const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
                   const std::vector<ir::Output> &fetches, const std::vector<ir::NodeId> &targets) {
  rt::RunOptions ro;
  if (stallDetection)
    ro.stallCheck = [this] {
      return tflib::stalledQueue(*activity, *session, [this](const std::string &node) {
        const ir::Node *n = program->graph->findNode(node);
        return n ? n->loc() : SourceLoc{};
      });
    };
  auto r = [&] {
    tflib::ProgramActivity::Run inFlight(*activity);
    return session->run(feeds, fetches, targets, ro);
  }();
  if (!r.hasValue() && (r.status().code() == Code::kOutOfRange ||
                        r.status().code() == Code::kCancelled)) {
    // The queue ended because a runner failed: that failure is the news.
    if (std::optional<Status> e = runnerError())
      return *e;
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
  Status s = impl_->startRunners();
  if (!s.isOk())
    return api::toError(s);
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
