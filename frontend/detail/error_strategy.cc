// frontend/detail/error_strategy.cc: ErrorStrategy, readable syntax error messages.
#include "frontend/detail/error_strategy.h"

#include "SluiceLexer.h"
#include "SluiceParser.h"

#include <algorithm>

namespace sluice::frontend::detail {

using sluicegen::SluiceLexer;

namespace {
/// How a token type reads in "expected ..." lists.
std::string tokenTypeName(antlr4::Parser *recognizer, size_t type) {
  switch (type) {
  case antlr4::Token::EOF:
    return "end of file";
  case SluiceLexer::NAME:
    return "identifier";
  case SluiceLexer::INT:
    return "integer";
  case SluiceLexer::FLOAT:
    return "number";
  case SluiceLexer::STRING:
    return "string";
  case SluiceLexer::NEWLINE:
    return "newline";
  default:
    break;
  }
  std::string literal(recognizer->getVocabulary().getLiteralName(type));
  if (!literal.empty())
    return literal; // already quoted: '{'
  return std::string(recognizer->getVocabulary().getDisplayName(type));
}

char closerOf(char opener) {
  return opener == '(' ? ')' : opener == '[' ? ']' : '}';
}
} // namespace

void ErrorStrategy::sync(antlr4::Parser *recognizer) {
  if (reporter_.stopped())
    throw antlr4::ParseCancellationException("too many errors");
  if (dynamic_cast<sluicegen::SluiceParser::StmtSeqContext *>(recognizer->getContext()) &&
      skipJunk(recognizer))
    return;
  DefaultErrorStrategy::sync(recognizer);
}

void ErrorStrategy::report(const antlr4::Token *at, std::string message) {
  reporter_.parserError(reporter_.loc(at), std::move(message));
  if (reporter_.stopped())
    throw antlr4::ParseCancellationException("too many errors");
}

bool ErrorStrategy::reportUnclosed(const antlr4::Token *at) {
  if (!at || at->getType() != antlr4::Token::EOF || tokens_.openBrackets().empty())
    return false;
  const OpenBracket &open = tokens_.openBrackets().back();
  report(at, std::string("expected '") + closerOf(open.ch) +
                 "' at end of file to close '" + open.ch + "' from line " +
                 std::to_string(open.line));
  return true;
}

std::string ErrorStrategy::describeExpected(
    antlr4::Parser *recognizer, const antlr4::misc::IntervalSet &expected) const {
  constexpr size_t kMaxListed = 3;
  if (expected.isEmpty() || expected.size() > kMaxListed)
    return "";
  std::vector<std::string> names;
  bool eof = false;
  for (ssize_t type : expected.toList()) {
    if (static_cast<size_t>(type) == antlr4::Token::EOF)
      eof = true; // listed last
    else
      names.push_back(tokenTypeName(recognizer, static_cast<size_t>(type)));
  }
  auto newline = std::find(names.begin(), names.end(), "newline");
  if (newline != names.end())
    std::rotate(names.begin(), newline, newline + 1); // listed first
  if (eof)
    names.push_back("end of file");
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0)
      out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

void ErrorStrategy::unexpected(antlr4::Parser *recognizer, antlr4::Token *token,
                               const antlr4::misc::IntervalSet &expected) {
  if (reportUnclosed(token))
    return;
  std::string message;
  std::string want = describeExpected(recognizer, expected);
  if (token && token->getType() == SluiceLexer::NEWLINE && !want.empty())
    message = "expected " + want + " before newline";
  else if (token && token->getType() == antlr4::Token::EOF && !want.empty())
    message = "expected " + want + " at end of file";
  else {
    message = "unexpected " + reporter_.describe(token);
    if (!want.empty())
      message += "; expected " + want;
  }
  report(token, std::move(message));
}

bool ErrorStrategy::skipJunk(antlr4::Parser *recognizer) {
  using sluicegen::SluiceParser;
  antlr4::TokenStream *input = recognizer->getTokenStream();
  antlr4::misc::IntervalSet expected = recognizer->getExpectedTokens();
  if (firstOfStmt_.isEmpty()) {
    const antlr4::atn::ATN &atn = recognizer->getATN();
    firstOfStmt_ = atn.nextTokens(atn.ruleToStartState[SluiceParser::RuleStmt]);
  }
  auto isSep = [](size_t t) { return t == SluiceLexer::NEWLINE || t == SluiceLexer::SEMI; };
  // The first token after any separators: junk if nothing here accepts it.
  ssize_t k = 1;
  while (isSep(input->LA(k)))
    ++k;
  size_t t = input->LA(k);
  bool junk = t != antlr4::Token::EOF && !expected.contains(t) &&
              (k == 1 || !firstOfStmt_.contains(t));
  if (!junk)
    return false;
  for (ssize_t i = 1; i < k; ++i)
    recognizer->consume(); // the separators before the junk
  if (!inErrorRecoveryMode(recognizer))
    unexpected(recognizer, input->LT(1), k == 1 ? expected : antlr4::misc::IntervalSet());
  for (size_t la = input->LA(1); la != antlr4::Token::EOF && !isSep(la) && !expected.contains(la);
       la = input->LA(1))
    recognizer->consume();
  return true;
}

antlr4::Token *ErrorStrategy::singleTokenDeletion(antlr4::Parser *recognizer) {
  size_t la = recognizer->getInputStream()->LA(1);
  if (la == SluiceLexer::RPAREN || la == SluiceLexer::RBRACK || la == SluiceLexer::RBRACE ||
      la == SluiceLexer::NEWLINE)
    return nullptr;
  return DefaultErrorStrategy::singleTokenDeletion(recognizer);
}

void ErrorStrategy::reportNoViableAlternative(antlr4::Parser *recognizer,
                                              const antlr4::NoViableAltException &e) {
  unexpected(recognizer, e.getOffendingToken(), antlr4::misc::IntervalSet());
}

void ErrorStrategy::reportInputMismatch(antlr4::Parser *recognizer,
                                        const antlr4::InputMismatchException &e) {
  unexpected(recognizer, e.getOffendingToken(), e.getExpectedTokens());
}

void ErrorStrategy::reportFailedPredicate(antlr4::Parser *recognizer,
                                          const antlr4::FailedPredicateException &e) {
  unexpected(recognizer, e.getOffendingToken(), antlr4::misc::IntervalSet());
}

void ErrorStrategy::reportUnwantedToken(antlr4::Parser *recognizer) {
  if (inErrorRecoveryMode(recognizer))
    return;
  beginErrorCondition(recognizer);
  antlr4::Token *token = recognizer->getCurrentToken();
  if (reportUnclosed(token))
    return;
  report(token, "unexpected " + reporter_.describe(token));
}

void ErrorStrategy::reportMissingToken(antlr4::Parser *recognizer) {
  if (inErrorRecoveryMode(recognizer))
    return;
  beginErrorCondition(recognizer);
  antlr4::Token *token = recognizer->getCurrentToken();
  if (reportUnclosed(token))
    return;
  std::string want = describeExpected(recognizer, getExpectedTokens(recognizer));
  if (want.empty()) {
    report(token, "unexpected " + reporter_.describe(token));
    return;
  }
  report(token, "expected " + want + " before " + reporter_.describe(token));
}

void ParserErrorListener::syntaxError(antlr4::Recognizer *, antlr4::Token *offending,
                                      size_t line, size_t col, const std::string &,
                                      std::exception_ptr) {
  reporter_.parserError(reporter_.loc(line, col),
                  "unexpected " + reporter_.describe(offending));
}

} // namespace sluice::frontend::detail
