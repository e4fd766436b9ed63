// frontend/source_file.h: reading a graph file's text: a regular file (or
// standard input) of bounded size, so that `sluice run DIR` or
// `sluice run /dev/zero` is a clear error instead of silence or memory
// exhaustion.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "support/status.h"

namespace sluice::frontend {

/// The largest graph file read (64 MiB: a generated graph of a million
/// nodes is about 40 MiB).
constexpr int64_t kMaxSourceBytes = int64_t{64} << 20;

/// The text of `path`: not_found when it cannot be opened,
/// invalid_argument for a directory, resource_exhausted past
/// kMaxSourceBytes; each message names the path.
Expected<std::string> readSourceFile(const std::string &path);
/// The same for a stream (`sluice run -` reads standard input), named
/// `name` in messages.
Expected<std::string> readSourceStream(std::istream &in, const std::string &name);

} // namespace sluice::frontend
