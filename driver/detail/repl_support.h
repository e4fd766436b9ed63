// driver/detail/repl_support.h: what driver/repl.cc uses from
// repl_support.cc: bracket balance and completion.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "driver/repl.h"

namespace sluice::frontend {
class EvaluatorImpl;
}

namespace sluice::driver::detail {

/// The open brackets of `text`, innermost last, with their offsets;
/// empty when balanced or mismatched (the parser reports that).
std::vector<std::pair<char, size_t>> openBrackets(const std::string &text);
/// Completion of the word ending at `cursor` in `line`, `pending` being
/// the lines of the statement before it. Call holding the interpreter lock.
ReplCompletion completeInput(frontend::EvaluatorImpl &ev, const std::string &pending,
                             const std::string &line, size_t cursor);

} // namespace sluice::driver::detail
