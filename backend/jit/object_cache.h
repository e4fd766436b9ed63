// backend/jit/object_cache.h: compiled clusters on disk, one file per key,
// so a second process loads machine code instead of compiling. A file
// whose header, key, length or checksum does not match is reported and
// treated as absent (then rebuilt); files are written to a temporary and
// renamed, so a reader never sees half a file. The directory is kept
// under a size limit by dropping the least recently used files (a hit
// refreshes a file's time), so a long-lived cache does not grow forever.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sluice::backend::jit {

class ObjectCache {
public:
  /// A cache in `dir` (created when first written); empty: none. It is
  /// trimmed to `maxBytes` after each store.
  explicit ObjectCache(std::string dir, uint64_t maxBytes = defaultMaxBytes())
      : dir_(std::move(dir)), maxBytes_(maxBytes) {}

  /// $SLUICE_JIT_CACHE_DIR ("off": no disk cache), else
  /// $XDG_CACHE_HOME/sluice/jit, else $HOME/.cache/sluice/jit.
  static std::string defaultDirectory();

  /// $SLUICE_JIT_CACHE_MAX_MB MiB when it is a positive integer, else
  /// 256 MiB.
  static uint64_t defaultMaxBytes();

  bool enabled() const { return !dir_.empty(); }
  const std::string &directory() const { return dir_; }
  /// The file holding `key`'s object.
  std::string pathFor(const std::string &key) const;

  enum class Result { kHit, kMissing, kCorrupt };
  /// Reads `key`'s object into `object`; on kCorrupt, `why` says what
  /// did not match.
  Result load(const std::string &key, std::string &object, std::string &why) const;
  /// Writes `key`'s object; false (and `why`) when it cannot.
  bool store(const std::string &key, const std::string &object, std::string &why) const;

  struct Trimmed {
    int files = 0;      // cache files removed
    uint64_t bytes = 0; // their size
  };
  /// Removes the least recently used cache files until the directory's
  /// files total `maxBytes` or less, never `keep` (the file just stored);
  /// also temporaries left by a writer that died an hour or more ago.
  Trimmed trim(const std::string &keep) const;
  uint64_t maxBytes() const { return maxBytes_; }

private:
  std::string dir_;
  uint64_t maxBytes_;
};

/// 64-bit FNV-1a: the file name and the payload checksum.
uint64_t fnv1a64(const std::string &bytes);

} // namespace sluice::backend::jit
