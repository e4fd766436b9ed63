// backend/io/checkpoint.h: Sluice's checkpoint files (TF's V2 layout:
// P.index and P.data-0000k-of-0000N; the bytes inside are Sluice's own,
// versioned, with a CRC32C per tensor; docs/internals/checkpoint-format.md) and the
// durable-write helpers they are written with.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/tensor.h"
#include "support/status.h"

namespace sluice::backend::io {

/// The format version this build writes and the newest it reads.
inline constexpr uint32_t kCheckpointVersion = 1;

/// "P.index".
std::string checkpointIndexPath(const std::string &prefix);
/// "P.data-00000-of-00001" (TF's shard naming).
std::string checkpointDataPath(const std::string &prefix, int shard, int numShards);
/// "P.meta".
std::string checkpointMetaPath(const std::string &prefix);
/// Whether P.index exists (TF's checkpoint_exists for V2).
bool checkpointExists(const std::string &prefix);

/// One tensor to save: its key, value and shard.
struct SaveEntry {
  std::string name;
  ir::Tensor value;
  int shard = 0;
};

struct CheckpointWriteOptions {
  int numShards = 1;
  /// Test hook: called after each durable step of a write ("data-synced",
  /// "index-synced", "old-index-removed", "data-renamed", "index-renamed"),
  /// so a test can stop the process at any of them.
  std::function<void(std::string_view step)> onStep;
};

/// Writes checkpoint `prefix` so that a crash at any moment leaves either
/// the complete new checkpoint, the complete old one, or (only when P is
/// rewritten) no P at all, never an index paired with other data: every
/// file goes to a temporary that is fsynced, an existing P.index is
/// removed, the data files are renamed into place and the index last; the
/// directory is fsynced after each rename.
Status writeCheckpoint(const std::string &prefix, const std::vector<SaveEntry> &entries,
                       const CheckpointWriteOptions &opts = {});

/// What the index says about one tensor.
struct CheckpointEntry {
  std::string name;
  ir::DType dtype = ir::DType::kInvalid;
  ir::Dims dims;
  int shard = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t crc = 0; // CRC32C of the payload, unmasked
};

/// Reads a checkpoint. open() validates the whole index (magic, size,
/// checksum, version, entries); read() validates a data file's header on
/// first use and each tensor's checksum. Errors name the file, and the
/// tensor where there is one: data_loss for truncated or corrupt files,
/// not_found for missing ones.
class CheckpointReader {
public:
  static Expected<std::unique_ptr<CheckpointReader>> open(const std::string &prefix);
  ~CheckpointReader();

  const std::string &prefix() const { return prefix_; }
  int numShards() const { return numShards_; }
  /// Entries sorted by name.
  const std::vector<CheckpointEntry> &entries() const { return entries_; }
  const CheckpointEntry *find(std::string_view name) const;
  /// The tensor's value, after checking its bytes against the index.
  Expected<ir::Tensor> read(const CheckpointEntry &e);

private:
  CheckpointReader() = default;
  Status openShard(int shard);

  std::string prefix_;
  int numShards_ = 1;
  uint64_t id_ = 0;
  std::vector<CheckpointEntry> entries_;
  std::map<int, int> shardFds_;
};

/// Removes P.index first (so a half-deleted checkpoint never looks
/// loadable), then P's data files and P.meta. Missing files are fine.
Status deleteCheckpoint(const std::string &prefix);

/// Replaces `path` with `bytes` atomically: temporary file beside it,
/// fsync, rename, fsync of the directory.
Status writeFileAtomically(const std::string &path, std::string_view bytes);

/// Removes the temporaries that interrupted writes left in `dir` for files
/// whose names start with `namePrefix` (as `model.ckpt`); returns how many.
int removeStaleTemporaries(const std::string &dir, const std::string &namePrefix);

} // namespace sluice::backend::io
