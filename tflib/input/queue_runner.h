// tflib/input/queue_runner.h: TF1's tf.train.QueueRunner over a session:
// the bodies of its threads, with QueueRunner._run's semantics
// (docs/tf1-semantics.md §4). One copy, used by the language's
// queue_runner objects and by the C++ API's Session::startQueueRunners;
// each starts the bodies on threads of its own kind.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"
#include "tflib/input/activity.h"
#include "tflib/input/coordinator.h"

namespace sluice::rt {
class Session;
}

namespace sluice::tflib {

/// A QueueRunner as node ids: the enqueue ops (one thread each), the op
/// that closes the queue when the input ends, the one that cancels it on
/// a stop (kNoNode: none).
struct QueueRunnerDef {
  std::vector<ir::NodeId> enqueueOps;
  ir::NodeId closeOp = ir::kNoNode;
  ir::NodeId cancelOp = ir::kNoNode;
};

class QueueRunner : public std::enable_shared_from_this<QueueRunner> {
public:
  explicit QueueRunner(QueueRunnerDef def) : def_(std::move(def)) {}
  const QueueRunnerDef &def() const { return def_; }

  /// What one thread runs. `op` is its enqueue op, or kNoNode for the
  /// thread that runs cancel_op once the coordinator stops. `run` returns
  /// the error the thread dies with: one reported to a coordinator that
  /// was already joined, as in TF (other errors go to the coordinator).
  struct ThreadBody {
    ir::NodeId op = ir::kNoNode;
    std::function<std::optional<Status>()> run;
  };

  /// A round of threads in `session`, which must outlive them: each
  /// enqueues until its input ends (the last to end runs close_op, so the
  /// end flows down a chain of queues), the coordinator stops, or an error
  /// (reported to `coord`, else kept in exceptions() and logged). With a
  /// coordinator and a cancel_op, one more body cancels the queue on stop.
  /// In a deterministic session the enqueue threads take turns, so reads
  /// and enqueues happen in an order fixed by the graph.
  std::vector<ThreadBody> startRound(rt::Session &session, std::shared_ptr<Coordinator> coord,
                                     std::shared_ptr<ProgramActivity> activity);

  /// Errors of threads that had no coordinator (TF's exceptions_raised).
  std::vector<Status> exceptions() const;

private:
  std::optional<Status> enqueueLoop(rt::Session &session, ir::NodeId op, Coordinator *coord,
                                    ProgramActivity &activity, struct Turns *turns);

  QueueRunnerDef def_;
  mutable std::mutex mu_;
  /// TF's _runs_per_session: how many enqueue threads of a session still
  /// run (the last one to end runs close_op).
  std::map<const rt::Session *, int> running_;
  std::vector<Status> exceptions_;
};

} // namespace sluice::tflib
