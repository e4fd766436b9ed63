// backend/jit/detail/row_emitter.h: one row of a RowProgram as LLVM IR,
// for the CPU nest (rows [begin, end) of a thread's share) and the GPU
// kernel (a grid-stride loop over rows, one thread a row).
#pragma once

#include <vector>

#include "backend/jit/detail/loop_emitter.h"
#include "backend/jit/element_program.h"

namespace sluice::backend::jit {

/// Stack arrays for the row buffers, in the function's entry block.
std::vector<llvm::Value *> allocateRowBuffers(LoopEmitter &le, const RowProgram &rp);

/// Emits row `r` at the builder's point: each stage in order, row values
/// as SSA values of this row. `ptrs` are the inputs' then the outputs'
/// pointers (any address space); `buffers` from allocateRowBuffers.
void emitRow(LoopEmitter &le, llvm::Module &m, const ElementProgram &prog, const RowProgram &rp,
             const std::vector<llvm::Value *> &ptrs, const std::vector<llvm::Value *> &buffers,
             llvm::Value *r);

} // namespace sluice::backend::jit
