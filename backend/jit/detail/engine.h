// backend/jit/detail/engine.h: the process's one LLVM JIT: turns an
// ElementProgram into a callable kernel, through the memory cache, the
// disk cache, or a compile (-O3 for the host CPU) that fills both.
#pragma once

#include <string>
#include <vector>

#include "backend/jit/detail/codegen.h"
#include "backend/jit/element_program.h"
#include "backend/jit/jit.h"

namespace sluice::backend::jit {

/// With $SLUICE_JIT_LOG set (and not "0"): `line` on stderr after
/// "sluice-jit: ", what the JIT compiled, loaded or left to the interpreter.
void jitLog(const std::string &line);

class Engine {
public:
  /// The process-wide engine (made on first use; never destroyed, so
  /// kernels stay valid through static destruction).
  static Engine &get();

  /// The compiled entry point of each nest of `p`; an error leaves the
  /// caller to interpret the body.
  virtual Expected<std::vector<KernelFn>> kernel(const ElementProgram &p) = 0;
  /// The optimised LLVM IR of `p`, as the JIT compiles it.
  virtual Expected<std::string> llvmIr(const ElementProgram &p) = 0;
  virtual JitStats stats() = 0;
  virtual std::string cacheDirectory() = 0;
  /// Empties the memory cache and points the disk cache at `dir` (tests:
  /// a fresh "process" over a given cache directory).
  virtual void resetForTesting(const std::string &dir) = 0;

protected:
  virtual ~Engine() = default;
};

} // namespace sluice::backend::jit
