// ir/text/lexer.h: tokens of the textual IR (.sir) and a cursor over them;
// internal to ir/text (the printer, attribute parser and graph parser).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace sluice::ir::detail {

enum class Tok {
  kEof,
  kNewline,
  kIdent,    // op, attr and dtype names, keywords
  kNumber,   // ints and floats, with an optional leading '-'
  kString,   // "..." with escapes decoded
  kValueRef, // %name or %"name", name decoded
  kPunct,    // one of = ( ) , : ^ { } [ ] < > ? @
};

struct Token {
  Tok kind = Tok::kEof;
  std::string text;
  int line = 1;
  int col = 1;
};

/// Splits `src` into tokens. Comments (# to end of line) are dropped. A
/// lexical error is an invalid_argument Status located in `file`.
Expected<std::vector<Token>>
lexSir(std::string_view src, const std::shared_ptr<const std::string> &file);

/// A read position in a token vector that always ends with kEof, so peek()
/// never runs off the end.
class Cursor {
public:
  Cursor(const std::vector<Token> &toks,
         std::shared_ptr<const std::string> file)
      : toks_(toks), file_(std::move(file)) {}

  const Token &peek() const { return toks_[pos_]; }
  const Token &next() {
    const Token &t = toks_[pos_];
    if (t.kind != Tok::kEof)
      ++pos_;
    return t;
  }
  bool isPunct(char c) const {
    return peek().kind == Tok::kPunct && peek().text[0] == c;
  }
  bool isIdent(std::string_view s) const {
    return peek().kind == Tok::kIdent && peek().text == s;
  }
  /// Consumes punctuation `c` if it is next.
  bool accept(char c) {
    if (!isPunct(c))
      return false;
    next();
    return true;
  }
  Status expect(char c);
  Expected<Token> expectKind(Tok kind, std::string_view what);

  SourceLoc locOf(const Token &t) const {
    return SourceLoc{file_, t.line, t.col};
  }
  /// invalid_argument at token `t`.
  Status errorAt(const Token &t, std::string msg) const;
  /// "expected X, found Y" at the next token.
  Status expected(std::string_view what) const;

private:
  const std::vector<Token> &toks_;
  std::shared_ptr<const std::string> file_;
  size_t pos_ = 0;
};

/// How a token reads in a message: 'foo', "str", end of line, end of file.
std::string describeToken(const Token &t);

/// Characters allowed in an unquoted node name after '%'.
bool isNameChar(char c);

} // namespace sluice::ir::detail
