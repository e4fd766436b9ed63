// frontend/eval/supervised_session.h: the session a supervised block runs
// in (supervisor.cc builds it): TF's Supervisor state, with the save and
// summary schedule and the progress line kept around every run().
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/io/event_file.h"
#include "frontend/eval/checkpoint_objects.h"
#include "frontend/eval/pipeline_objects.h"

namespace sluice::frontend {

/// A supervised session's arguments and default ops.
struct SupervisorConfig {
  std::string logdir;
  bool isChief = true;
  std::optional<int64_t> saveSteps;
  double saveSecs = 600; // TF's save_model_secs; 0: no timed saves
  ir::NodeId initOp = ir::kNoNode;
  Value initFn;
  ir::NodeId localInitOp = ir::kNoNode;
  std::optional<ir::Output> readyOp, readyForLocalInitOp, summaryOp;
  int64_t summarySteps = 100;
  double maxWaitSecs = 7200, recoveryWaitSecs = 30, stopGraceSecs = 120;
  std::shared_ptr<SaverObject> saver;
  std::optional<VariableInfo> globalStep;
  std::string basename = "model.ckpt";
};

/// The session a supervised block runs in: a session with the
/// supervisor's schedule around every run().
class SupervisedSession : public SessionObject {
public:
  SupervisedSession(GraphContext *g, std::unique_ptr<rt::Session> s, SupervisorConfig c)
      : SessionObject(g, std::move(s)), cfg(std::move(c)),
        coord(std::make_shared<CoordinatorObject>()) {
    pipelinesChecked = true; // its graph is final: checked when it opened
  }
  std::string typeName() const override { return "session"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::optional<ir::Output>
  beforeRun(EvaluatorImpl &ev, const std::vector<ir::Output> &fetches,
            const std::vector<ir::NodeId> &targets,
            const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds) override;
  /// Whether a run of these fetches and targets updates the global step
  /// (a training run); every run counts when there is no global step.
  bool isTrainingRun(const std::vector<ir::Output> &fetches, const std::vector<ir::NodeId> &targets);
  void afterRun(EvaluatorImpl &ev, const ir::Tensor *extra, const SourceLoc &loc) override;

  /// The global step now (the number of runs without one).
  int64_t readStep(EvaluatorImpl &ev, const SourceLoc &loc);
  std::string savePath() const { return backend::io::joinPath(cfg.logdir, cfg.basename); }
  /// Saves at the current step unless that step is saved already.
  void saveIfNew(EvaluatorImpl &ev, const SourceLoc &loc);
  void showProgress(EvaluatorImpl &ev, bool final);

  SupervisorConfig cfg;
  std::shared_ptr<CoordinatorObject> coord;
  std::mutex hookMu; // one afterRun at a time
  std::set<ir::NodeId> summaryPlaceholders;
  /// The nodes that change the global step (assign_add on it ...).
  std::set<ir::NodeId> stepUpdaters;
  std::map<std::vector<ir::NodeId>, bool> trainingRuns; // by fetch and target nodes
  int64_t runs = 0;
  int64_t step = 0;
  std::optional<int64_t> lastSaveStep;
  double lastSaveTime = 0;
  std::optional<int64_t> lastSummaryStep;
  std::unique_ptr<backend::io::SummaryFileWriter> writer;
  // Progress line (a terminal on stderr only).
  bool progress = false;
  bool progressShown = false;
  double progressTime = 0;
  int64_t progressStep = 0;
  double stepsPerSec = 0;
  std::optional<std::pair<std::string, float>> latestScalar;
};

/// Seconds on the steady clock.
double monotonicSeconds();
/// "warning: TEXT" on the evaluator's error stream.
void supervisorWarning(EvaluatorImpl &ev, const std::string &text);
/// Throws a failed run's error, located at `loc` when it has no location.
void checkRun(Expected<std::vector<ir::Tensor>> &r, const SourceLoc &loc);

} // namespace sluice::frontend
