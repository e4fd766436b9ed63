// support/source_loc.h: a position in a source file, carried by every IR node.
#pragma once

#include <memory>
#include <string>

namespace sluice {

/// A 1-based line/column in a named file. Files are shared so that a
/// location is cheap to copy into every node.
struct SourceLoc {
  std::shared_ptr<const std::string> file;
  int line = 0;
  int col = 0;

  bool valid() const { return file != nullptr && line > 0; }
  /// "file:line:col", or "" when the location is unknown.
  std::string str() const;
};

} // namespace sluice
