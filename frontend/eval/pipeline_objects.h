// frontend/eval/pipeline_objects.h: TF1's Coordinator and QueueRunner as
// language objects over tflib's. Their threads are ThreadObjects like
// `spawn`'s, but run natively: they call the session directly and never
// take the interpreter lock.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>

#include "frontend/eval/objects.h"
#include "tflib/input/coordinator.h"
#include "tflib/input/queue_runner.h"

namespace sluice::frontend {

class CoordinatorObject : public Object {
public:
  std::string typeName() const override { return "coordinator"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;

  /// tflib::Coordinator::requestStop; an error after join() is thrown
  /// when `ev` is set, else (a native thread, where nothing could catch
  /// it) returned, for that thread to die with.
  std::optional<Status> requestStop(EvaluatorImpl *ev, std::optional<Status> error,
                                    const SourceLoc &loc);
  bool shouldStop() { return core->shouldStop(); }
  void registerThread(std::shared_ptr<ThreadObject> t);
  /// TF's Coordinator.join: waits for the threads or a stop, then a grace
  /// period; raises the stored error, else complains about stragglers.
  void join(EvaluatorImpl &ev, std::vector<std::shared_ptr<ThreadObject>> threads,
            double gracePeriodSecs, bool ignoreLiveThreads, const SourceLoc &loc);

  const std::shared_ptr<tflib::Coordinator> core = std::make_shared<tflib::Coordinator>();

private:
  std::mutex mu_;
  std::vector<std::shared_ptr<ThreadObject>> threads_;
};

class QueueRunnerObject : public Object {
public:
  QueueRunnerObject(GraphContext *g, Value q, tflib::QueueRunnerDef def)
      : queue(std::move(q)), graph(g), runner(std::make_shared<tflib::QueueRunner>(std::move(def))) {}
  std::string typeName() const override { return "queue_runner"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;

  /// Starts one thread per enqueue op (plus, with a coordinator, one that
  /// runs cancel_op on stop) in `sess`; none while this runner's threads
  /// for `sess` still run, as TF's create_threads returns [].
  std::vector<std::shared_ptr<ThreadObject>>
  createThreads(EvaluatorImpl &ev, std::shared_ptr<SessionObject> sess,
                std::shared_ptr<CoordinatorObject> coord, bool start, const SourceLoc &loc);

  const Value queue;
  GraphContext *const graph;
  const std::shared_ptr<tflib::QueueRunner> runner;

private:
  std::mutex mu_;
  /// The threads of the latest round in each session.
  std::map<const void *, std::vector<std::shared_ptr<ThreadObject>>> live_;
};

} // namespace sluice::frontend
