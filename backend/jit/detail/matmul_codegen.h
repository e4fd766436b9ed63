// backend/jit/detail/matmul_codegen.h: a rank-2 matmul of fixed shapes as
// a loop nest, for ahead-of-time objects (the JIT keeps calling BLAS).
#pragma once

#include "ir/node.h"
#include "support/status.h"

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace sluice::backend::jit {

/// Defines in `m` `void name(const T *a, const T *b, T *product)` for
/// matmul node `n` (its transpose and adjoint attrs; dims from its input
/// shapes `a` and `b`): rows of the product in i-k-j order, so the inner
/// loop runs along rows of b and of the product and vectorises. f32, f64,
/// i32 and i64 (wrapping); invalid_argument naming why otherwise.
Expected<llvm::Function *> emitMatmul(llvm::Module &m, const std::string &name,
                                      const ir::Node &n, const std::vector<int64_t> &a,
                                      const std::vector<int64_t> &b);

} // namespace sluice::backend::jit
