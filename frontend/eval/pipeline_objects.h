// frontend/eval/pipeline_objects.h: TF1's Coordinator and QueueRunner.
// Their threads are ThreadObjects like `spawn`'s, but run natively: they
// call the session directly and never take the interpreter lock.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>

#include "frontend/eval/objects.h"

namespace sluice::frontend {

class CoordinatorObject : public Object {
public:
  std::string typeName() const override { return "coordinator"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;

  /// Sets the stop flag; keeps the first error that is not a clean stop
  /// (out_of_range). After join() returned, an error is raised at once:
  /// thrown when `ev` is set, else (a native runner thread, where nothing
  /// could catch it) returned, for that thread to die with.
  std::optional<Status> requestStop(EvaluatorImpl *ev, std::optional<Status> error,
                                    const SourceLoc &loc);
  bool shouldStop();
  /// The error a stop was requested with (a clean stop has none).
  std::optional<Status> error();
  /// Waits up to `seconds` (forever if negative) for a stop request.
  bool waitForStop(double seconds);
  void registerThread(std::shared_ptr<ThreadObject> t);
  /// TF's Coordinator.join: waits for the threads or a stop, then a grace
  /// period; raises the stored error, else complains about stragglers.
  void join(EvaluatorImpl &ev, std::vector<std::shared_ptr<ThreadObject>> threads,
            double gracePeriodSecs, bool ignoreLiveThreads, const SourceLoc &loc);

private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool joined_ = false;
  std::optional<Status> error_;
  std::vector<std::shared_ptr<ThreadObject>> threads_;
};

class QueueRunnerObject : public Object {
public:
  std::string typeName() const override { return "queue_runner"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;

  /// Starts one thread per enqueue op (plus, with a coordinator, one that
  /// runs cancel_op on stop) in `sess`. In a deterministic session the
  /// enqueue threads take turns (rt::Turnstile).
  std::vector<std::shared_ptr<ThreadObject>>
  createThreads(EvaluatorImpl &ev, std::shared_ptr<SessionObject> sess,
                std::shared_ptr<CoordinatorObject> coord, bool start, const SourceLoc &loc);

  Value queue;
  std::vector<ir::NodeId> enqueueOps;
  ir::NodeId closeOp = ir::kNoNode;
  ir::NodeId cancelOp = ir::kNoNode;
  GraphContext *graph = nullptr;

private:
  /// TF's _runs_per_session: the threads of one session and how many of
  /// its enqueue threads still run (the last one to end runs close_op).
  struct PerSession {
    int running = 0;
    std::vector<std::shared_ptr<ThreadObject>> live;
  };
  std::mutex mu_;
  std::map<const void *, PerSession> sessions_;
  std::vector<Status> exceptions_;
};

} // namespace sluice::frontend
