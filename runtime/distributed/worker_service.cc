// runtime/distributed/worker_service.cc: a task's side of the cluster.
#include "runtime/distributed/worker_service.h"
#include "support/secrets.h"

#include <atomic>
#include <thread>

#include "backend/jit/jit.h"
#include "ir/device_spec.h"
#include "ir/text/parser.h"
#include "runtime/distributed/tensor_codec.h"
#include "runtime/distributed/tensor_wire.h"

namespace sluice::dist {

namespace {

constexpr const char *kTokenKey = "sluice-token";
// A step nobody cleaned up (its master died) is dropped after this long.
constexpr auto kStepLifetime = std::chrono::minutes(10);

std::chrono::steady_clock::time_point deadlineAfter(int64_t ms) {
  return ms > 0 ? std::chrono::steady_clock::now() + std::chrono::milliseconds(ms)
                : std::chrono::steady_clock::time_point::max();
}

Expected<ir::Output> outputNamed(const ir::Graph &g, const std::string &name) {
  auto colon = name.rfind(':');
  const ir::Node *n = g.findNode(name.substr(0, colon));
  int index = colon == std::string::npos ? 0 : std::atoi(name.c_str() + colon + 1);
  if (!n || index < 0 || index >= n->numOutputs())
    return invalidArgument("the partition has no output '" + name + "'");
  return ir::Output{n->id(), index};
}

} // namespace

std::string taskOfDevice(const std::string &device) {
  auto spec = ir::DeviceSpec::parse(device);
  if (!spec.hasValue() || !spec->job)
    return "";
  return "/job:" + *spec->job + "/replica:" + std::to_string(spec->replica.value_or(0)) +
         "/task:" + std::to_string(spec->task.value_or(0));
}

std::shared_ptr<grpc::Channel> makeChannel(const std::string &address,
                                           const ChannelOptions &opts) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(opts.maxMessageBytes);
  args.SetMaxSendMessageSize(opts.maxMessageBytes);
  // Notice a dead peer within seconds even while a call waits on it.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 2000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 2000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // Reconnect quickly to a task that restarts (gRPC's default backs off
  // up to two minutes).
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (opts.tls.enabled()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = opts.tls.ca.empty() ? opts.tls.cert : opts.tls.ca;
    if (!opts.tls.ca.empty()) {
      ssl.pem_private_key = opts.tls.key;
      ssl.pem_cert_chain = opts.tls.cert;
    }
    creds = grpc::SslCredentials(ssl);
  } else {
    creds = grpc::InsecureChannelCredentials();
  }
  return grpc::CreateCustomChannel(address, creds, args);
}

// --- peers -------------------------------------------------------------------

Expected<Peers::Peer *> Peers::peer(const std::string &task, std::string *address) {
  auto spec = ir::DeviceSpec::parse(task);
  if (!spec.hasValue() || !spec->job)
    return invalidArgument("'" + task + "' is not a task name");
  auto addr = cluster_.taskAddress(*spec->job, spec->task.value_or(0));
  if (!addr.hasValue())
    return notFound("task " + task + " is not in the cluster");
  if (address)
    *address = *addr;
  std::lock_guard<std::mutex> lock(mu_);
  Peer &p = peers_[task];
  if (!p.stub) {
    auto channel = makeChannel(*addr, opts_);
    p.stub = rpc::Worker::NewStub(channel);
    p.raw = std::make_unique<grpc::GenericStub>(channel);
  }
  return &p;
}

Expected<rpc::Worker::Stub *> Peers::stub(const std::string &task, std::string *address) {
  SLUICE_ASSIGN_OR_RETURN(Peer * p, peer(task, address));
  return p->stub.get();
}

Expected<grpc::GenericStub *> Peers::rawStub(const std::string &task, std::string *address) {
  SLUICE_ASSIGN_OR_RETURN(Peer * p, peer(task, address));
  return p->raw.get();
}

std::unique_ptr<grpc::ClientContext>
Peers::context(std::chrono::steady_clock::time_point deadline) const {
  return makeContext(opts_, deadline);
}

std::unique_ptr<grpc::ClientContext> makeContext(const ChannelOptions &opts,
                                                 std::chrono::steady_clock::time_point deadline) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (!opts.token.empty())
    ctx->AddMetadata(kTokenKey, opts.token);
  if (deadline != std::chrono::steady_clock::time_point::max())
    // gRPC takes system_clock deadlines.
    ctx->set_deadline(std::chrono::system_clock::now() +
                      std::chrono::duration_cast<std::chrono::system_clock::duration>(
                          deadline - std::chrono::steady_clock::now()));
  return ctx;
}

// --- steps and their rendezvous ------------------------------------------------

struct WorkerService::Step {
  backend::LocalRendezvous local;
  CancellationManager cm;
  std::chrono::steady_clock::time_point created = std::chrono::steady_clock::now();
};

// A step's rendezvous on this task: sends stay here; a recv whose sender
// is another task asks that task for the tensor.
class WorkerService::StepRendezvous : public backend::Rendezvous {
public:
  StepRendezvous(WorkerService &svc, std::shared_ptr<Step> step, int64_t stepId,
                 std::chrono::steady_clock::time_point deadline)
      : svc_(svc), step_(std::move(step)), stepId_(stepId), deadline_(deadline) {}

  Status send(const std::string &key, ir::Tensor t) override {
    return step_->local.send(key, std::move(t));
  }

  void recvAsync(const std::string &key, CancellationManager *cm, DoneCallback done) override {
    auto parsed = backend::parseRendezvousKey(key);
    if (!parsed.hasValue())
      return done(parsed.takeStatus(), {});
    std::string from = taskOfDevice(parsed->sendDevice);
    if (from == svc_.task_)
      return step_->local.recvAsync(key, cm, std::move(done));
    std::string address;
    auto stub = svc_.peers_.rawStub(from, &address);
    if (!stub.hasValue())
      return done(stub.takeStatus(), {});
    struct Call {
      std::unique_ptr<grpc::ClientContext> ctx;
      grpc::ByteBuffer req, resp;
      DoneCallback done;
      CancellationManager *cm = nullptr;
      CancellationManager::Token token = CancellationManager::kInvalidToken;
    };
    auto call = std::make_shared<Call>();
    call->ctx = svc_.peers_.context(deadline_);
    rpc::RecvTensorRequest req;
    req.set_step_id(stepId_);
    req.set_key(key);
    call->req = encodeWithTensors(req, 0, {});
    call->done = std::move(done);
    if (cm) {
      grpc::ClientContext *ctx = call->ctx.get();
      call->cm = cm;
      call->token = cm->registerCallback([ctx] { ctx->TryCancel(); });
      if (call->token == CancellationManager::kInvalidToken)
        return call->done(cancelled("RecvAsync is cancelled."), {});
    }
    std::string peer = "task " + from + " at " + address;
    (*stub)->UnaryCall(call->ctx.get(), kRecvTensorMethod, grpc::StubOptions(), &call->req,
                       &call->resp, [call, peer](grpc::Status s) {
                         if (call->cm)
                           call->cm->deregisterCallback(call->token);
                         call->ctx.reset(); // before the step may end (peers.h)
                         if (!s.ok())
                           return call->done(fromGrpc(s, peer), {});
                         rpc::RecvTensorResponse rest;
                         std::vector<ir::Tensor> t;
                         Status d = decodeWithTensors(
                             call->resp, &rest, rpc::RecvTensorResponse::kTensorFieldNumber, &t);
                         if (d.isOk() && t.empty())
                           d = invalidArgument("a RecvTensor answer holds no tensor");
                         if (!d.isOk())
                           return call->done(d, {});
                         call->done(Status::ok(), std::move(t.back()));
                       });
  }

  void abort(Status s) override { step_->local.abort(std::move(s)); }

private:
  WorkerService &svc_;
  std::shared_ptr<Step> step_;
  int64_t stepId_;
  std::chrono::steady_clock::time_point deadline_;
};

// --- reactors that may outlive their call ------------------------------------------

// A RecvTensor waits in the step's rendezvous for a send that may never
// come (its step was aborted elsewhere, or the receiver gave up). It
// finishes exactly once: with the tensor, with the step's error, or when
// gRPC cancels the call (the receiver's deadline or cancellation, the
// server's shutdown). The waiter keeps it alive after gRPC is done with it.
class WorkerService::RecvTensorReactor : public grpc::ServerUnaryReactor {
public:
  static std::shared_ptr<RecvTensorReactor> make(grpc::ByteBuffer *resp) {
    std::shared_ptr<RecvTensorReactor> r(new RecvTensorReactor(resp));
    r->self_ = r;
    return r;
  }
  void finishWith(const Status &s, const ir::Tensor *t) {
    if (finished_.exchange(true))
      return;
    if (!s.isOk())
      return Finish(toGrpc(s));
    *resp_ = encodeWithTensors(rpc::RecvTensorResponse(),
                               rpc::RecvTensorResponse::kTensorFieldNumber, {*t});
    Finish(grpc::Status::OK);
  }
  void OnCancel() override { finishWith(cancelled("RecvTensor was cancelled"), nullptr); }
  void OnDone() override { self_.reset(); }

private:
  explicit RecvTensorReactor(grpc::ByteBuffer *resp) : resp_(resp) {}
  grpc::ByteBuffer *resp_;
  std::atomic<bool> finished_{false};
  std::shared_ptr<RecvTensorReactor> self_; // until gRPC is done with the call
};

// A RunGraph runs on a step thread; a call the master cancels (its session
// closed, its deadline passed) cancels the partition at once rather than
// when the step's own deadline or an AbortStep comes.
class WorkerService::RunGraphReactor : public grpc::ServerUnaryReactor {
public:
  static std::shared_ptr<RunGraphReactor> make(std::shared_ptr<Step> step) {
    std::shared_ptr<RunGraphReactor> r(new RunGraphReactor(std::move(step)));
    r->self_ = r;
    return r;
  }
  /// Finishes once; `answer` fills the response (gRPC frees it after the
  /// call is done, so only the one who finishes may write it).
  template <typename F> void finishWith(F &&answer) {
    if (!finished_.exchange(true))
      Finish(answer());
  }
  void OnCancel() override {
    step_->local.abort(cancelled("the master cancelled the step"));
    step_->cm.startCancel();
    finishWith([] {
      return grpc::Status(grpc::StatusCode::CANCELLED, "the master cancelled the step");
    });
  }
  void OnDone() override { self_.reset(); }

private:
  explicit RunGraphReactor(std::shared_ptr<Step> step) : step_(std::move(step)) {}
  std::shared_ptr<Step> step_;
  std::atomic<bool> finished_{false};
  std::shared_ptr<RunGraphReactor> self_;
};

// --- the service -----------------------------------------------------------------

WorkerService::WorkerService(rt::ClusterSpec cluster, std::string type, int index, int cpus,
                             ChannelOptions opts)
    : cluster_(cluster), task_("/job:" + type + "/replica:0/task:" + std::to_string(index)),
      peers_(std::move(cluster), std::move(opts)), pool_(0) {
  for (int c = 0; c < std::max(1, cpus); ++c)
    devices_.push_back(task_ + "/device:CPU:" + std::to_string(c));
}

WorkerService::~WorkerService() { cancelAll(cancelled("the task is shutting down")); }

void WorkerService::cancelAll(const Status &why) {
  std::map<int64_t, std::shared_ptr<Step>> steps;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    steps.swap(steps_);
  }
  for (auto &[id, s] : steps) {
    s->local.abort(why);
    s->cm.startCancel();
  }
  runners_.waitIdle();
}

size_t WorkerService::numSteps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_.size();
}

size_t WorkerService::numGraphs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return graphs_.size();
}

bool WorkerService::authorized(grpc::CallbackServerContext *ctx) const {
  const std::string &want = peers_.options().token;
  if (want.empty())
    return true;
  auto it = ctx->client_metadata().find(kTokenKey);
  return it != ctx->client_metadata().end() &&
         constantTimeEquals(std::string_view(it->second.data(), it->second.size()), want);
}

std::shared_ptr<WorkerService::Step> WorkerService::step(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_)
    return nullptr;
  auto &s = steps_[id];
  if (!s)
    s = std::make_shared<Step>();
  return s;
}

void WorkerService::dropStep(int64_t id) {
  std::shared_ptr<Step> st;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = steps_.find(id);
    if (it != steps_.end()) {
      st = it->second;
      steps_.erase(it);
    }
  }
  if (st)
    st->local.abort(cancelled("the step is over"));
}

void WorkerService::dropOldSteps() {
  std::vector<std::shared_ptr<Step>> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto now = std::chrono::steady_clock::now();
    for (auto it = steps_.begin(); it != steps_.end();) {
      if (now - it->second->created > kStepLifetime) {
        old.push_back(it->second);
        it = steps_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto &s : old) {
    s->local.abort(aborted("the step was abandoned by its master"));
    s->cm.startCancel();
  }
}

#define SLUICE_CHECK_TOKEN(ctx, reactor)                                                       \
  if (!authorized(ctx)) {                                                                      \
    reactor->Finish(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,                            \
                                 "the call does not carry the cluster's token"));              \
    return reactor;                                                                            \
  }

grpc::ServerUnaryReactor *WorkerService::GetStatus(grpc::CallbackServerContext *ctx,
                                                   const rpc::GetStatusRequest *,
                                                   rpc::GetStatusResponse *resp) {
  auto *reactor = ctx->DefaultReactor();
  SLUICE_CHECK_TOKEN(ctx, reactor)
  resp->set_task(task_);
  resp->set_cluster_json(rt::clusterSpecToJson(cluster_));
  for (const std::string &d : devices_)
    resp->add_devices(d);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor *WorkerService::RegisterGraph(grpc::CallbackServerContext *ctx,
                                                       const rpc::RegisterGraphRequest *req,
                                                       rpc::RegisterGraphResponse *resp) {
  auto *reactor = ctx->DefaultReactor();
  SLUICE_CHECK_TOKEN(ctx, reactor)
  auto fail = [&](const Status &s) {
    reactor->Finish(toGrpc(s));
    return reactor;
  };
  auto parsed = ir::parseGraph(req->graph(), "partition from the master");
  if (!parsed.hasValue())
    return fail(parsed.status());
  std::shared_ptr<ir::Graph> g(std::move(*parsed));
  std::vector<ir::Output> feeds, fetches;
  std::vector<ir::NodeId> targets;
  for (const std::string &f : req->feeds()) {
    auto o = outputNamed(*g, f);
    if (!o.hasValue())
      return fail(o.status());
    feeds.push_back(*o);
  }
  for (const std::string &f : req->fetches()) {
    auto o = outputNamed(*g, f);
    if (!o.hasValue())
      return fail(o.status());
    fetches.push_back(*o);
  }
  for (const std::string &t : req->targets()) {
    const ir::Node *n = g->findNode(t);
    if (!n)
      return fail(invalidArgument("the partition has no node '" + t + "'"));
    targets.push_back(n->id());
  }
  rt::ExecutorOptions eo;
  // The master's session chose the backend; "" is a master that predates
  // the field, which ran the JIT default.
  if (req->backend() == "jit" || req->backend().empty())
    eo.kernels = &backend::jit::jitKernelRegistry();
  else if (req->backend() != "interp")
    return fail(invalidArgument("the master asked for backend '" + req->backend() +
                                "'; this task has 'jit' and 'interp'"));
  eo.intraOpThreads = std::max(1, req->intra_op_threads());
  eo.deterministic = req->deterministic();
  auto exec = rt::Executor::create(g, std::move(feeds), std::move(fetches), std::move(targets), eo);
  if (!exec.hasValue())
    return fail(exec.status());
  std::lock_guard<std::mutex> lock(mu_);
  std::string handle = "g" + std::to_string(nextGraph_++);
  graphs_[handle] = std::shared_ptr<rt::Executor>(std::move(*exec));
  resp->set_handle(handle);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor *WorkerService::DeregisterGraph(grpc::CallbackServerContext *ctx,
                                                         const rpc::DeregisterGraphRequest *req,
                                                         rpc::DeregisterGraphResponse *) {
  auto *reactor = ctx->DefaultReactor();
  SLUICE_CHECK_TOKEN(ctx, reactor)
  std::vector<std::shared_ptr<rt::Executor>> dropped; // destroyed outside the lock
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string &h : req->handles()) {
      auto it = graphs_.find(h);
      if (it != graphs_.end()) {
        dropped.push_back(std::move(it->second));
        graphs_.erase(it);
      }
    }
  }
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor *WorkerService::RunGraph(grpc::CallbackServerContext *ctx,
                                                  const grpc::ByteBuffer *request,
                                                  grpc::ByteBuffer *resp) {
  auto refuse = [ctx](const grpc::Status &s) {
    auto *reactor = ctx->DefaultReactor();
    reactor->Finish(s);
    return reactor;
  };
  if (!authorized(ctx))
    return refuse(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                               "the call does not carry the cluster's token"));
  auto feeds = std::make_shared<std::vector<ir::Tensor>>();
  rpc::RunGraphRequest head; // all but the feeds
  Status decoded =
      decodeWithTensors(*request, &head, rpc::RunGraphRequest::kFeedsFieldNumber, feeds.get());
  if (!decoded.isOk())
    return refuse(toGrpc(decoded));
  const rpc::RunGraphRequest *req = &head;
  std::shared_ptr<rt::Executor> exec;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = graphs_.find(req->handle());
    if (it != graphs_.end())
      exec = it->second;
  }
  if (!exec)
    return refuse(grpc::Status(grpc::StatusCode::NOT_FOUND,
                               "task " + task_ + " has no graph '" + req->handle() + "'"));
  if (feeds->size() != exec->feeds().size())
    return refuse(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                               "expected " + std::to_string(exec->feeds().size()) + " feeds"));
  dropOldSteps();
  int64_t id = req->step_id();
  auto deadline = deadlineAfter(req->timeout_ms());
  std::shared_ptr<Step> st = step(id);
  if (!st)
    return refuse(toGrpc(unavailable("task " + task_ + " is stopping")));
  auto reactor = RunGraphReactor::make(st);
  // The executor blocks its thread until the partition is done.
  bool only = req->only_partition();
  runners_.start([this, exec, st, feeds, id, deadline, reactor, resp, only] {
    StepRendezvous rendezvous(*this, st, id, deadline);
    rt::StepParams p;
    p.feedValues = feeds.get();
    p.resources = &resources_;
    p.rendezvous = &rendezvous;
    p.cancellation = &st->cm;
    p.pool = &pool_;
    p.stepId = id;
    p.deadline = deadline;
    auto r = exec->run(p);
    if (only)
      dropStep(id);
    if (!r.hasValue()) {
      // The other partitions of this step must not wait for our sends.
      rendezvous.abort(r.status());
      reactor->finishWith([&] { return toGrpc(r.status()); });
      return;
    }
    reactor->finishWith([&] {
      *resp = encodeWithTensors(rpc::RunGraphResponse(),
                                rpc::RunGraphResponse::kFetchesFieldNumber, *r);
      return grpc::Status::OK;
    });
  });
  return reactor.get();
}

grpc::ServerUnaryReactor *WorkerService::RecvTensor(grpc::CallbackServerContext *ctx,
                                                    const grpc::ByteBuffer *request,
                                                    grpc::ByteBuffer *resp) {
  if (!authorized(ctx)) {
    auto *reactor = ctx->DefaultReactor();
    reactor->Finish(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                 "the call does not carry the cluster's token"));
    return reactor;
  }
  rpc::RecvTensorRequest req;
  Status decoded = decodeWithTensors(*request, &req);
  auto reactor = RecvTensorReactor::make(resp);
  if (!decoded.isOk()) {
    reactor->finishWith(decoded, nullptr);
    return reactor.get();
  }
  std::shared_ptr<Step> st = step(req.step_id());
  if (!st) {
    reactor->finishWith(unavailable("task " + task_ + " is stopping"), nullptr);
    return reactor.get();
  }
  st->local.recvAsync(req.key(), nullptr, [reactor](Status s, ir::Tensor t) {
    reactor->finishWith(s, &t);
  });
  return reactor.get();
}

grpc::ServerUnaryReactor *WorkerService::AbortStep(grpc::CallbackServerContext *ctx,
                                                   const rpc::AbortStepRequest *req,
                                                   rpc::AbortStepResponse *) {
  auto *reactor = ctx->DefaultReactor();
  SLUICE_CHECK_TOKEN(ctx, reactor)
  std::shared_ptr<Step> st = step(req->step_id());
  if (!st) { // stopping: every step is failed already
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  // The code comes off the wire: anything outside Sluice's range is an abort.
  int code = req->code();
  Status why = code > 0 && code <= static_cast<int>(Code::kRuntimeError)
                   ? Status(static_cast<Code>(code), req->message())
                   : aborted("the step was aborted: " + req->message());
  st->local.abort(why);
  st->cm.startCancel();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor *WorkerService::CleanupStep(grpc::CallbackServerContext *ctx,
                                                     const rpc::CleanupStepRequest *req,
                                                     rpc::CleanupStepResponse *) {
  auto *reactor = ctx->DefaultReactor();
  SLUICE_CHECK_TOKEN(ctx, reactor)
  dropStep(req->step_id());
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

} // namespace sluice::dist
