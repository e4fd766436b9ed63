// backend/jit/engine.cc: ORC LLJIT, the -O3 pipeline and object emission:
// the one TU with the slow LLVM headers. LLVM is built without exceptions,
// so nothing here throws; every LLVM error becomes a Status.
#include "backend/jit/detail/engine.h"
#include "support/settings.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "backend/jit/detail/llvm_support.h"
#include "backend/jit/object_cache.h"

namespace sluice::backend::jit {

void jitLog(const std::string &line) {
  if (settings()->jitLog)
    std::cerr << "sluice-jit: " << line << "\n";
}

namespace {

void log(const std::string &line) { jitLog(line); }

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

class LlvmEngine final : public Engine {
public:
  LlvmEngine() : cache_(ObjectCache::defaultDirectory()) {}

  Expected<std::vector<KernelFn>> kernel(const ElementProgram &p) override {
    std::lock_guard<std::mutex> lock(mu_);
    SLUICE_TRY(init());
    std::string key = p.canonicalText() + hostKey_;
    if (auto it = memo_.find(key); it != memo_.end()) {
      ++stats_.memoryHits;
      return it->second;
    }
    std::string symbol = "sluice_fused_" + hex(fnv1a64(key));
    std::string object, why;
    switch (cache_.load(key, object, why)) {
    case ObjectCache::Result::kHit: {
      auto fn = load(object, symbol, p.nests.size());
      if (fn.hasValue()) {
        ++stats_.diskHits;
        log("loaded " + p.name + " from " + cache_.pathFor(key));
        memo_[key] = *fn;
        return fn;
      }
      why = fn.status().message();
      [[fallthrough]];
    }
    case ObjectCache::Result::kCorrupt:
      ++stats_.corruptEntries;
      log("ignored cache entry " + cache_.pathFor(key) + " (" + why + "); rebuilding");
      break;
    case ObjectCache::Result::kMissing:
      break;
    }
    auto start = std::chrono::steady_clock::now();
    SLUICE_ASSIGN_OR_RETURN(object, compile(p, symbol, nullptr));
    SLUICE_ASSIGN_OR_RETURN(std::vector<KernelFn> fn, load(object, symbol, p.nests.size()));
    ++stats_.compiled;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
    std::string stored;
    if (cache_.enabled() && !cache_.store(key, object, why))
      log("cannot cache " + p.name + ": " + why);
    else if (cache_.enabled()) {
      stored = ", cached in " + cache_.pathFor(key);
      ObjectCache::Trimmed t = cache_.trim(cache_.pathFor(key));
      stats_.evicted += t.files;
      if (t.files > 0)
        stored += "; removed " + std::to_string(t.files) + " least recently used (" +
                  std::to_string(t.bytes) + " bytes) to stay under " +
                  std::to_string(cache_.maxBytes() >> 20) + " MiB";
    }
    char msText[32];
    std::snprintf(msText, sizeof msText, "%.1f", ms);
    log("compiled " + p.name + " (" + msText + " ms" + stored + ")");
    memo_[key] = fn;
    return fn;
  }

  Expected<std::string> llvmIr(const ElementProgram &p) override {
    std::lock_guard<std::mutex> lock(mu_);
    SLUICE_TRY(init());
    std::string text;
    std::string symbol = "sluice_fused_" + hex(fnv1a64(p.canonicalText() + hostKey_));
    auto done = compile(p, symbol, &text);
    if (!done.hasValue())
      return done.takeStatus();
    return text;
  }

  JitStats stats() override {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

  std::string cacheDirectory() override {
    std::lock_guard<std::mutex> lock(mu_);
    return cache_.directory();
  }

  void resetForTesting(const std::string &dir) override {
    std::lock_guard<std::mutex> lock(mu_);
    memo_.clear();
    cache_ = ObjectCache(dir);
    stats_ = JitStats{};
  }

private:
  Status init() {
    if (tm_)
      return Status::ok();
    if (!initStatus_.isOk())
      return initStatus_;
    initStatus_ = [&]() -> Status {
      auto tm = hostTargetMachine(&hostKey_);
      if (!tm.hasValue())
        return tm.takeStatus();
      tm_ = std::move(*tm);
      auto jit = llvm::orc::LLJITBuilder().create();
      if (!jit) {
        tm_.reset();
        return llvmError("cannot start the LLVM JIT", jit.takeError());
      }
      jit_ = std::move(*jit);
      return Status::ok();
    }();
    return initStatus_;
  }

  // Generates, verifies and optimises `p`; returns the object code, or
  // with `irOut` the optimised IR text instead.
  Expected<std::string> compile(const ElementProgram &p, const std::string &symbol,
                                std::string *irOut) {
    llvm::LLVMContext ctx;
    std::unique_ptr<llvm::Module> m = generateCpuModule(p, symbol, ctx);
    m->setDataLayout(tm_->createDataLayout());
    m->setTargetTriple(tm_->getTargetTriple().str());
    SLUICE_TRY(verifyGenerated(*m, "generated code for '" + p.name + "'"));
    optimizeModule(*m, tm_.get());
    if (irOut) {
      llvm::raw_string_ostream os(*irOut);
      m->print(os, nullptr);
      return std::string();
    }
    return emitMachineCode(*m, tm_.get(), false, "LLVM cannot emit an object file for this CPU");
  }

  // Each object gets a JITDylib of its own: one that fails to link is
  // dropped whole, so the rebuilt object can define the same symbol.
  Expected<std::vector<KernelFn>> load(const std::string &object, const std::string &symbol,
                                       size_t nests) {
    auto dylib = jit_->createJITDylib("fused_" + std::to_string(nextDylib_++));
    if (!dylib)
      return llvmError("cannot make a JIT dylib", dylib.takeError());
    auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit_->getDataLayout().getGlobalPrefix());
    if (!gen)
      return llvmError("cannot search this process's symbols", gen.takeError());
    dylib->addGenerator(std::move(*gen));
    if (llvm::Error e = jit_->addObjectFile(
            *dylib, llvm::MemoryBuffer::getMemBufferCopy(object, symbol)))
      return llvmError("cannot add the object", std::move(e));
    std::vector<KernelFn> fns;
    for (size_t k = 0; k < nests; ++k) {
      auto addr = jit_->lookup(*dylib, nestSymbol(symbol, k));
      if (!addr)
        return llvmError("cannot link " + nestSymbol(symbol, k), addr.takeError());
      fns.push_back(addr->toPtr<KernelFn>());
    }
    return fns;
  }

  std::mutex mu_;
  Status initStatus_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::string hostKey_;
  std::map<std::string, std::vector<KernelFn>> memo_;
  ObjectCache cache_;
  JitStats stats_;
  int nextDylib_ = 0;
};

} // namespace

Engine &Engine::get() {
  static Engine *engine = new LlvmEngine; // never destroyed: kernels outlive statics
  return *engine;
}

} // namespace sluice::backend::jit
