// backend/jit/gpu_simulator.cc: simulateGpuKernels (detail/codegen.h): the
// GPU kernels generated for the host and run thread by thread, so tests
// check their indexing, grid-stride loops and reduction folds on machines
// without a GPU. Never used to compute results for users.
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "backend/jit/detail/codegen.h"
#include "backend/jit/detail/llvm_support.h"

namespace sluice::backend::jit {

Status simulateGpuKernels(const ElementProgram &p, const std::vector<void *> &buffers,
                          int blocks, int threadsPerBlock) {
  if (buffers.size() != p.inputTypes.size() + p.outputTypes.size())
    return invalidArgument("simulateGpuKernels: " + std::to_string(buffers.size()) +
                           " buffers for " + std::to_string(p.inputTypes.size()) + " inputs and " +
                           std::to_string(p.outputTypes.size()) + " outputs");
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, hostTargetMachine());
  auto ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> m =
      generateGpuModule(p, "sluice_sim", *ctx, GpuTarget::kHostSimulation);
  m->setDataLayout(tm->createDataLayout());
  m->setTargetTriple(tm->getTargetTriple().str());
  SLUICE_TRY(verifyGenerated(*m, "GPU code for '" + p.name + "'"));
  optimizeModule(*m, tm.get());
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return llvmError("cannot start the LLVM JIT", jit.takeError());
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!gen)
    return llvmError("cannot search this process's symbols", gen.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*gen));
  if (llvm::Error e =
          (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    return llvmError("cannot add the module", std::move(e));
  using Kernel = void (*)(void **, int64_t, int64_t, int64_t, int64_t, int64_t);
  std::vector<void *> args = buffers;
  for (size_t k = 0; k < p.nests.size(); ++k) {
    auto addr = (*jit)->lookup(nestSymbol("sluice_sim", k));
    if (!addr)
      return llvmError("cannot link " + nestSymbol("sluice_sim", k), addr.takeError());
    auto kernel = addr->toPtr<Kernel>();
    int64_t items = gpuWorkItems(p.nests[k]);
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < threadsPerBlock; ++t)
        kernel(args.data(), items, t, threadsPerBlock, b, blocks);
  }
  return Status::ok();
}

} // namespace sluice::backend::jit
