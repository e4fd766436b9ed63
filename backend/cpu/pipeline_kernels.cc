// backend/cpu/pipeline_kernels.cc: count_up_to, random_shuffle and assert.
#include <mutex>
#include <random>

#include "backend/cpu/random_state.h"
#include "backend/kernel_registry.h"
#include "backend/variable.h"

namespace sluice::backend {

namespace {

class CountUpToKernel : public OpKernel {
public:
  explicit CountUpToKernel(const ir::Node &n)
      : OpKernel(n), limit_(n.attr<int64_t>("limit")) {}

  void compute(KernelContext &ctx) override {
    auto var = lookupVariable(ctx, 0);
    if (!var.hasValue())
      return ctx.fail(var.takeStatus());
    Variable &v = **var;
    std::lock_guard<std::mutex> lock(v.mu);
    if (!v.initialized)
      return ctx.fail(failedPrecondition("Attempting to use uninitialized value " + v.name()));
    if (v.value.rank() != 0 || !ir::isInteger(v.value.dtype()))
      return ctx.fail(invalidArgument("count_up_to needs a scalar integer variable"));
    int64_t before = v.value.elementAsInt(0);
    if (before >= limit_)
      return ctx.fail(outOfRange("Reached limit of " + std::to_string(limit_)));
    if (!v.value.isSoleOwner())
      v.value = v.value.deepCopy();
    ir::Tensor out = ir::Tensor::uninitialized(v.value.dtype(), {});
    if (v.value.dtype() == ir::DType::kI32) {
      *out.data<int32_t>() = static_cast<int32_t>(before);
      *v.value.data<int32_t>() = static_cast<int32_t>(before + 1);
    } else {
      *out.data<int64_t>() = before;
      *v.value.data<int64_t>() = before + 1;
    }
    ctx.setOutput(0, out);
  }

private:
  int64_t limit_;
};

class RandomShuffleKernel : public OpKernel {
public:
  explicit RandomShuffleKernel(const ir::Node &n) : OpKernel(n), states_(n) {}

  void compute(KernelContext &ctx) override {
    const ir::Tensor &in = ctx.input(0);
    if (in.rank() == 0 || in.dim(0) <= 1) {
      ctx.setOutput(0, in);
      return;
    }
    std::shared_ptr<RandomState> state = states_.get(ctx);
    if (!state)
      return;
    int64_t rows = in.dim(0);
    std::vector<int64_t> perm(rows);
    for (int64_t i = 0; i < rows; ++i)
      perm[i] = i;
    {
      // Fisher-Yates with our own index draws, so a seed gives the same
      // order with any standard library.
      std::lock_guard<std::mutex> lock(state->mu);
      std::mt19937_64 &engine = state->engine();
      for (int64_t i = rows - 1; i > 0; --i)
        std::swap(perm[i], perm[engine() % static_cast<uint64_t>(i + 1)]);
    }
    ir::Tensor out = ir::Tensor::uninitialized(in.dtype(), in.dims());
    int64_t rowElems = in.numElements() / rows;
    if (ir::isPod(in.dtype())) {
      size_t rowBytes = rowElems * ir::dtypeSize(in.dtype());
      const char *src = static_cast<const char *>(in.rawData());
      char *dst = static_cast<char *>(out.rawData());
      for (int64_t i = 0; i < rows; ++i)
        std::memcpy(dst + i * rowBytes, src + perm[i] * rowBytes, rowBytes);
    } else {
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t k = 0; k < rowElems; ++k)
          out.strings()[i * rowElems + k] = in.strings()[perm[i] * rowElems + k];
    }
    ctx.setOutput(0, out);
  }

private:
  // In the session's resources, so a plan compiled again (the graph grew)
  // continues the stream instead of repeating the first permutation.
  RandomStateSource states_;
};

class AssertKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const ir::Tensor &c = ctx.input(0);
    if (c.numElements() != 1)
      return ctx.fail(invalidArgument("In[0] is not a scalar: " + ir::dimsString(c.dims())));
    if (c.data<bool>()[0])
      return;
    int64_t summarize = node().attr<int64_t>("summarize");
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx.numInputs(); ++i) {
      const ir::Tensor &t = ctx.input(i);
      msg += "[";
      for (int64_t k = 0; k < std::min<int64_t>(t.numElements(), summarize); ++k)
        msg += (k ? " " : "") + ir::formatElement(t, k);
      if (t.numElements() > summarize)
        msg += "...";
      msg += "] ";
    }
    ctx.fail(invalidArgument(msg));
  }
};

} // namespace

void registerPipelineKernels(KernelRegistry &reg) {
  reg.addSimple<CountUpToKernel>("count_up_to");
  reg.addSimple<RandomShuffleKernel>("random_shuffle");
  reg.addSimple<AssertKernel>("assert");
}

} // namespace sluice::backend
