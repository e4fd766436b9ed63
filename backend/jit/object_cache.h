// backend/jit/object_cache.h: compiled clusters on disk, one file per key,
// so a second process loads machine code instead of compiling. A file
// whose header, key, length or checksum does not match is reported and
// treated as absent (then rebuilt); files are written to a temporary and
// renamed, so a reader never sees half a file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sluice::backend::jit {

class ObjectCache {
public:
  /// A cache in `dir` (created when first written); empty: none.
  explicit ObjectCache(std::string dir) : dir_(std::move(dir)) {}

  /// $SLUICE_JIT_CACHE_DIR ("off": no disk cache), else
  /// $XDG_CACHE_HOME/sluice/jit, else $HOME/.cache/sluice/jit.
  static std::string defaultDirectory();

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

private:
  std::string dir_;
};

/// 64-bit FNV-1a: the file name and the payload checksum.
uint64_t fnv1a64(const std::string &bytes);

} // namespace sluice::backend::jit
