// backend/jit/jit.h: the JIT backend's public face (std-only: no LLVM
// header reaches its users). `fused` nodes compiled with LLVM ORC for the
// host CPU, cached in memory and on disk (backend/jit/object_cache.h).
#pragma once

#include <cstdint>
#include <string>

#include "backend/kernel_registry.h"
#include "ir/graph.h"

namespace sluice::backend::jit {

/// What the JIT has done in this process.
struct JitStats {
  int64_t compiled = 0;     // clusters compiled by LLVM
  int64_t memoryHits = 0;   // kernels found compiled in this process
  int64_t diskHits = 0;     // objects loaded from the disk cache
  int64_t corruptEntries = 0; // cache files ignored (and rebuilt)
  int64_t interpreted = 0;  // fused nodes run by the interpreter instead
  int64_t evicted = 0;      // cache files removed to respect the size limit
  int64_t specialized = 0;  // kernels built for the input shapes of one call
                            // (bodies whose shapes are known only at run time)
};
JitStats stats();

/// The built-in kernels with `fused` compiled by the JIT.
const KernelRegistry &jitKernelRegistry();
/// Sets `fused` on the CPU to the JIT kernel.
void registerJitKernels(KernelRegistry &reg);

/// `--emit llvm`: the optimised LLVM IR of every fused node of `g`, and a
/// comment for each the JIT leaves to the interpreter (with why).
Expected<std::string> emitLlvmIr(const ir::Graph &g);

/// `--emit ptx`: the PTX of every fused node of `g` for `arch` (one
/// `.entry` per loop nest), and a comment for each that has no GPU code
/// (with why). Needs no GPU: it is LLVM's NVPTX target.
Expected<std::string> emitPtx(const ir::Graph &g, const std::string &arch = "sm_90");

/// The disk cache directory in use (empty: none).
std::string cacheDirectory();

/// Tests: forget compiled kernels and use `dir` as the disk cache, as a
/// new process started with SLUICE_JIT_CACHE_DIR=dir would.
void resetForTesting(const std::string &dir);

} // namespace sluice::backend::jit
