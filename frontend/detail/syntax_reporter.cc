// frontend/detail/syntax_reporter.cc: SyntaxReporter, located and capped syntax errors.
#include "frontend/detail/syntax_reporter.h"

#include "antlr4-runtime.h"
#include "SluiceLexer.h"

#include <algorithm>

namespace sluice::frontend::detail {

SourceLoc SyntaxReporter::loc(size_t line, size_t col0) const {
  SourceLoc l;
  l.file = path_;
  l.line = line == 0 ? 1 : static_cast<int>(line);
  l.col = static_cast<int>(col0) + 1;
  return l;
}

SourceLoc SyntaxReporter::loc(const antlr4::Token *token) const {
  if (!token)
    return loc(1, 0);
  return loc(token->getLine(), token->getCharPositionInLine());
}

void SyntaxReporter::error(const SourceLoc &l, std::string message) {
  if (stopped_)
    return;
  if (errorCount() >= kMaxErrors) {
    errors_.push_back({Severity::kError, l, "too many errors; stopping"});
    stopped_ = true;
    return;
  }
  errors_.push_back({Severity::kError, l, std::move(message)});
}

void SyntaxReporter::lexerError(const SourceLoc &l, std::string message) {
  lexerLines_.insert(l.line);
  error(l, std::move(message));
}

void SyntaxReporter::parserError(const SourceLoc &l, std::string message) {
  // One parser error per line: later ones mostly echo the first.
  if (lexerLines_.count(l.line) || parserLines_.count(l.line))
    return;
  parserLines_.insert(l.line);
  error(l, std::move(message));
}

void SyntaxReporter::flush(DiagnosticEngine &diags) {
  // The "too many errors" note stays last, wherever it points.
  size_t sortable = stopped_ ? errors_.size() - 1 : errors_.size();
  std::stable_sort(errors_.begin(), errors_.begin() + sortable,
                   [](const Diagnostic &a, const Diagnostic &b) {
                     return a.loc.line != b.loc.line ? a.loc.line < b.loc.line
                                                     : a.loc.col < b.loc.col;
                   });
  for (size_t i = 0; i < errors_.size(); ++i) {
    const Diagnostic &d = errors_[i];
    if (i > 0 && i < sortable && d.loc.line == errors_[i - 1].loc.line &&
        d.loc.col == errors_[i - 1].loc.col)
      continue;
    diags.error(d.loc, d.message);
  }
  errors_.clear();
}

std::string SyntaxReporter::tokenText(const antlr4::Token *token) const {
  if (!token)
    return "";
  size_t start = token->getStartIndex(), stop = token->getStopIndex();
  if (start == INVALID_INDEX || stop == INVALID_INDEX || stop < start ||
      stop >= source_->size())
    return token->getText();
  return source_->substr(start, stop - start + 1);
}

std::string SyntaxReporter::describe(const antlr4::Token *token) const {
  if (!token || token->getType() == antlr4::Token::EOF)
    return "end of file";
  if (token->getType() == sluicegen::SluiceLexer::NEWLINE)
    return "newline";
  return "token '" + printable(tokenText(token)) + "'";
}

std::string printable(const std::string &text, size_t max) {
  static const char *kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

} // namespace sluice::frontend::detail
