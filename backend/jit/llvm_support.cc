// backend/jit/llvm_support.cc
#include "backend/jit/detail/llvm_support.h"

#include <algorithm>
#include <vector>

#include <llvm/ADT/SmallString.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/SubtargetFeature.h>
#include <llvm/Support/Error.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

namespace sluice::backend::jit {

Expected<std::unique_ptr<llvm::TargetMachine>> hostTargetMachine(std::string *key) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string triple = llvm::sys::getProcessTriple(), err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target)
    return Status(Code::kInternal, "no LLVM target for " + triple + ": " + err);
  std::string cpu = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> hostFeatures;
  llvm::sys::getHostCPUFeatures(hostFeatures);
  std::vector<std::string> features;
  for (const auto &f : hostFeatures)
    features.push_back((f.second ? "+" : "-") + f.first().str());
  std::sort(features.begin(), features.end());
  llvm::SubtargetFeatures sf;
  std::string featureList;
  for (const std::string &f : features) {
    sf.AddFeature(f);
    featureList += f + ",";
  }
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(triple, cpu, sf.getString(), llvm::TargetOptions(),
                                  llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOpt::Aggressive));
  if (!tm)
    return Status(Code::kInternal, "cannot make an LLVM target machine for " + cpu);
  if (key)
    *key = "llvm " LLVM_VERSION_STRING "\ntriple " + triple + "\ncpu " + cpu + "\nfeatures " +
           featureList + "\n";
  return tm;
}

void optimizeModule(llvm::Module &m, llvm::TargetMachine *tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  llvm::PassBuilder pb(tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

Status llvmError(const std::string &what, llvm::Error e) {
  return Status(Code::kInternal, what + ": " + llvm::toString(std::move(e)));
}

Status verifyGenerated(llvm::Module &m, const std::string &what) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (llvm::verifyModule(m, &os))
    return Status(Code::kInternal, what + " is invalid: " + os.str());
  return Status::ok();
}

Expected<std::string> emitMachineCode(llvm::Module &m, llvm::TargetMachine *tm, bool assembly,
                                      const std::string &cannot) {
  llvm::SmallString<0> out;
  llvm::raw_svector_ostream os(out);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              assembly ? llvm::CGFT_AssemblyFile : llvm::CGFT_ObjectFile))
    return Status(Code::kInternal, cannot);
  pm.run(m);
  return std::string(out.str());
}

} // namespace sluice::backend::jit
