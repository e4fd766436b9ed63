// frontend/diagnostics.h: GCC-style diagnostics with the source line and a caret.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "support/source_loc.h"
#include "support/status.h"

namespace sluice::frontend {

enum class Severity { kError, kWarning, kNote };

struct Diagnostic {
  Severity severity = Severity::kError;
  SourceLoc loc;
  std::string message;
};

/// Collects diagnostics for one or more source files and prints them as
/// `file:line:col: error: message`, then the source line and a caret.
class DiagnosticEngine {
public:
  /// Registers a file's text so printed diagnostics can quote its lines.
  void addSource(std::shared_ptr<const std::string> path,
                 std::shared_ptr<const std::string> text);

  void error(const SourceLoc &loc, std::string message);
  void warning(const SourceLoc &loc, std::string message);
  bool hasErrors() const { return errorCount_ > 0; }
  int errorCount() const { return errorCount_; }
  const std::vector<Diagnostic> &diagnostics() const { return diags_; }
  void clear();

  /// Prints every diagnostic collected so far.
  void print(std::ostream &os) const;
  /// Formats one diagnostic with its source line and caret.
  std::string format(const Diagnostic &d) const;

private:
  std::vector<std::pair<std::shared_ptr<const std::string>,
                        std::shared_ptr<const std::string>>>
      sources_;
  std::vector<Diagnostic> diags_;
  int errorCount_ = 0;
};

} // namespace sluice::frontend
