// frontend/detail/error_strategy.h: ANTLR's default recovery with readable
// messages ("expected '}'", "unexpected token 'x'") sent to the SyntaxReporter.
#pragma once

#include <string>
#include <vector>

#include "antlr4-runtime.h"

#include "frontend/detail/syntax_reporter.h"
#include "frontend/detail/token_source.h"

namespace sluice::frontend::detail {

class ErrorStrategy : public antlr4::DefaultErrorStrategy {
public:
  ErrorStrategy(SyntaxReporter &reporter, const TokenSource &tokens)
      : reporter_(reporter), tokens_(tokens) {}

  void sync(antlr4::Parser *recognizer) override;

protected:
  void reportNoViableAlternative(antlr4::Parser *recognizer,
                                 const antlr4::NoViableAltException &e) override;
  void reportInputMismatch(antlr4::Parser *recognizer,
                           const antlr4::InputMismatchException &e) override;
  void reportFailedPredicate(antlr4::Parser *recognizer,
                             const antlr4::FailedPredicateException &e) override;
  void reportUnwantedToken(antlr4::Parser *recognizer) override;
  void reportMissingToken(antlr4::Parser *recognizer) override;
  /// Never drops a closing bracket or a newline as "extraneous": they end
  /// something, and dropping them derails the rest of the file.
  antlr4::Token *singleTokenDeletion(antlr4::Parser *recognizer) override;

private:
  /// In a statement list, skips tokens that can neither start a statement
  /// nor separate or end one (`x = 1 2`, a stray ')' on its own line),
  /// reporting the run once. ANTLR's own sync lets the list end there and
  /// then fails at the enclosing '}' or end of file, losing the rest.
  bool skipJunk(antlr4::Parser *recognizer);
  /// "unexpected <token>", plus what was expected when that is short.
  void unexpected(antlr4::Parser *recognizer, antlr4::Token *token,
                  const antlr4::misc::IntervalSet &expected);
  void report(const antlr4::Token *at, std::string message);
  /// "'}'", "'}' or ','"; empty when the set is too large to be helpful.
  std::string describeExpected(antlr4::Parser *recognizer,
                               const antlr4::misc::IntervalSet &expected) const;
  /// At end of file with brackets open: "expected '}' to close '{' from line N".
  bool reportUnclosed(const antlr4::Token *at);

  SyntaxReporter &reporter_;
  const TokenSource &tokens_;
  antlr4::misc::IntervalSet firstOfStmt_;
};

/// Parser-side errors that bypass the strategy (none expected) go here too.
class ParserErrorListener : public antlr4::BaseErrorListener {
public:
  explicit ParserErrorListener(SyntaxReporter &reporter) : reporter_(reporter) {}
  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending,
                   size_t line, size_t col, const std::string &msg,
                   std::exception_ptr e) override;

private:
  SyntaxReporter &reporter_;
};

} // namespace sluice::frontend::detail
