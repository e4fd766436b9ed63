// backend/jit/detail/row_program.h: building blocks element_program.cc
// shares with row_program.cc.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backend/jit/element_program.h"

namespace sluice::backend::jit {

/// The unimplemented Status of a body node without generated code.
Status unsupportedNode(const ir::FunctionDef &def, const ir::Node &n, const std::string &why);

/// Appends the instruction computing body node `n` (an elementwise op) to
/// `instrs`, its operands found through `operand` (which may append too);
/// returns its index, or unimplemented when the op has no generated code.
Expected<int> appendOpInstr(const ir::FunctionDef &def, const ir::Node &n,
                            std::vector<Instr> &instrs,
                            const std::function<Expected<int>(const ir::Output &)> &operand);

/// The one nest of a body with a reduction that other members read (a
/// RowProgram), its outputs added to `p`; nullopt when no reduction is
/// read inside the body (then the per-shape nests apply).
/// Row buffers total at most `rowBufferBytes`.
Expected<std::optional<LoopNest>> buildRowNest(const ir::FunctionDef &def, ElementProgram &p,
                                               int64_t rowBufferBytes);

/// canonicalText()'s lines for one instruction list.
std::string instrsText(const std::vector<Instr> &instrs);

} // namespace sluice::backend::jit
