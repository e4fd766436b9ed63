// backend/rendezvous.h: where a step's partitions hand tensors to each
// other (TF's Rendezvous). A send never blocks; a recv completes when the
// matching send arrives, the rendezvous is aborted, or the step is
// cancelled. The in-process implementation is below; the cluster puts a
// gRPC one behind the same interface.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "ir/tensor.h"
#include "support/cancellation.h"
#include "support/status.h"

namespace sluice::backend {

/// TF's key: "src;incarnation(hex);dst;tensor_name;frame:iteration".
std::string rendezvousKey(const std::string &sendDevice, int64_t incarnation,
                          const std::string &recvDevice, const std::string &tensorName,
                          int frame = 0, int iteration = 0);

struct ParsedRendezvousKey {
  std::string sendDevice;
  uint64_t incarnation = 0;
  std::string recvDevice;
  std::string tensorName;
  int frame = 0;
  int iteration = 0;
};

/// The parts of a key (what a remote rendezvous receives); invalid_argument
/// unless it has five parts, two valid device names, a hex incarnation, a
/// non-empty tensor name and a "frame:iteration" pair.
Expected<ParsedRendezvousKey> parseRendezvousKey(std::string_view key);

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
  LocalRendezvous();
  Status send(const std::string &key, ir::Tensor t) override;
  void recvAsync(const std::string &key, CancellationManager *cm, DoneCallback done) override;
  void abort(Status s) override;

private:
  struct Waiter {
    DoneCallback done;
    CancellationManager *cm = nullptr;
    CancellationManager::Token token = CancellationManager::kInvalidToken;
  };
  // Shared with the cancellation callbacks, which may still be running
  // (CancellationManager does not wait for them) after the step's last
  // recv completed and the rendezvous is gone.
  struct State {
    std::mutex mu;
    Status aborted;                          // guarded by mu
    std::map<std::string, ir::Tensor> ready; // sent, not yet received
    std::map<std::string, Waiter> waiting;   // received before the send
    std::map<std::string, bool> sent;        // keys seen, for double sends
  };
  std::shared_ptr<State> st_;
};

} // namespace sluice::backend
