// frontend/parser.cc: parseModule, the pipeline bytes -> tokens -> parse tree -> AST.
#include "frontend/parser.h"

#include "antlr4-runtime.h"
#include "SluiceParser.h"

#include "frontend/detail/ast_builder.h"
#include "frontend/detail/error_strategy.h"
#include "frontend/detail/syntax_reporter.h"
#include "frontend/detail/token_source.h"

namespace sluice::frontend {

namespace {
/// Runs the stages; may throw (ANTLR or allocation), parseModule catches.
void parseInto(Module &module, detail::SyntaxReporter &reporter) {
  detail::ByteInputStream input(*module.source);
  detail::TokenSource lexer(&input, reporter);
  detail::LexerErrorListener lexerListener(reporter);
  lexer.removeErrorListeners();
  lexer.addErrorListener(&lexerListener);

  // Pre-scan: lex everything first, so over-deep nesting is rejected before
  // the recursive-descent parser could descend into it.
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  if (lexer.tooDeep() || reporter.stopped())
    return;

  // Two stages, as ANTLR recommends: the fast SLL prediction mode bails at
  // the first error, which valid files never reach; only then is the file
  // parsed again in full LL mode with error recovery and reporting.
  detail::ParserErrorListener parserListener(reporter);
  sluicegen::SluiceParser parser(&tokens);
  parser.removeErrorListeners();
  auto *sim = parser.getInterpreter<antlr4::atn::ParserATNSimulator>();
  sim->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  sluicegen::SluiceParser::File_Context *tree = nullptr;
  try {
    tree = parser.file_();
  } catch (const antlr4::ParseCancellationException &) {
    tokens.seek(0);
    parser.reset();
    parser.addErrorListener(&parserListener);
    sim->setPredictionMode(antlr4::atn::PredictionMode::LL);
    parser.setErrorHandler(std::make_shared<detail::ErrorStrategy>(reporter, lexer));
    tree = parser.file_();
    parser.removeErrorListeners();
  }

  detail::AstBuilder builder(reporter);
  module.body = builder.buildFile(tree);
}
} // namespace

std::unique_ptr<Module> parseModule(std::shared_ptr<const std::string> path,
                                    std::shared_ptr<const std::string> text,
                                    DiagnosticEngine &diags) {
  auto module = std::make_unique<Module>();
  if (!path)
    path = std::make_shared<const std::string>("<input>");
  if (!text)
    text = std::make_shared<const std::string>();
  module->path = path;
  module->source = text;
  diags.addSource(path, text);

  detail::SyntaxReporter reporter(path, text);
  try {
    parseInto(*module, reporter);
  } catch (const antlr4::ParseCancellationException &) {
    module->body.clear(); // too many errors; the reporter said so
  } catch (const std::exception &e) {
    module->body.clear();
    reporter.error(reporter.loc(1, 0), std::string("internal error while parsing: ") + e.what());
  } catch (...) {
    module->body.clear();
    reporter.error(reporter.loc(1, 0), "internal error while parsing");
  }
  reporter.flush(diags);
  return module;
}

} // namespace sluice::frontend
