// frontend/parser.h: parses a .sluice file into the AST (frontend/ast.h).
#pragma once

#include <memory>
#include <string>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace sluice::frontend {

/// Parses `text` (the contents of `path`) into a Module. Every syntax error
/// is reported to `diags` (which also learns the source, for quoting lines),
/// with several errors per file where recovery allows; the Module is then
/// partial and must not be evaluated. Never throws, and any input (random
/// bytes, NUL, invalid UTF-8, deep nesting, huge literals) is safe on the
/// default 8 MB stack: brackets deeper than 256 and expressions deeper than
/// 2000 are reported instead of parsed. Columns are 1-based byte columns.
std::unique_ptr<Module> parseModule(std::shared_ptr<const std::string> path,
                                    std::shared_ptr<const std::string> text,
                                    DiagnosticEngine &diags);

} // namespace sluice::frontend
