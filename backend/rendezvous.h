// backend/rendezvous.h: where a step's partitions hand tensors to each
// other (TF's Rendezvous). A send never blocks; a recv completes when the
// matching send arrives, the rendezvous is aborted, or the step is
// cancelled. The in-process implementation is below; the cluster puts a
// gRPC one behind the same interface.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "ir/tensor.h"
#include "support/cancellation.h"
#include "support/status.h"

namespace sluice::backend {

/// TF's key: "src;incarnation(hex);dst;tensor_name;frame:iteration".
std::string rendezvousKey(const std::string &sendDevice, int64_t incarnation,
                          const std::string &recvDevice, const std::string &tensorName,
                          int frame = 0, int iteration = 0);

class Rendezvous {
public:
  using DoneCallback = std::function<void(Status, ir::Tensor)>;
  virtual ~Rendezvous() = default;
  /// Delivers `t` under `key`; a second send of one key is an error.
  virtual Status send(const std::string &key, ir::Tensor t) = 0;
  /// Calls `done` (possibly at once, possibly on another thread) with the
  /// tensor sent under `key`, or with the abort / cancellation status.
  virtual void recvAsync(const std::string &key, CancellationManager *cm, DoneCallback done) = 0;
  /// Fails every pending and later recv with `s` (a partition failed).
  virtual void abort(Status s) = 0;
};

/// One step's rendezvous between partitions in this process.
class LocalRendezvous : public Rendezvous {
public:
  Status send(const std::string &key, ir::Tensor t) override;
  void recvAsync(const std::string &key, CancellationManager *cm, DoneCallback done) override;
  void abort(Status s) override;

private:
  struct Waiter {
    DoneCallback done;
    CancellationManager *cm = nullptr;
    CancellationManager::Token token = CancellationManager::kInvalidToken;
  };
  std::mutex mu_;
  Status aborted_;                          // guarded by mu_
  std::map<std::string, ir::Tensor> ready_; // sent, not yet received
  std::map<std::string, Waiter> waiting_;   // received before the send
  std::map<std::string, bool> sent_;        // keys seen, for double sends
};

} // namespace sluice::backend
