// runtime/distributed/peers.h: gRPC channels and stubs to a cluster's
// tasks, and the call contexts every call uses (token, deadline).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <grpcpp/generic/generic_stub.h>

#include "runtime/cluster_spec.h"
#include "runtime/distributed/channel.h"
#include "runtime/distributed/worker.grpc.pb.h"
#include "support/status.h"

namespace sluice::dist {

/// A call context carrying the options' token, with `deadline` (max: none).
///
/// An async call's completion callback must destroy its context before it
/// reports the call done: the context holds the channel, and gRPC
/// (1.51) crashes when a channel's last reference drops on one of the
/// threads that run callbacks (grpc/grpc#32584), which is what happens if
/// the owner of the stubs is already gone when the context dies there.
std::unique_ptr<grpc::ClientContext> makeContext(const ChannelOptions &opts,
                                                 std::chrono::steady_clock::time_point deadline);

/// A channel to `address` with the options' credentials and limits.
std::shared_ptr<grpc::Channel> makeChannel(const std::string &address, const ChannelOptions &opts);

/// The methods whose messages carry tensors: called and served as raw
/// byte buffers (runtime/distributed/tensor_wire.h), not as protobufs.
constexpr const char *kRunGraphMethod = "/sluice.rpc.Worker/RunGraph";
constexpr const char *kRecvTensorMethod = "/sluice.rpc.Worker/RecvTensor";

/// Stubs to the cluster's tasks, made on first use.
class Peers {
public:
  Peers(rt::ClusterSpec cluster, ChannelOptions opts)
      : cluster_(std::move(cluster)), opts_(std::move(opts)) {}
  /// The stub of the task named "/job:J/replica:R/task:T", or not_found.
  Expected<rpc::Worker::Stub *> stub(const std::string &task, std::string *address = nullptr);
  /// The same task's stub for byte-buffer calls (kRunGraphMethod, ...).
  Expected<grpc::GenericStub *> rawStub(const std::string &task, std::string *address = nullptr);
  /// A call context with the token and a deadline.
  std::unique_ptr<grpc::ClientContext> context(std::chrono::steady_clock::time_point deadline) const;
  const ChannelOptions &options() const { return opts_; }
  const rt::ClusterSpec &cluster() const { return cluster_; }

private:
  rt::ClusterSpec cluster_;
  ChannelOptions opts_;
  struct Peer {
    std::unique_ptr<rpc::Worker::Stub> stub;
    std::unique_ptr<grpc::GenericStub> raw; // on the same channel
  };
  Expected<Peer *> peer(const std::string &task, std::string *address);
  std::mutex mu_;
  std::map<std::string, Peer> peers_; // guarded by mu_
};

/// "/job:ps/replica:0/task:0" of a full device name.
std::string taskOfDevice(const std::string &device);

} // namespace sluice::dist
