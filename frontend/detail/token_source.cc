// frontend/detail/token_source.cc: TokenSource, the newline-aware, depth-checking lexer.
#include "frontend/detail/token_source.h"

namespace sluice::frontend::detail {

using sluicegen::SluiceLexer;

ByteInputStream::ByteInputStream(const std::string &bytes) {
  _data.resize(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i)
    _data[i] = static_cast<char32_t>(static_cast<unsigned char>(bytes[i]));
  p = 0;
}

TokenSource::TokenSource(antlr4::CharStream *input, SyntaxReporter &reporter)
    : SluiceLexer(input), reporter_(reporter) {}

namespace {
/// Keywords that only start statements (not `if`/`for`, which also appear
/// in comprehensions).
bool startsStatementOnly(size_t type) {
  switch (type) {
  case SluiceLexer::KW_FN:
  case SluiceLexer::KW_RETURN:
  case SluiceLexer::KW_WHILE:
  case SluiceLexer::KW_BREAK:
  case SluiceLexer::KW_CONTINUE:
  case SluiceLexer::KW_WITH:
  case SluiceLexer::KW_SESSION:
  case SluiceLexer::KW_TRY:
  case SluiceLexer::KW_IMPORT:
  case SluiceLexer::KW_TEST:
  case SluiceLexer::KW_FIXTURE:
  case SluiceLexer::KW_USE:
  case SluiceLexer::KW_TEARDOWN:
    return true;
  default:
    return false;
  }
}
} // namespace

std::unique_ptr<antlr4::Token> TokenSource::nextToken() {
  if (pending_)
    return std::move(pending_);
  for (;;) {
    std::unique_ptr<antlr4::Token> token = SluiceLexer::nextToken();
    bool firstOnLine = token->getLine() != lastLine_;
    lastLine_ = token->getLine();
    if (firstOnLine && startsStatementOnly(token->getType()) && !stack_.empty() &&
        stack_.back().ch != '{') {
      // A statement keyword opening a line inside ( or [: a closing bracket
      // is missing. Close the brackets and end the statement here, so the
      // rest of the file still parses (the parser reports the bracket).
      while (!stack_.empty() && stack_.back().ch != '{')
        stack_.pop_back();
      size_t start = token->getStartIndex();
      auto newline = getTokenFactory()->create(
          {this, getInputStream()}, NEWLINE, "\n", antlr4::Token::DEFAULT_CHANNEL,
          start, start - 1, token->getLine(), token->getCharPositionInLine());
      pending_ = std::move(token);
      return newline;
    }
    switch (token->getType()) {
    case LPAREN:
    case LBRACK:
    case LBRACE: {
      std::string text = reporter_.tokenText(token.get());
      stack_.push_back({text.empty() ? '(' : text[0], token->getLine(),
                        token->getCharPositionInLine()});
      if (stack_.size() > kMaxNesting && !tooDeep_) {
        tooDeep_ = true;
        reporter_.lexerError(reporter_.loc(token.get()),
                        "nesting is too deep (limit " +
                            std::to_string(kMaxNesting) + ")");
      }
      return token;
    }
    case RPAREN:
    case RBRACK:
      // A stray ) or ] does not close an open block.
      if (!stack_.empty() && stack_.back().ch != '{')
        stack_.pop_back();
      return token;
    case RBRACE:
      // } closes its block and any ( [ left open inside it, so that one
      // missing ) does not swallow the newlines of the rest of the file.
      for (size_t i = stack_.size(); i-- > 0;) {
        if (stack_[i].ch == '{') {
          stack_.resize(i);
          break;
        }
      }
      return token;
    case NEWLINE:
      if (!stack_.empty() && stack_.back().ch != '{')
        continue; // newlines inside ( ) and [ ] do not end statements
      return token;
    case UNTERMINATED_STRING:
      reporter_.lexerError(reporter_.loc(token.get()), "unterminated string literal");
      // The parser sees a string, so the error does not cascade.
      if (auto *common = dynamic_cast<antlr4::CommonToken *>(token.get()))
        common->setType(STRING);
      return token;
    case ERROR_CHAR:
      reportErrorChar(*token);
      // The parser sees a name, so the error does not cascade.
      if (auto *common = dynamic_cast<antlr4::CommonToken *>(token.get()))
        common->setType(NAME);
      return token;
    default:
      return token;
    }
  }
}

void TokenSource::reportErrorChar(const antlr4::Token &token) {
  size_t start = token.getStartIndex();
  bool continues = start == lastErrorStop_ + 1;
  lastErrorStop_ = token.getStopIndex();
  if (continues)
    return; // one diagnostic per run of bad characters
  std::string text = reporter_.tokenText(&token);
  unsigned char c = text.empty() ? 0 : static_cast<unsigned char>(text[0]);
  std::string message;
  if (c >= 0x80)
    message = "unexpected non-ASCII character";
  else if (c < 0x20 || c == 0x7f)
    message = "unexpected control character '" + printable(text) + "'";
  else
    message = "unexpected character '" + text + "'";
  reporter_.lexerError(reporter_.loc(&token), message);
}

void LexerErrorListener::syntaxError(antlr4::Recognizer *, antlr4::Token *,
                                     size_t line, size_t col,
                                     const std::string &, std::exception_ptr) {
  reporter_.lexerError(reporter_.loc(line, col), "unexpected character");
}

} // namespace sluice::frontend::detail
