// frontend/eval/checkpoint_objects.h: TF1's Saver (its save/restore ops in
// the graph, the host-side bookkeeping of kept checkpoints) and the
// CheckpointState value get_checkpoint_state returns.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/io/checkpoint_state.h"
#include "frontend/eval/objects.h"

namespace sluice::frontend {

/// A saver over a fixed list of variables. Its ops are built once, when it
/// is made (so a supervised session can finalize the graph): a filename
/// placeholder, one save_checkpoint op and one restore_checkpoint op whose
/// outputs feed an assign per variable, grouped by `restore_all`.
class SaverObject : public Object {
public:
  std::string typeName() const override { return "saver"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override;

  /// Builds the saver's ops in the current graph; `vars` are (checkpoint
  /// key, variable) pairs.
  static std::shared_ptr<SaverObject>
  build(EvaluatorImpl &ev, std::vector<std::pair<std::string, VariableInfo>> vars,
        int64_t maxToKeep, bool sharded, double keepEveryNHours, const std::string &name,
        const SourceLoc &loc);

  /// TF's Saver.save: runs the save op for P = path[-step], writes P.meta
  /// and, with writeState, the state file, deleting checkpoints beyond
  /// max_to_keep. Returns P. Throws LangError.
  std::string save(EvaluatorImpl &ev, SessionObject &sess, const std::string &path,
                   std::optional<int64_t> step, const std::string &latestFilename,
                   bool writeMeta, bool writeState, const SourceLoc &loc);
  /// TF's Saver.restore: value_error unless P.index exists, then the
  /// restore op (which checks everything before any variable changes).
  void restore(EvaluatorImpl &ev, SessionObject &sess, const std::string &path,
               const SourceLoc &loc);
  /// TF's recover_last_checkpoints: resumes tracking (for max_to_keep)
  /// the given checkpoints that still exist.
  void recoverLastCheckpoints(const std::vector<std::string> &paths);
  std::vector<std::string> lastCheckpoints() const;

  GraphContext *graph = nullptr;
  ir::Output filename;
  ir::NodeId saveOp = ir::kNoNode;
  ir::NodeId restoreOp = ir::kNoNode;
  std::vector<std::string> keys;
  int64_t maxToKeep = 5;
  double keepEveryNHours = 10000;

private:
  std::vector<std::pair<std::string, double>> last_; // (path, time), oldest first
  std::vector<std::pair<std::string, double>> toDelete_;
  double nextKeepTime_ = 0;
};

/// get_checkpoint_state's value: model_checkpoint_path and
/// all_model_checkpoint_paths.
class CheckpointStateObject : public Object {
public:
  explicit CheckpointStateObject(backend::io::CheckpointState s) : state(std::move(s)) {}
  std::string typeName() const override { return "checkpoint_state"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override;
  backend::io::CheckpointState state;
};

/// The variable named "global_step" in `g` (TF's get_global_step), after
/// TF's checks (integer dtype, scalar); nullopt when there is none.
std::optional<VariableInfo> findGlobalStep(GraphContext &g, const SourceLoc &loc);

/// Builds report_uninitialized_variables(vars): the names of those not
/// initialized, a 1-D string tensor.
Value reportUninitialized(EvaluatorImpl &ev, const std::vector<VariableInfo> &vars,
                          const std::string &name, const SourceLoc &loc);

/// Runs a step natively (without the interpreter lock), e.g. for the
/// saver and the supervisor; errors are returned.
Expected<std::vector<ir::Tensor>>
runNative(EvaluatorImpl &ev, rt::Session &session,
          const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
          const std::vector<ir::Output> &fetches, const std::vector<ir::NodeId> &targets);

} // namespace sluice::frontend
