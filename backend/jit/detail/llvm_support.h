// backend/jit/detail/llvm_support.h: what the JIT, the PTX emitter and the
// ahead-of-time compiler share: the host's target machine and LLVM's -O3
// pipeline (llvm_support.cc keeps PassBuilder's slow headers in one TU).
#pragma once

#include <memory>
#include <string>

#include "support/status.h"

namespace llvm {
class Error;
class Module;
class TargetMachine;
} // namespace llvm

namespace sluice::backend::jit {

/// A PIC target machine for this host's CPU and its features; `key`
/// (when given) receives them as text, for cache keys.
Expected<std::unique_ptr<llvm::TargetMachine>> hostTargetMachine(std::string *key = nullptr);

/// LLVM's -O3 module pipeline for `tm`, with loop and SLP vectorization.
void optimizeModule(llvm::Module &m, llvm::TargetMachine *tm);

/// Internal "<what>: <LLVM's message>" for an llvm::Error.
Status llvmError(const std::string &what, llvm::Error e);

/// Internal "<what> is invalid: <the verifier's words>" when generated
/// module `m` does not verify.
Status verifyGenerated(llvm::Module &m, const std::string &what);

/// `m` as `tm` writes it: an object file, or (`assembly`) its assembly
/// text (PTX for NVPTX); internal `cannot` when `tm` writes no such file.
Expected<std::string> emitMachineCode(llvm::Module &m, llvm::TargetMachine *tm, bool assembly,
                                      const std::string &cannot);

} // namespace sluice::backend::jit
