// driver/detail/repl_support.h: what driver/repl.cc uses from
// repl_support.cc: bracket balance, op docs and completion.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "driver/repl.h"
#include "ir/op_def.h"

namespace sluice::frontend {
class EvaluatorImpl;
}

namespace sluice::driver::detail {

/// The open brackets of `text`, innermost last, with their offsets;
/// empty when balanced or mismatched (the parser reports that).
std::vector<std::pair<char, size_t>> openBrackets(const std::string &text);
/// `name(arg, attr: default, ...) -> outputs`, in TF's Python order.
std::string opSignature(const ir::OpDef &op);
/// The signature, then inputs, outputs, attrs and flags, one a line.
std::string opDoc(const ir::OpDef &op);
/// Completion of the word ending at `cursor` in `line`, `pending` being
/// the lines of the statement before it. Call holding the interpreter lock.
ReplCompletion completeInput(frontend::EvaluatorImpl &ev, const std::string &pending,
                             const std::string &line, size_t cursor);

} // namespace sluice::driver::detail
