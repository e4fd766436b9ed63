// frontend/detail/token_source.h: the lexer as the parser sees it: bytes in,
// tokens out, with newlines dropped inside ( ) and [ ], lexical errors
// reported, and bracket nesting limited before the parser runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "antlr4-runtime.h"
#include "SluiceLexer.h"

#include "frontend/detail/syntax_reporter.h"

namespace sluice::frontend::detail {

/// Brackets ( [ { may nest this deep; deeper input is rejected up front, so
/// that the recursive-descent parser and the AST builder stay shallow.
inline constexpr size_t kMaxNesting = 256;

/// Feeds the source bytes to ANTLR one byte per character, so that no byte
/// sequence (NUL, invalid UTF-8) can make the runtime's UTF-8 decoder throw,
/// and token indexes and columns are byte offsets into the source.
class ByteInputStream : public antlr4::ANTLRInputStream {
public:
  explicit ByteInputStream(const std::string &bytes);
};

/// An opened bracket that is not closed yet.
struct OpenBracket {
  char ch;
  size_t line, col0;
};

class TokenSource : public sluicegen::SluiceLexer {
public:
  TokenSource(antlr4::CharStream *input, SyntaxReporter &reporter);

  std::unique_ptr<antlr4::Token> nextToken() override;

  /// True when brackets nested deeper than kMaxNesting somewhere.
  bool tooDeep() const { return tooDeep_; }
  /// Brackets still open at end of input, outermost first.
  const std::vector<OpenBracket> &openBrackets() const { return stack_; }

private:
  void reportErrorChar(const antlr4::Token &token);

  SyntaxReporter &reporter_;
  std::vector<OpenBracket> stack_;
  bool tooDeep_ = false;
  size_t lastErrorStop_ = static_cast<size_t>(-2);
  size_t lastLine_ = 0;
  std::unique_ptr<antlr4::Token> pending_; // the token after a made-up NEWLINE
};

/// Reports ANTLR lexer errors (there should be none: ERROR_CHAR matches any
/// leftover character) through the SyntaxReporter.
class LexerErrorListener : public antlr4::BaseErrorListener {
public:
  explicit LexerErrorListener(SyntaxReporter &reporter) : reporter_(reporter) {}
  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending,
                   size_t line, size_t col, const std::string &msg,
                   std::exception_ptr e) override;

private:
  SyntaxReporter &reporter_;
};

} // namespace sluice::frontend::detail
