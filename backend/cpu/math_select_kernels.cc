// backend/cpu/math_select_kernels.cc: CPU kernels for add_n, select
// (tf.where with x and y) and where (coordinates of true elements).
#include <string>

#include "backend/cpu/math_util.h"

namespace sluice::backend {

namespace {

using math::kIsFloat;
using math::kIsInt;

class AddNKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    int n = ctx.numInputs();
    const ir::Tensor &first = ctx.input(0);
    for (int k = 1; k < n; ++k)
      if (ctx.input(k).dims() != first.dims()) {
        ctx.fail(invalidArgument(
            "Inputs to add_n must have the same shape, but input 0 is " +
            ir::dimsString(first.dims()) + " and input " + std::to_string(k) +
            " is " + ir::dimsString(ctx.input(k).dims())));
        return;
      }
    if (n == 1) {
      ctx.setOutput(0, first);
      return;
    }
    bool handled = false;
    ir::dispatchPod(first.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (kIsFloat<T> || kIsInt<T>) {
        handled = true;
        std::vector<const T *> ins(n);
        for (int k = 0; k < n; ++k)
          ins[k] = ctx.input(k).template data<T>();
        ir::Tensor &out = ctx.allocateOutput(0, first.dtype(), first.dims());
        T *o = out.data<T>();
        int64_t count = first.numElements();
        // Pairwise passes over whole arrays vectorize; f16 sums in float.
        if constexpr (std::is_same_v<T, ir::Half>) {
          for (int64_t i = 0; i < count; ++i) {
            float acc = 0;
            for (int k = 0; k < n; ++k)
              acc += static_cast<float>(ins[k][i]);
            o[i] = ir::Half(acc);
          }
        } else {
          for (int64_t i = 0; i < count; ++i)
            o[i] = math::wrapAdd(ins[0][i], ins[1][i]);
          for (int k = 2; k < n; ++k)
            for (int64_t i = 0; i < count; ++i)
              o[i] = math::wrapAdd(o[i], ins[k][i]);
        }
      }
    });
    if (!handled)
      ctx.fail(unimplemented("add_n does not support dtype " +
                             std::string(ir::dtypeName(first.dtype()))));
  }
};

class SelectKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    const ir::Tensor &c = ctx.input(0), &x = ctx.input(1), &y = ctx.input(2);
    auto xy = math::planBroadcast<2>({&x.dims(), &y.dims()});
    if (!xy) {
      ctx.fail(xy.takeStatus());
      return;
    }
    // TF1's Select: a vector condition picks whole rows of x or y.
    ir::Dims cdims = c.dims();
    if (c.rank() == 1 && xy->out.size() > 1 && c.dim(0) == xy->out[0]) {
      cdims.assign(xy->out.size(), 1);
      cdims[0] = c.dim(0);
    }
    if (auto check = math::planBroadcast<2>({&cdims, &xy->out}); !check) {
      ctx.fail(invalidArgument("Incompatible shapes: " +
                               ir::dimsString(c.dims()) + " vs. " +
                               ir::dimsString(xy->out)));
      return;
    }
    auto plan = math::planBroadcast<3>({&cdims, &x.dims(), &y.dims()});
    if (!plan) {
      ctx.fail(plan.takeStatus());
      return;
    }
    auto run = [&](auto tag) {
      using T = decltype(tag);
      ir::Tensor &out = ctx.allocateOutput(0, x.dtype(), plan->out);
      const bool *pc = c.data<bool>();
      const T *px = math::elems<T>(x), *py = math::elems<T>(y);
      T *po = math::elems<T>(out);
      math::forEachRun(*plan, [&](const std::array<int64_t, 3> &off,
                                  int64_t oo, int64_t n,
                                  const std::array<int64_t, 3> &s) {
        for (int64_t i = 0; i < n; ++i)
          po[oo + i] = pc[off[0] + i * s[0]] ? px[off[1] + i * s[1]]
                                             : py[off[2] + i * s[2]];
      });
    };
    if (x.dtype() == ir::DType::kString)
      run(std::string{});
    else if (!ir::dispatchPod(x.dtype(), run))
      ctx.fail(unimplemented("select does not support dtype " +
                             std::string(ir::dtypeName(x.dtype()))));
  }
};

class WhereKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    const ir::Tensor &c = ctx.input(0);
    std::vector<int64_t> hits;
    bool handled = ir::dispatchPod(c.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *p = c.data<T>();
      for (int64_t i = 0; i < c.numElements(); ++i)
        if (math::load(p[i]) != 0)
          hits.push_back(i);
    });
    if (!handled) {
      ctx.fail(unimplemented("where does not support dtype " +
                             std::string(ir::dtypeName(c.dtype()))));
      return;
    }
    int rank = c.rank();
    ir::Tensor &out = ctx.allocateOutput(
        0, ir::DType::kI64, {static_cast<int64_t>(hits.size()), rank});
    int64_t *o = out.data<int64_t>();
    for (size_t h = 0; h < hits.size(); ++h) {
      int64_t flat = hits[h];
      for (int d = rank - 1; d >= 0; --d) {
        o[h * rank + d] = flat % c.dim(d);
        flat /= c.dim(d);
      }
    }
  }
};

} // namespace

void registerMathSelectKernels(KernelRegistry &reg) {
  reg.addSimple<AddNKernel>("add_n");
  reg.addSimple<SelectKernel>("select");
  reg.addSimple<WhereKernel>("where");
}

} // namespace sluice::backend
