// backend/io/checkpoint_state.h: the `checkpoint` state file beside a
// saver's checkpoints (TF's CheckpointState in protobuf text format) and
// TF's rules for reading and updating it (checkpoint_management.py).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace sluice::backend::io {

struct CheckpointState {
  /// The newest checkpoint.
  std::string modelCheckpointPath;
  /// The kept checkpoints, oldest first (the newest last).
  std::vector<std::string> allModelCheckpointPaths;
};

/// os.path.join(dir, name) as Python does it.
std::string joinPath(const std::string &dir, const std::string &name);
/// The state file's path: dir/latestFilename ("checkpoint" when empty).
std::string checkpointStatePath(const std::string &dir, const std::string &latestFilename = "");

/// Parses the text format; invalid_argument naming what is wrong for text
/// that is not a CheckpointState (TF's text_format.ParseError).
Expected<CheckpointState> parseCheckpointState(std::string_view text);
/// The text TF writes: one `field: "value"` line each.
std::string formatCheckpointState(const CheckpointState &s);

/// TF's get_checkpoint_state: nullopt when there is no state file or it
/// does not parse (then `warning` says why, as TF logs it); relative paths
/// are joined to `dir`. A state without model_checkpoint_path is
/// value_error "Invalid checkpoint state loaded from DIR".
Expected<std::optional<CheckpointState>>
getCheckpointState(const std::string &dir, const std::string &latestFilename = "",
                   std::string *warning = nullptr);

/// TF's latest_checkpoint: the state's newest path when its .index exists.
std::optional<std::string> latestCheckpoint(const std::string &dir,
                                            const std::string &latestFilename = "",
                                            std::string *warning = nullptr);

/// TF's update_checkpoint_state_internal: writes the state of `saveDir`
/// atomically, with `model` appended to `all` when it is not last, paths
/// made relative to saveDir when saveDir is relative. runtime_error "Save
/// path 'P' conflicts with path used for checkpoint state" when `model`
/// is the state file itself.
Status updateCheckpointState(const std::string &saveDir, const std::string &model,
                             std::vector<std::string> all,
                             const std::string &latestFilename = "");

/// Whether `model` would be the state file of `saveDir` (the conflict
/// updateCheckpointState refuses), checked before anything is written.
bool conflictsWithStateFile(const std::string &saveDir, const std::string &model,
                            const std::string &latestFilename = "");

} // namespace sluice::backend::io
