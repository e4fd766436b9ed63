// backend/jit/ptx_emitter.cc: PTX for fused clusters through LLVM's NVPTX
// target (LLVM 16 emits `.target sm_90` for Hopper). Math the NVPTX
// backend cannot select by itself (exp, log, pow, tanh) is taken from
// CUDA's libdevice when it is installed; otherwise the cluster is
// reported unimplemented for the GPU, never handed to a code generator
// that would abort the process.
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/Internalize.h>

#include "backend/jit/detail/codegen.h"
#include "support/settings.h"
#include "backend/jit/detail/llvm_support.h"
#include "backend/jit/gpu_program.h"
#include "backend/jit/jit.h"

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace sluice::backend::jit {

namespace {

constexpr const char *kTriple = "nvptx64-nvidia-cuda";

/// Intrinsics the NVPTX backend selects on its own.
bool nativeIntrinsic(const std::string &name) {
  static const char *prefixes[] = {"llvm.fabs.",   "llvm.sqrt.",    "llvm.floor.", "llvm.ceil.",
                                   "llvm.trunc.",  "llvm.rint.",    "llvm.nearbyint.",
                                   "llvm.minnum.", "llvm.maxnum.",  "llvm.fma.",
                                   "llvm.copysign.", "llvm.fptosi.sat.", "llvm.fptoui.sat.",
                                   "llvm.nvvm.",   "llvm.smin.",    "llvm.smax.", "llvm.umin.",
                                   "llvm.umax.",   "llvm.abs."};
  for (const char *p : prefixes)
    if (name.rfind(p, 0) == 0)
      return true;
  return false;
}

/// The libdevice function for a math call the backend cannot select
/// (llvm.exp.f32 -> __nv_expf, tanh -> __nv_tanh), or "".
std::string libdeviceName(const std::string &name) {
  static const std::map<std::string, std::string> intrinsics = {
      {"llvm.exp.f32", "__nv_expf"}, {"llvm.exp.f64", "__nv_exp"},
      {"llvm.log.f32", "__nv_logf"}, {"llvm.log.f64", "__nv_log"},
      {"llvm.pow.f32", "__nv_powf"}, {"llvm.pow.f64", "__nv_pow"}};
  if (auto it = intrinsics.find(name); it != intrinsics.end())
    return it->second;
  static const char *libm[] = {"tanhf", "tanh", "expm1f", "expm1", "log1pf", "log1p",
                               "sinf",  "sin",  "cosf",   "cos",   "erff",   "erf"};
  for (const char *f : libm)
    if (name == f)
      return std::string("__nv_") + f;
  return "";
}

/// Where CUDA keeps libdevice: $SLUICE_LIBDEVICE, $CUDA_HOME, the usual
/// toolkit folders; "" when none is installed.
std::string findLibdevice() {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  auto s = settings();
  if (!s->libdevice.empty())
    candidates.emplace_back(s->libdevice);
  for (const std::string &root : s->cudaHomes)
    candidates.push_back(fs::path(root) / "nvvm/libdevice/libdevice.10.bc");
  candidates.emplace_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  candidates.emplace_back("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  for (const fs::path &p : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec))
      return p.string();
  }
  return "";
}

llvm::TargetMachine *targetMachine(const std::string &arch, std::string &error) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines;
  std::lock_guard<std::mutex> lock(mu);
  static bool initialized = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    return true;
  }();
  (void)initialized;
  auto &tm = machines[arch];
  if (!tm) {
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(kTriple, error);
    if (!target)
      return nullptr;
    std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(kTriple, "", ""));
    if (!sti || !sti->isCPUStringValid(arch)) {
      error = "'" + arch + "' is not a GPU architecture LLVM's NVPTX target knows (sm_90, ...)";
      machines.erase(arch);
      return nullptr;
    }
    tm.reset(target->createTargetMachine(kTriple, arch, "", llvm::TargetOptions(), std::nullopt,
                                         std::nullopt, llvm::CodeGenOpt::Aggressive));
    if (!tm)
      error = "LLVM has no NVPTX target machine for " + arch;
  }
  return tm.get();
}

/// Points math calls at libdevice and links what they use; an error when
/// a call has no device implementation here.
Status resolveMath(llvm::Module &m, const ElementProgram &p) {
  std::vector<std::pair<llvm::Function *, std::string>> replace;
  for (llvm::Function &f : m) {
    if (!f.isDeclaration() || f.use_empty())
      continue;
    std::string name = f.getName().str();
    if (nativeIntrinsic(name))
      continue;
    std::string dev = libdeviceName(name);
    if (dev.empty())
      return Status(Code::kUnimplemented,
                    "cluster " + p.name + " calls " + name + ", which has no GPU code");
    replace.emplace_back(&f, dev);
  }
  if (replace.empty())
    return Status::ok();
  std::string path = findLibdevice();
  if (path.empty())
    return Status(Code::kUnimplemented,
                  "cluster " + p.name + " needs " + replace[0].second +
                      " from CUDA's libdevice, which is not installed (set SLUICE_LIBDEVICE to "
                      "libdevice.10.bc)");
  for (auto &[f, dev] : replace) {
    llvm::FunctionCallee callee = m.getOrInsertFunction(dev, f->getFunctionType());
    f->replaceAllUsesWith(callee.getCallee());
    f->eraseFromParent();
  }
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return Status(Code::kNotFound, "cannot read libdevice at " + path);
  auto lib = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), m.getContext());
  if (!lib) {
    std::string why = llvm::toString(lib.takeError());
    return Status(Code::kDataLoss, "libdevice at " + path + " does not parse: " + why);
  }
  (*lib)->setTargetTriple(kTriple);
  (*lib)->setDataLayout(m.getDataLayout());
  if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::LinkOnlyNeeded))
    return Status(Code::kInternal, "linking libdevice into " + p.name + " failed");
  // Only the kernels stay visible, so the optimizer drops the rest.
  llvm::internalizeModule(m, [](const llvm::GlobalValue &g) {
    return g.getName().startswith("sluice_") && !g.getName().startswith("sluice_libdevice");
  });
  return Status::ok();
}

} // namespace

Expected<std::string> emitPtx(const ElementProgram &p, const std::string &symbol,
                              const std::string &arch) {
  std::string error;
  llvm::TargetMachine *tm = targetMachine(arch, error);
  if (!tm)
    return Status(Code::kInvalidArgument, "no PTX code generator: " + error);
  for (const LoopNest &nest : p.nests)
    if (nest.rows && !nest.rows->bufferTypes.empty())
      return Status(Code::kInternal, "cluster " + p.name +
                                         " keeps row buffers, which GPU code has none of: build "
                                         "its program with kNoRowBuffers");
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = generateGpuModule(p, symbol, ctx);
  m->setDataLayout(tm->createDataLayout());
  SLUICE_TRY(resolveMath(*m, p));
  SLUICE_TRY(verifyGenerated(*m, "generated GPU code for " + p.name));
  optimizeModule(*m, tm);
  return emitMachineCode(*m, tm, true, "the NVPTX target cannot write assembly");
}

std::string ptxIdentifier(const std::string &s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

Expected<std::string> emitPtx(const ir::Graph &g, const std::string &arch) {
  return listFusedCode(g, "//", "no GPU code", [&](const ElementProgram &p, const ir::Node &n) {
    return emitPtx(p, "sluice_" + ptxIdentifier(n.name()), arch);
  }, kNoRowBuffers);
}

Expected<GpuProgram> compileGpuProgram(const ir::FunctionDef &body, const std::string &symbol,
                                       const std::string &arch) {
  GpuProgram out;
  SLUICE_ASSIGN_OR_RETURN(out.program, buildElementProgram(body, kNoRowBuffers));
  // Every session compiling the same cluster gets the same PTX: LLVM runs
  // once per process for it (and the device loads the module once).
  static std::mutex mu;
  static std::map<std::string, std::string> cache; // guarded by mu
  std::string key = arch + "\n" + symbol + "\n" + out.program.canonicalText();
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(key); it != cache.end())
      out.ptx = it->second;
  }
  if (out.ptx.empty()) {
    SLUICE_ASSIGN_OR_RETURN(out.ptx, emitPtx(out.program, symbol, arch));
    std::lock_guard<std::mutex> lock(mu);
    cache.emplace(key, out.ptx);
  }
  for (size_t k = 0; k < out.program.nests.size(); ++k) {
    out.entries.push_back(nestSymbol(symbol, k));
    out.counts.push_back(gpuWorkItems(out.program.nests[k]));
  }
  return out;
}

} // namespace sluice::backend::jit
