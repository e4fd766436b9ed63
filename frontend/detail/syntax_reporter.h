// frontend/detail/syntax_reporter.h: turns positions into SourceLocs and
// collects one file's syntax errors: deduplicated, capped, sorted by place.
#pragma once

#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"

namespace antlr4 {
class Token;
}

namespace sluice::frontend::detail {

class SyntaxReporter {
public:
  /// After this many errors in one file, one "too many errors" diagnostic is
  /// added and the rest are dropped; the parser then stops.
  static constexpr int kMaxErrors = 50;

  SyntaxReporter(std::shared_ptr<const std::string> path,
                 std::shared_ptr<const std::string> source)
      : path_(std::move(path)), source_(std::move(source)) {}

  /// A location from ANTLR's 1-based line and 0-based column.
  SourceLoc loc(size_t line, size_t col0) const;
  SourceLoc loc(const antlr4::Token *token) const;

  /// An error from the lexer; parser errors on its line are then dropped,
  /// as they would only repeat it.
  void lexerError(const SourceLoc &loc, std::string message);
  /// An error from the parser's recovery; only the first on a line is kept.
  void parserError(const SourceLoc &loc, std::string message);
  /// Any other error (literal values, targets, limits).
  void error(const SourceLoc &loc, std::string message);

  /// Whether the parser reported an error on a line in [first, last].
  bool parserErrorWithin(int first, int last) const {
    auto it = parserLines_.lower_bound(first);
    return it != parserLines_.end() && *it <= last;
  }
  bool stopped() const { return stopped_; }
  int errorCount() const { return static_cast<int>(errors_.size()); }

  /// Moves the collected errors into `diags`, ordered by line and column;
  /// of several errors at one place only the first is kept.
  void flush(DiagnosticEngine &diags);

  /// The token's text taken from the source bytes (tokens index bytes).
  std::string tokenText(const antlr4::Token *token) const;
  /// A short printable rendering of a token for messages: "token 'x'",
  /// "newline", "end of file".
  std::string describe(const antlr4::Token *token) const;

private:
  std::shared_ptr<const std::string> path_;
  std::shared_ptr<const std::string> source_;
  std::vector<Diagnostic> errors_;
  std::set<int> lexerLines_, parserLines_;
  bool stopped_ = false;
};

/// Escapes control and non-ASCII bytes of `text` as \xNN, and cuts it to
/// about `max` bytes.
std::string printable(const std::string &text, size_t max = 24);

} // namespace sluice::frontend::detail
