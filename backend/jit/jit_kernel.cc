// backend/jit/jit_kernel.cc: `fused` compiled by the JIT, falling back to
// the interpreter for bodies without generated code; the JIT's registry,
// --emit llvm and its counters.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "backend/fused_interpreter.h"
#include "backend/jit/detail/engine.h"
#include "backend/jit/detail/specialize.h"
#include "backend/jit/jit.h"

namespace sluice::backend::jit {

namespace {

std::atomic<int64_t> interpretedCount{0};
std::atomic<int64_t> specializedCount{0};

// A body with run-time shapes compiles once per distinct set of input
// shapes; past this many, further shapes are interpreted (a pipeline that
// varies every batch should not compile every step).
constexpr size_t kMaxSpecializations = 32;

bool jitLog() {
  const char *v = std::getenv("SLUICE_JIT_LOG");
  return v && *v && std::string(v) != "0";
}

// Below this many elements per thread, a thread costs more than it saves.
constexpr int64_t kMinElementsPerThread = int64_t(1) << 18;

class JitFusedKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    if (!prepare(ctx))
      return;
    if (dynamic_) {
      const Compiled *c = specialization(ctx);
      if (!c)
        return;
      if (c->program)
        run(ctx, *c->program, c->fns);
      else
        interp_->run(ctx);
      return;
    }
    if (interp_) {
      interp_->run(ctx);
      return;
    }
    run(ctx, *program_, fns_);
  }

private:
  struct Compiled {
    std::unique_ptr<ElementProgram> program; // null: interpreted
    std::vector<KernelFn> fns;
  };

  // The code for this call's input shapes, compiled on first sight.
  const Compiled *specialization(KernelContext &ctx) {
    std::vector<ir::Dims> dims;
    for (int k = 0; k < ctx.numInputs(); ++k)
      dims.push_back(ctx.input(k).dims());
    std::lock_guard<std::mutex> lock(mu_);
    auto it = specs_.find(dims);
    if (it != specs_.end())
      return it->second.get();
    bool full = specs_.size() >= kMaxSpecializations;
    if (full && interp_)
      return &interpreted_; // not remembered: the shapes may never repeat
    auto c = std::make_unique<Compiled>();
    std::string shapes;
    for (const ir::Dims &d : dims)
      shapes += (shapes.empty() ? "" : ", ") + ir::dimsString(d);
    Status why;
    if (full) {
      why = unimplemented(std::to_string(kMaxSpecializations) +
                          " input shapes have code already; further ones are interpreted");
    } else if (auto def = specializeBody(*def_, dims); !def.hasValue()) {
      why = def.takeStatus();
    } else if (auto program = buildElementProgram(**def); !program.hasValue()) {
      why = program.takeStatus();
    } else if (auto fn = Engine::get().kernel(*program); !fn.hasValue()) {
      why = fn.takeStatus();
    } else {
      c->program = std::make_unique<ElementProgram>(std::move(*program));
      c->fns = std::move(*fn);
      ++specializedCount;
    }
    if (!c->program) {
      if (!interp_) {
        auto in = FusedInterpreter::create(def_, kernelRegistry());
        if (!in.hasValue()) {
          ctx.fail(in.takeStatus());
          return nullptr;
        }
        interp_ = std::move(*in);
      }
      ++interpretedCount;
      if (jitLog())
        std::cerr << "sluice-jit: interpreting " << def_->name << " for " << shapes << ": "
                  << why.message() << "\n";
    }
    if (full)
      return &interpreted_;
    return (specs_[dims] = std::move(c)).get();
  }

  void run(KernelContext &ctx, const ElementProgram &p, const std::vector<KernelFn> &fns) {
    if (ctx.numInputs() != static_cast<int>(p.inputTypes.size()) ||
        ctx.numOutputs() != static_cast<int>(p.outputTypes.size())) {
      ctx.fail(invalidArgument("fused node's inputs and outputs do not match its body '" +
                               p.name + "'"));
      return;
    }
    std::vector<void *> args;
    for (int k = 0; k < ctx.numInputs(); ++k) {
      const ir::Tensor &t = ctx.input(k);
      if (t.dtype() != p.inputTypes[k] || t.dims() != p.inputDims[k]) {
        ctx.fail(invalidArgument("fused input " + std::to_string(k) + " is " +
                                 std::string(ir::dtypeName(t.dtype())) + ir::dimsString(t.dims()) +
                                 ", its code was compiled for " +
                                 std::string(ir::dtypeName(p.inputTypes[k])) +
                                 ir::dimsString(p.inputDims[k])));
        return;
      }
      args.push_back(const_cast<void *>(t.rawData()));
    }
    for (int k = 0; k < ctx.numOutputs(); ++k)
      args.push_back(ctx.allocateOutput(k, p.outputTypes[k], p.outputDims[k]).rawData());
    std::vector<std::unique_ptr<int64_t[]>> scratch;
    for (const LoopNest &nest : p.nests) {
      if (nest.reduction) {
        scratch.emplace_back(new int64_t[std::max<int64_t>(1, nest.reduction->outElements)]);
        args.push_back(scratch.back().get());
      } else {
        args.push_back(nullptr);
      }
    }
    for (size_t n = 0; n < p.nests.size(); ++n) {
      if (p.nests[n].reduction)
        fns[n](args.data(), 0, 1); // whole, in the kernel's order
      else
        runNest(p.nests[n], fns[n], args.data(), ctx.intraOpThreads());
    }
  }


  static void runNest(const LoopNest &nest, KernelFn fn, void **args, int maxThreads) {
    int64_t outer = nest.dims[0];
    int64_t total = 1;
    for (int64_t d : nest.dims)
      total *= d;
    if (nest.rows) // a row's elements count toward the work; an empty row still has its row values
      total *= std::max<int64_t>(1, nest.rows->length);
    if (total == 0)
      return;
    int64_t threads = std::min<int64_t>({std::max(1, maxThreads), outer,
                                         std::max<int64_t>(1, total / kMinElementsPerThread)});
    if (threads <= 1) {
      fn(args, 0, outer);
      return;
    }
    std::vector<std::thread> workers;
    int64_t chunk = (outer + threads - 1) / threads;
    for (int64_t t = 1; t < threads; ++t) {
      int64_t b = t * chunk, e = std::min(outer, b + chunk);
      if (b < e)
        workers.emplace_back([fn, args, b, e] { fn(args, b, e); });
    }
    fn(args, 0, std::min(outer, chunk));
    for (std::thread &w : workers)
      w.join();
  }

  // Compiles (or finds) the code once; concurrent steps wait for it.
  bool prepare(KernelContext &ctx) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!fns_.empty() || interp_ || dynamic_)
      return true;
    if (!failed_.isOk()) {
      ctx.fail(failed_);
      return false;
    }
    auto def = fusedBody(node(), ctx);
    if (!def.hasValue()) {
      failed_ = def.takeStatus();
      ctx.fail(failed_);
      return false;
    }
    def_ = *def;
    if (!hasStaticShapes(**def)) {
      dynamic_ = true; // compiled per call shapes, in specialization()
      return true;
    }
    auto program = buildElementProgram(**def);
    Status why;
    if (program.hasValue()) {
      auto fn = Engine::get().kernel(*program);
      if (fn.hasValue()) {
        program_ = std::make_unique<ElementProgram>(std::move(*program));
        fns_ = std::move(*fn);
        return true;
      }
      why = fn.takeStatus();
    } else {
      why = program.takeStatus();
    }
    if (jitLog())
      std::cerr << "sluice-jit: interpreting " << (*def)->name << ": " << why.message() << "\n";
    auto in = FusedInterpreter::create(*def, kernelRegistry());
    if (!in.hasValue()) {
      failed_ = in.takeStatus();
      ctx.fail(failed_);
      return false;
    }
    ++interpretedCount;
    interp_ = std::move(*in);
    return true;
  }

  std::mutex mu_;
  std::unique_ptr<ElementProgram> program_;
  std::vector<KernelFn> fns_; // one per loop nest
  std::unique_ptr<FusedInterpreter> interp_;
  Status failed_;
  std::shared_ptr<const ir::FunctionDef> def_;
  bool dynamic_ = false; // the body's shapes are known only per call
  std::map<std::vector<ir::Dims>, std::unique_ptr<Compiled>> specs_;
  Compiled interpreted_; // past kMaxSpecializations
};

} // namespace

void registerJitKernels(KernelRegistry &reg) { reg.addSimple<JitFusedKernel>("fused"); }

const KernelRegistry &jitKernelRegistry() {
  static const KernelRegistry reg = [] {
    KernelRegistry r;
    registerAllKernels(r);
    registerJitKernels(r);
    return r;
  }();
  return reg;
}

JitStats stats() {
  JitStats s = Engine::get().stats();
  s.interpreted = interpretedCount.load();
  s.specialized = specializedCount.load();
  return s;
}

std::string cacheDirectory() { return Engine::get().cacheDirectory(); }

void resetForTesting(const std::string &dir) {
  Engine::get().resetForTesting(dir);
  interpretedCount = 0;
  specializedCount = 0;
}

Expected<std::string> emitLlvmIr(const ir::Graph &g) {
  return listFusedCode(g, ";", "interpreted", [](const ElementProgram &p, const ir::Node &) {
    return Engine::get().llvmIr(p);
  });
}

} // namespace sluice::backend::jit
