// runtime/distributed/worker_service.h: one task of a cluster (TF's
// Worker): the partitions masters registered with it, their steps, the
// task's resources (variables and queues live here across sessions, as on
// a TF parameter server), and the rendezvous through which its recvs pull
// tensors from the tasks that sent them.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "backend/rendezvous.h"
#include "backend/resource_mgr.h"
#include "runtime/cluster_spec.h"
#include "runtime/distributed/peers.h"
#include "runtime/executor.h"
#include "runtime/step_threads.h"
#include "runtime/thread_pool.h"

namespace sluice::dist {

// RunGraph and RecvTensor carry tensors: they are served on byte buffers
// (runtime/distributed/tensor_wire.h) so that tensors are not copied into
// and out of protobuf strings; the other methods are plain protobuf.
using WorkerServiceBase = rpc::Worker::WithRawCallbackMethod_RunGraph<
    rpc::Worker::WithRawCallbackMethod_RecvTensor<rpc::Worker::CallbackService>>;

class WorkerService final : public WorkerServiceBase {
public:
  /// Task `type:index` of `cluster`, with `cpus` CPU devices.
  WorkerService(rt::ClusterSpec cluster, std::string type, int index, int cpus,
                ChannelOptions opts);
  ~WorkerService() override;

  const std::string &task() const { return task_; }
  /// Refuses new calls from now on and fails every step in flight, so
  /// that every call still open finishes (gRPC's Shutdown waits for them).
  void cancelAll(const Status &why);
  /// Partitions registered now (tests: sessions deregister theirs).
  size_t numGraphs() const;
  /// Steps whose state the task still keeps (tests).
  size_t numSteps() const;

  grpc::ServerUnaryReactor *GetStatus(grpc::CallbackServerContext *ctx,
                                      const rpc::GetStatusRequest *req,
                                      rpc::GetStatusResponse *resp) override;
  grpc::ServerUnaryReactor *RegisterGraph(grpc::CallbackServerContext *ctx,
                                          const rpc::RegisterGraphRequest *req,
                                          rpc::RegisterGraphResponse *resp) override;
  grpc::ServerUnaryReactor *DeregisterGraph(grpc::CallbackServerContext *ctx,
                                            const rpc::DeregisterGraphRequest *req,
                                            rpc::DeregisterGraphResponse *resp) override;
  /// A RunGraphRequest in, a RunGraphResponse out.
  grpc::ServerUnaryReactor *RunGraph(grpc::CallbackServerContext *ctx,
                                     const grpc::ByteBuffer *req,
                                     grpc::ByteBuffer *resp) override;
  /// A RecvTensorRequest in, a RecvTensorResponse out.
  grpc::ServerUnaryReactor *RecvTensor(grpc::CallbackServerContext *ctx,
                                       const grpc::ByteBuffer *req,
                                       grpc::ByteBuffer *resp) override;
  grpc::ServerUnaryReactor *AbortStep(grpc::CallbackServerContext *ctx,
                                      const rpc::AbortStepRequest *req,
                                      rpc::AbortStepResponse *resp) override;
  grpc::ServerUnaryReactor *CleanupStep(grpc::CallbackServerContext *ctx,
                                        const rpc::CleanupStepRequest *req,
                                        rpc::CleanupStepResponse *resp) override;

private:
  struct Step;
  class StepRendezvous;
  class RecvTensorReactor;
  class RunGraphReactor;

  /// The call carries the cluster's token (when one is set).
  bool authorized(grpc::CallbackServerContext *ctx) const;
  /// The step's state, made on first use; null once the task is stopping.
  std::shared_ptr<Step> step(int64_t id);
  void dropOldSteps();
  /// Forgets step `id` (its end: CleanupStep, or a lone partition finishing).
  void dropStep(int64_t id);

  rt::ClusterSpec cluster_;
  std::string task_;
  std::vector<std::string> devices_;
  Peers peers_;
  backend::ResourceMgr resources_;
  rt::ThreadPool pool_;
  rt::StepThreads runners_;

  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<rt::Executor>> graphs_; // guarded by mu_
  std::map<int64_t, std::shared_ptr<Step>> steps_;              // guarded by mu_
  int64_t nextGraph_ = 1;                                       // guarded by mu_
  bool stopping_ = false;                                       // guarded by mu_
};

} // namespace sluice::dist
