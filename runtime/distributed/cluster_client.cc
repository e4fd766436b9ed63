// runtime/distributed/cluster_client.cc: RemoteCluster over gRPC.
#include "runtime/distributed/cluster_client.h"

#include <map>

#include "ir/text/printer.h"
#include "runtime/distributed/peers.h"
#include "runtime/distributed/tensor_codec.h"
#include "runtime/distributed/tensor_wire.h"

namespace sluice::dist {

namespace {

// Registration of a big graph may take a while on a loaded task.
constexpr auto kRegisterDeadline = std::chrono::seconds(60);
// Aborts and cleanups are best effort: a task that does not answer soon
// is dead or stuck, and drops abandoned steps itself.
constexpr auto kHousekeepingDeadline = std::chrono::seconds(5);

std::string outputName(const ir::Graph &g, ir::Output o) {
  return g.node(o.node).name() + ":" + std::to_string(o.index);
}

std::vector<std::string> tasksOf(const std::vector<std::string> &devices) {
  std::set<std::string> tasks;
  for (const std::string &d : devices)
    tasks.insert(taskOfDevice(d));
  return {tasks.begin(), tasks.end()};
}

} // namespace

Expected<TaskIdentity> askTask(const std::string &address, const ChannelOptions &channel,
                               std::chrono::milliseconds timeout) {
  auto stub = rpc::Worker::NewStub(makeChannel(address, channel));
  auto ctx = makeContext(channel, std::chrono::steady_clock::now() + timeout);
  ctx->set_wait_for_ready(true);
  rpc::GetStatusRequest req;
  rpc::GetStatusResponse resp;
  grpc::Status st = stub->GetStatus(ctx.get(), req, &resp);
  if (!st.ok())
    return fromGrpc(st, "the server at " + address);
  TaskIdentity id;
  SLUICE_ASSIGN_OR_RETURN(id.cluster, rt::clusterSpecFromJson(resp.cluster_json()));
  id.task = resp.task();
  return id;
}

ClusterClient::ClusterClient(ClusterClientOptions opts)
    : opts_(std::move(opts)),
      peers_(std::make_unique<Peers>(opts_.cluster, opts_.channel)) {}

ClusterClient::~ClusterClient() {
  std::unique_lock<std::mutex> lock(mu_);
  idleCv_.wait(lock, [&] { return inFlight_ == 0; });
}

std::vector<std::string> ClusterClient::devices() {
  std::vector<std::string> all = opts_.cluster.devices(opts_.cpusPerTask), out;
  for (const std::string &d : all)
    if (taskOfDevice(d) == opts_.localTask)
      out.push_back(d);
  for (const std::string &d : all)
    if (taskOfDevice(d) != opts_.localTask)
      out.push_back(d);
  return out;
}

std::string ClusterClient::describe(const std::string &task) {
  std::string address;
  auto stub = peers_->stub(task, &address);
  return "task " + task + (address.empty() ? "" : " at " + address);
}

Status ClusterClient::waitForTask(const std::string &task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ready_.count(task))
      return Status::ok();
  }
  std::string address;
  SLUICE_ASSIGN_OR_RETURN(rpc::Worker::Stub * stub, peers_->stub(task, &address));
  auto start = std::chrono::steady_clock::now();
  auto giveUp = start + opts_.startupTimeout;
  for (;;) {
    auto now = std::chrono::steady_clock::now();
    auto deadline = std::min(giveUp, now + opts_.waitLogEvery);
    auto ctx = peers_->context(deadline);
    ctx->set_wait_for_ready(true);
    rpc::GetStatusRequest req;
    rpc::GetStatusResponse resp;
    grpc::Status s = stub->GetStatus(ctx.get(), req, &resp);
    if (s.ok()) {
      if (resp.task() != task)
        return failedPrecondition(address + " serves task " + resp.task() + ", not " + task +
                                  ": the tasks were started with different cluster specs");
      std::lock_guard<std::mutex> lock(mu_);
      ready_.insert(task);
      return Status::ok();
    }
    if (s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED &&
        s.error_code() != grpc::StatusCode::UNAVAILABLE)
      return fromGrpc(s, "task " + task + " at " + address);
    if (std::chrono::steady_clock::now() >= giveUp)
      return unavailable(
          "task " + task + " at " + address + " did not answer within " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(opts_.startupTimeout)
                             .count()) +
          " s (is it started, with the same cluster spec?)");
    if (opts_.log) {
      auto waited = std::chrono::duration_cast<std::chrono::seconds>(
          std::chrono::steady_clock::now() - start);
      opts_.log("waiting for task " + task + " at " + address + " (" +
                std::to_string(waited.count()) + " s)");
    }
  }
}

Expected<std::string> ClusterClient::registerPartition(const PartitionSpec &spec) {
  std::string task = taskOfDevice(spec.device);
  SLUICE_TRY(waitForTask(task));
  SLUICE_ASSIGN_OR_RETURN(rpc::Worker::Stub * stub, peers_->stub(task));
  rpc::RegisterGraphRequest req;
  req.set_graph(ir::printGraph(*spec.graph));
  for (ir::Output o : spec.feeds)
    req.add_feeds(outputName(*spec.graph, o));
  for (ir::Output o : spec.fetches)
    req.add_fetches(outputName(*spec.graph, o));
  for (ir::NodeId t : spec.targets)
    req.add_targets(spec.graph->node(t).name());
  req.set_deterministic(spec.deterministic);
  req.set_intra_op_threads(spec.intraOpThreads);
  req.set_backend(spec.backend);
  rpc::RegisterGraphResponse resp;
  auto ctx = peers_->context(std::chrono::steady_clock::now() + kRegisterDeadline);
  grpc::Status s = stub->RegisterGraph(ctx.get(), req, &resp);
  if (!s.ok())
    return fromGrpc(s, describe(task));
  return resp.handle();
}

template <typename Req, typename Resp, typename Start>
void ClusterClient::fireAndForget(const std::string &task, Req req, Start start) {
  auto stub = peers_->stub(task);
  if (!stub.hasValue())
    return;
  struct Call {
    std::unique_ptr<grpc::ClientContext> ctx;
    Req req;
    Resp resp;
  };
  auto call = std::make_shared<Call>();
  call->ctx = peers_->context(std::chrono::steady_clock::now() + kHousekeepingDeadline);
  call->req = std::move(req);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++inFlight_;
  }
  start(*stub, call->ctx.get(), &call->req, &call->resp, [this, call](grpc::Status) {
    call->ctx.reset(); // before the client may be destroyed (peers.h)
    std::lock_guard<std::mutex> lock(mu_);
    if (--inFlight_ == 0)
      idleCv_.notify_all();
  });
}

void ClusterClient::deregisterPartitions(
    const std::vector<std::pair<std::string, std::string>> &parts) {
  std::map<std::string, rpc::DeregisterGraphRequest> byTask;
  for (const auto &[device, handle] : parts)
    byTask[taskOfDevice(device)].add_handles(handle);
  for (auto &[task, req] : byTask)
    fireAndForget<rpc::DeregisterGraphRequest, rpc::DeregisterGraphResponse>(
        task, std::move(req), [](rpc::Worker::Stub *stub, auto *ctx, auto *rq, auto *rs, auto cb) {
          stub->async()->DeregisterGraph(ctx, rq, rs, std::move(cb));
        });
}

void ClusterClient::runPartition(const std::string &device, const std::string &handle,
                                 int64_t stepId, std::vector<ir::Tensor> feeds,
                                 std::chrono::steady_clock::time_point deadline,
                                 bool onlyPartition, RunDone done) {
  std::string task = taskOfDevice(device);
  std::string address;
  auto stub = peers_->rawStub(task, &address);
  if (!stub.hasValue())
    return done(stub.takeStatus(), {});
  struct Call {
    std::unique_ptr<grpc::ClientContext> ctx;
    grpc::ByteBuffer req, resp;
    RunDone done;
    std::string peer;
  };
  auto call = std::make_shared<Call>();
  call->ctx = peers_->context(deadline);
  rpc::RunGraphRequest head; // the feeds follow it, not copied
  head.set_handle(handle);
  head.set_step_id(stepId);
  head.set_only_partition(onlyPartition);
  if (deadline != std::chrono::steady_clock::time_point::max())
    head.set_timeout_ms(std::max<int64_t>(
        1, std::chrono::duration_cast<std::chrono::milliseconds>(
               deadline - std::chrono::steady_clock::now())
               .count()));
  call->req = encodeWithTensors(head, rpc::RunGraphRequest::kFeedsFieldNumber, feeds);
  call->done = std::move(done);
  call->peer = "task " + task + " at " + address;
  (*stub)->UnaryCall(call->ctx.get(), kRunGraphMethod, grpc::StubOptions(), &call->req,
                     &call->resp, [call](grpc::Status s) {
                       call->ctx.reset(); // before the step may end (peers.h)
                       if (!s.ok())
                         return call->done(fromGrpc(s, call->peer), {});
                       rpc::RunGraphResponse rest;
                       std::vector<ir::Tensor> out;
                       Status d = decodeWithTensors(
                           call->resp, &rest, rpc::RunGraphResponse::kFetchesFieldNumber, &out);
                       if (!d.isOk())
                         return call->done(d, {});
                       call->done(Status::ok(), std::move(out));
                     });
}

void ClusterClient::abortStep(int64_t stepId, const std::vector<std::string> &devices,
                              const Status &why) {
  for (const std::string &task : tasksOf(devices)) {
    rpc::AbortStepRequest req;
    req.set_step_id(stepId);
    req.set_code(static_cast<int>(why.code()));
    req.set_message(why.message());
    fireAndForget<rpc::AbortStepRequest, rpc::AbortStepResponse>(
        task, std::move(req), [](rpc::Worker::Stub *stub, auto *ctx, auto *rq, auto *rs, auto cb) {
          stub->async()->AbortStep(ctx, rq, rs, std::move(cb));
        });
  }
}

void ClusterClient::cleanupStep(int64_t stepId, const std::vector<std::string> &devices) {
  for (const std::string &task : tasksOf(devices)) {
    rpc::CleanupStepRequest req;
    req.set_step_id(stepId);
    fireAndForget<rpc::CleanupStepRequest, rpc::CleanupStepResponse>(
        task, std::move(req), [](rpc::Worker::Stub *stub, auto *ctx, auto *rq, auto *rs, auto cb) {
          stub->async()->CleanupStep(ctx, rq, rs, std::move(cb));
        });
  }
}

} // namespace sluice::dist
