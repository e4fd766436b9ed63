// tests/frontend/parse_helpers.h: parse-a-string helpers shared by the frontend tests.
#pragma once

#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "frontend/parser.h"
#include "tests/frontend/ast_dump.h"

namespace sluice::frontend::testing {

struct ParseResult {
  std::unique_ptr<Module> module;
  DiagnosticEngine diags;

  std::string printed() const {
    std::ostringstream os;
    diags.print(os);
    return os.str();
  }
  /// "line:col: message" of every diagnostic, one per line.
  std::string brief() const {
    std::string out;
    for (const Diagnostic &d : diags.diagnostics())
      out += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message + "\n";
    return out;
  }
};

inline std::unique_ptr<ParseResult> parse(const std::string &src,
                                          const std::string &file = "t.sluice") {
  auto r = std::make_unique<ParseResult>();
  r->module = parseModule(std::make_shared<const std::string>(file),
                          std::make_shared<const std::string>(src), r->diags);
  return r;
}

/// Parses `src`, expects no diagnostics, returns the dumped module body.
inline std::string parseOk(const std::string &src) {
  auto r = parse(src);
  EXPECT_FALSE(r->diags.hasErrors()) << "source:\n" << src << "\n" << r->printed();
  return dump(r->module->body);
}

/// Dumps the single expression statement `src`.
inline std::string expr(const std::string &src) {
  std::string out = parseOk(src);
  if (out.size() >= 2 && out.front() == '{' && out.back() == '}')
    return out.substr(1, out.size() - 2);
  return out;
}

} // namespace sluice::frontend::testing
