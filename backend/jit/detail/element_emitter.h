// backend/jit/detail/element_emitter.h: LLVM IR for one element of an
// ElementProgram. Target-neutral: the CPU loop nest (cpu_codegen.cc) calls
// it in its innermost loop; a GPU kernel would call it per thread.
#pragma once

#include <functional>
#include <vector>

#include "backend/jit/element_program.h"

namespace llvm {
class IRBuilderBase;
class Type;
class Value;
class Module;
} // namespace llvm

namespace sluice::backend::jit {

/// The in-register type of a dtype (bool is i1; in memory it is i8).
llvm::Type *registerType(llvm::IRBuilderBase &b, ir::DType t);
/// The in-memory element type.
llvm::Type *memoryType(llvm::IRBuilderBase &b, ir::DType t);

/// Emits every instruction of `nest` at the builder's insertion point.
/// `loadedInputs[k]` is input k at this element in register type (the
/// caller knows the addressing; null for inputs the nest does not load);
/// the result holds the value of each of nest.results, in register type.
/// Libm calls the element needs (tanhf, ...) are declared in `m`.
std::vector<llvm::Value *> emitElement(llvm::IRBuilderBase &b, llvm::Module &m,
                                       const LoopNest &nest,
                                       const std::vector<llvm::Value *> &loadedInputs);

/// The same for any instruction list: `leaf` gives the value of each
/// instruction that reads memory or an earlier result ("load", and a row
/// program's "row" and "buffer"); returns the values of `results`.
std::vector<llvm::Value *> emitInstrs(llvm::IRBuilderBase &b, llvm::Module &m,
                                      const std::vector<Instr> &instrs,
                                      const std::vector<int> &results,
                                      const std::function<llvm::Value *(const Instr &)> &leaf);

} // namespace sluice::backend::jit
