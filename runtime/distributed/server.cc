// runtime/distributed/server.cc: tf.train.Server over gRPC's callback API.
#include "runtime/distributed/server.h"

#include <grpcpp/grpcpp.h>

#include "runtime/distributed/worker_service.h"

namespace sluice::dist {

Expected<std::unique_ptr<Server>> Server::start(ServerOptions opts) {
  if (opts.job.empty()) {
    // TF infers the job only for a one-job cluster.
    if (opts.cluster.jobMap().size() != 1)
      return valueError("Must specify an explicit `job_name`.");
    opts.job = opts.cluster.jobMap().begin()->first;
  }
  SLUICE_ASSIGN_OR_RETURN(std::string address,
                          opts.cluster.taskAddress(opts.job, opts.taskIndex));
  std::unique_ptr<Server> s(new Server());
  s->cluster_ = opts.cluster;
  s->channel_ = opts.channel;
  s->address_ = address;
  s->task_ = "/job:" + opts.job + "/replica:0/task:" + std::to_string(opts.taskIndex);
  s->service_ = std::make_unique<WorkerService>(opts.cluster, opts.job, opts.taskIndex,
                                                opts.cpus, opts.channel);
  std::shared_ptr<grpc::ServerCredentials> creds;
  if (opts.channel.tls.enabled()) {
    grpc::SslServerCredentialsOptions ssl(
        opts.channel.tls.ca.empty()
            ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
            : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    ssl.pem_root_certs = opts.channel.tls.ca;
    ssl.pem_key_cert_pairs.push_back({opts.channel.tls.key, opts.channel.tls.cert});
    creds = grpc::SslServerCredentials(ssl);
  } else {
    creds = grpc::InsecureServerCredentials();
  }
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, creds, &port);
  builder.SetMaxReceiveMessageSize(opts.channel.maxMessageBytes);
  builder.SetMaxSendMessageSize(opts.channel.maxMessageBytes);
  // One task may hold a port only once: a second server on it must fail
  // here, not share the port and split the cluster's calls.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.RegisterService(s->service_.get());
  s->server_ = builder.BuildAndStart();
  if (!s->server_ || port == 0)
    return unavailable("task /job:" + opts.job + "/task:" + std::to_string(opts.taskIndex) +
                       " cannot listen on " + address +
                       " (the port is in use, or the address is not this machine's)");
  return s;
}

Server::~Server() { stop(); }

void Server::join() {
  if (server_)
    server_->Wait();
}

void Server::stop() {
  if (!server_ || stopped_.exchange(true))
    return;
  // First fail every step and refuse new ones, so that every open call
  // finishes: gRPC's Shutdown waits for them, and a call finished after
  // it returned would touch a server that is gone.
  service_->cancelAll(cancelled("the server of task " + service_->task() + " is stopping"));
  // Calls still open after the grace period (a receiver that does not
  // read its answer) are cancelled.
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

} // namespace sluice::dist
