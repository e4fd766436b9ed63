// backend/jit/jit_kernel.cc: `fused` compiled by the JIT, falling back to
// the interpreter for bodies without generated code; the JIT's registry,
// --emit llvm and its counters.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#include "backend/fused_interpreter.h"
#include "backend/jit/detail/engine.h"
#include "backend/jit/specialize.h"
#include "backend/jit/jit.h"

namespace sluice::backend::jit {

namespace {

std::atomic<int64_t> interpretedCount{0};
std::atomic<int64_t> specializedCount{0};


// Below this many elements per thread, a thread costs more than it saves.
constexpr int64_t kMinElementsPerThread = int64_t(1) << 18;

class JitFusedKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    if (!prepare(ctx))
      return;
    if (dynamic_) {
      bool failed = false;
      const Compiled *c = specialization(ctx, &failed);
      if (c)
        run(ctx, c->program, c->fns);
      else if (!failed)
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
    ElementProgram program;
    std::vector<KernelFn> fns;
  };

  // The code for this call's input shapes, compiled on first sight; null
  // when these shapes are interpreted (interp_ is made for them).
  const Compiled *specialization(KernelContext &ctx, bool *failed) {
    std::vector<ir::Dims> dims;
    for (int k = 0; k < ctx.numInputs(); ++k)
      dims.push_back(ctx.input(k).dims());
    Status why;
    const Compiled *c = specs_.get(
        *def_, dims,
        [](const ir::FunctionDef &body) -> Expected<std::unique_ptr<Compiled>> {
          SLUICE_ASSIGN_OR_RETURN(ElementProgram program, buildElementProgram(body));
          SLUICE_ASSIGN_OR_RETURN(std::vector<KernelFn> fns, Engine::get().kernel(program));
          ++specializedCount;
          return std::make_unique<Compiled>(Compiled{std::move(program), std::move(fns)});
        },
        &why);
    if (c)
      return c;
    std::lock_guard<std::mutex> lock(mu_);
    if (!why.isOk()) {
      ++interpretedCount;
      jitLog("interpreting " + def_->name + " for " + shapesText(dims) + ": " + why.message());
    }
    if (!interp_) {
      auto in = FusedInterpreter::create(def_, kernelRegistry());
      if (!in.hasValue()) {
        ctx.fail(in.takeStatus());
        *failed = true;
        return nullptr;
      }
      interp_ = std::move(*in);
    }
    return nullptr;
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
    jitLog("interpreting " + (*def)->name + ": " + why.message());
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
  ShapeCache<Compiled> specs_;
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
