// backend/jit/detail/llvm_support.h: what the JIT, the PTX emitter and the
// ahead-of-time compiler share: the host's target machine and LLVM's -O3
// pipeline (llvm_support.cc keeps PassBuilder's slow headers in one TU).
#pragma once

#include <memory>
#include <string>

#include "support/status.h"

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace sluice::backend::jit {

/// A PIC target machine for this host's CPU and its features; `key`
/// (when given) receives them as text, for cache keys.
Expected<std::unique_ptr<llvm::TargetMachine>> hostTargetMachine(std::string *key = nullptr);

/// LLVM's -O3 module pipeline for `tm`, with loop and SLP vectorization.
void optimizeModule(llvm::Module &m, llvm::TargetMachine *tm);

} // namespace sluice::backend::jit
