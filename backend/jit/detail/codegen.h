// backend/jit/detail/codegen.h: the CPU module for one ElementProgram.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/jit/element_program.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace sluice::backend::jit {

/// A generated entry point, one per loop nest: `args` holds the input
/// pointers, the output pointers, then one scratch pointer per nest (a
/// reducing nest's accumulators: 8 bytes per output element; null for
/// the others); it computes the elements whose index along the nest's
/// outermost dim lies in [begin, end) (the kernel splits that range over
/// threads; a reducing nest runs whole, for [0, 1)).
using KernelFn = void (*)(void **args, int64_t begin, int64_t end);

/// The symbol of nest `k` of the program whose symbol is `symbol`.
std::string nestSymbol(const std::string &symbol, size_t k);

/// A module defining nestSymbol(symbol, k) (a KernelFn) for each nest k of
/// `p`: a loop nest over its dims, the innermost loop unit-stride on the
/// outputs so that the vectorizer takes it.
std::unique_ptr<llvm::Module> generateCpuModule(const ElementProgram &p,
                                                const std::string &symbol,
                                                llvm::LLVMContext &ctx);

/// Where generateGpuModule's kernels run: NVPTX for a device, or the host
/// (tests: the same kernels, thread and block indices as parameters).
enum class GpuTarget { kNvptx, kHostSimulation };

/// The GPU module for `p`: one kernel (`.entry`) per loop nest k, named
/// nestSymbol(symbol, k), taking the input then the output device
/// pointers and the nest's work items (gpuWorkItems); a grid-stride loop,
/// so any launch shape covers them. For kHostSimulation a kernel is
/// `void(void **buffers, int64_t items, int64_t thread, int64_t
/// threadsPerBlock, int64_t block, int64_t blocks)`.
std::unique_ptr<llvm::Module> generateGpuModule(const ElementProgram &p,
                                                const std::string &symbol,
                                                llvm::LLVMContext &ctx,
                                                GpuTarget target = GpuTarget::kNvptx);

/// Tests: runs the kernels of `p` on the host as a grid of `blocks` x
/// `threadsPerBlock` threads, one thread after another, over `buffers`
/// (the inputs' then the outputs' data), in nest order. Checks the GPU
/// code's indexing and folds where no GPU is present.
Status simulateGpuKernels(const ElementProgram &p, const std::vector<void *> &buffers,
                          int blocks, int threadsPerBlock);

/// The PTX of generateGpuModule(p, symbol) for `arch` (sm_90, ...),
/// optimised, with math calls taken from libdevice; unimplemented when a
/// call has no GPU code here (ptx_emitter.cc).
Expected<std::string> emitPtx(const ElementProgram &p, const std::string &symbol,
                              const std::string &arch);

} // namespace sluice::backend::jit
