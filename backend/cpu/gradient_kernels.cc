// backend/cpu/gradient_kernels.cc: kernels of the ops gradient rules build
// (ir/ops/gradient_ops.cc).
#include <cmath>
#include <cstring>

#include "backend/cpu/array_copy.h"
#include "backend/cpu/math_util.h"
#include "ir/ops/array_strided_slice.h"

namespace sluice::backend {

namespace {

using ir::Tensor;
using math::Compute;
using math::load;
using math::store;

Expected<ir::Dims> dimsFrom(const Tensor &shape, const char *what) {
  if (shape.rank() != 1 || !ir::isInteger(shape.dtype()))
    return invalidArgument(std::string(what) + " must be a 1-D integer tensor, got shape " +
                           ir::dimsString(shape.dims()));
  ir::Dims d;
  for (int64_t i = 0; i < shape.numElements(); ++i) {
    int64_t v = shape.elementAsInt(i);
    if (v < 0)
      return invalidArgument(std::string(what) + " has a negative dim: " +
                             ir::dimsString(ir::Dims{v}));
    d.push_back(v);
  }
  return d;
}

// An output filled with zeros (allocateOutput leaves numbers uninitialized).
Tensor &zeroOutput(KernelContext &ctx, int i, ir::DType t, ir::Dims dims) {
  ctx.setOutput(i, Tensor(t, std::move(dims)));
  return ctx.output(i);
}

// Numbers (not bool or strings) with Half computing as float.
template <typename F> bool dispatchNumber(ir::DType t, F &&f) {
  switch (t) {
  case ir::DType::kF16: f(ir::Half{}); return true;
  case ir::DType::kF32: f(float{}); return true;
  case ir::DType::kF64: f(double{}); return true;
  case ir::DType::kI8: f(int8_t{}); return true;
  case ir::DType::kI16: f(int16_t{}); return true;
  case ir::DType::kI32: f(int32_t{}); return true;
  case ir::DType::kI64: f(int64_t{}); return true;
  case ir::DType::kU8: f(uint8_t{}); return true;
  default: return false;
  }
}

class BroadcastToKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    auto target = dimsFrom(ctx.input(1), "shape");
    if (!target.hasValue())
      return ctx.fail(target.takeStatus());
    auto plan = math::planBroadcast<2>({&in.dims(), &*target});
    if (!plan.hasValue() || plan->out != *target)
      return ctx.fail(invalidArgument("Unable to broadcast tensor of shape " +
                                      ir::dimsString(in.dims()) + " to tensor of shape " +
                                      ir::dimsString(*target)));
    if (in.dims() == *target)
      return ctx.setOutput(0, in);
    Tensor &out = ctx.allocateOutput(0, in.dtype(), *target);
    size_t sz = ir::dtypeSize(in.dtype());
    const auto *src = static_cast<const char *>(in.rawData());
    auto *dst = static_cast<char *>(out.rawData());
    math::forEachRun(*plan, [&](const std::array<int64_t, 2> &off, int64_t oo, int64_t n,
                                const std::array<int64_t, 2> &s) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(dst + (oo + i) * sz, src + (off[0] + i * s[0]) * sz, sz);
    });
  }
};

class SumToShapeKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &g = ctx.input(0);
    auto target = dimsFrom(ctx.input(1), "shape");
    if (!target.hasValue())
      return ctx.fail(target.takeStatus());
    if (g.dims() == *target)
      return ctx.setOutput(0, g);
    auto plan = math::planBroadcast<2>({&*target, &g.dims()});
    if (!plan.hasValue() || plan->out != g.dims())
      return ctx.fail(invalidArgument("sum_to_shape: shape " + ir::dimsString(*target) +
                                      " does not broadcast to " + ir::dimsString(g.dims())));
    Tensor &out = zeroOutput(ctx, 0, g.dtype(), *target);
    dispatchNumber(g.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = Compute<T>;
      const T *src = g.data<T>();
      T *dst = out.data<T>();
      math::forEachRun(*plan, [&](const std::array<int64_t, 2> &off, int64_t oo, int64_t n,
                                  const std::array<int64_t, 2> &s) {
        (void)oo;
        for (int64_t i = 0; i < n; ++i) {
          T &d = dst[off[0] + i * s[0]];
          d = store<T>(C(load(d)) + C(load(src[off[1] + i * s[1]])));
        }
      });
    });
  }
};

// relu_grad(g, features), sigmoid_grad(y, dy), tanh_grad(y, dy).
enum class Fused { kRelu, kSigmoid, kTanh };
template <Fused K> class FusedBackwardKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &a = ctx.input(0), &b = ctx.input(1);
    if (a.dims() != b.dims())
      return ctx.fail(invalidArgument(node().opName() + " needs inputs of one shape, got " +
                                      ir::dimsString(a.dims()) + " and " +
                                      ir::dimsString(b.dims())));
    Tensor &out = ctx.allocateOutput(0, a.dtype(), a.dims());
    dispatchNumber(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (math::kIsFloat<T>) {
        using C = Compute<T>;
        const T *x = a.data<T>(), *y = b.data<T>();
        T *o = out.data<T>();
        for (int64_t i = 0; i < a.numElements(); ++i) {
          C u = load(x[i]), v = load(y[i]);
          C r;
          if constexpr (K == Fused::kRelu)
            r = v > C(0) ? u : C(0); // (gradients, features)
          else if constexpr (K == Fused::kSigmoid)
            r = v * u * (C(1) - u); // (y, dy)
          else
            r = v * (C(1) - u * u);
          o[i] = store<T>(r);
        }
      }
    });
  }
};

class PadKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0), &pads = ctx.input(1);
    int rank = in.rank();
    if (pads.rank() != 2 || pads.dim(0) != rank || pads.dim(1) != 2)
      return ctx.fail(invalidArgument("paddings must be a matrix with 2 columns and " +
                                      std::to_string(rank) + " rows, got " +
                                      ir::dimsString(pads.dims())));
    ir::Dims dims, before;
    for (int d = 0; d < rank; ++d) {
      int64_t lo = pads.elementAsInt(2 * d), hi = pads.elementAsInt(2 * d + 1);
      if (lo < 0 || hi < 0)
        return ctx.fail(invalidArgument("paddings must be non-negative: " +
                                        std::to_string(lo) + " " + std::to_string(hi)));
      before.push_back(lo);
      dims.push_back(in.dim(d) + lo + hi);
    }
    Tensor &out = zeroOutput(ctx, 0, in.dtype(), dims);
    if (in.numElements() == 0)
      return;
    // Copy x's innermost rows into place.
    size_t sz = ir::dtypeSize(in.dtype());
    int64_t inner = rank ? in.dim(rank - 1) : 1;
    std::vector<int64_t> outStrides(static_cast<size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d)
      outStrides[d] = outStrides[d + 1] * dims[d + 1];
    std::vector<int64_t> idx(static_cast<size_t>(std::max(rank - 1, 0)), 0);
    const auto *src = static_cast<const char *>(in.rawData());
    auto *dst = static_cast<char *>(out.rawData());
    for (int64_t row = 0; row < in.numElements() / std::max<int64_t>(inner, 1); ++row) {
      int64_t o = rank ? before[rank - 1] : 0;
      for (int d = 0; d < rank - 1; ++d)
        o += (idx[d] + before[d]) * outStrides[d];
      std::memcpy(dst + o * sz, src + row * inner * sz, inner * sz);
      for (int d = rank - 2; d >= 0; --d) {
        if (++idx[d] < in.dim(d))
          break;
        idx[d] = 0;
      }
    }
  }
};

class StridedSliceGradKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto shape = dimsFrom(ctx.input(0), "shape");
    if (!shape.hasValue())
      return ctx.fail(shape.takeStatus());
    const Tensor &dy = ctx.input(4);
    auto begin = readIntVector(ctx.input(1), "begin");
    auto end = readIntVector(ctx.input(2), "end");
    auto strides = readIntVector(ctx.input(3), "strides");
    if (!begin || !end || !strides)
      return ctx.fail(invalidArgument("begin, end and strides must be 1-D integer tensors"));
    const ir::Node &n = node();
    ir::StridedSliceMasks m{n.attr<int64_t>("begin_mask"), n.attr<int64_t>("end_mask"),
                            n.attr<int64_t>("ellipsis_mask"), n.attr<int64_t>("new_axis_mask"),
                            n.attr<int64_t>("shrink_axis_mask")};
    auto plan = ir::planStridedSlice(*shape, &*begin, &*end, &*strides,
                                     static_cast<int64_t>(begin->size()), m);
    if (!plan)
      return ctx.fail(plan.takeStatus());
    Tensor &out = zeroOutput(ctx, 0, dy.dtype(), *shape);
    int64_t count = 1;
    for (int64_t s : plan->size)
      count *= s;
    if (count != dy.numElements())
      return ctx.fail(invalidArgument("strided_slice_grad: dy has " +
                                      std::to_string(dy.numElements()) +
                                      " elements, the slice " + std::to_string(count)));
    if (count == 0)
      return;
    int rank = static_cast<int>(shape->size());
    std::vector<int64_t> strideOut(static_cast<size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d)
      strideOut[d] = strideOut[d + 1] * (*shape)[d + 1];
    size_t sz = ir::dtypeSize(dy.dtype());
    const auto *src = static_cast<const char *>(dy.rawData());
    auto *dst = static_cast<char *>(out.rawData());
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t e = 0; e < count; ++e) {
      int64_t o = 0;
      for (int d = 0; d < rank; ++d)
        o += (plan->begin[d] + idx[d] * plan->stride[d]) * strideOut[d];
      std::memcpy(dst + o * sz, src + e * sz, sz);
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < plan->size[d])
          break;
        idx[d] = 0;
      }
    }
  }
};

class GatherGradKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &g = ctx.input(0), &indices = ctx.input(1);
    auto params = dimsFrom(ctx.input(2), "params_shape");
    if (!params.hasValue())
      return ctx.fail(params.takeStatus());
    int64_t rank = static_cast<int64_t>(params->size());
    int64_t axis = node().attr<int64_t>("axis");
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return ctx.fail(invalidArgument("gather_grad: axis out of range"));
    int64_t outer = 1, inner = 1, limit = (*params)[axis];
    for (int64_t d = 0; d < axis; ++d)
      outer *= (*params)[d];
    for (int64_t d = axis + 1; d < rank; ++d)
      inner *= (*params)[d];
    int64_t n = indices.numElements();
    if (g.numElements() != outer * n * inner)
      return ctx.fail(invalidArgument("gather_grad: the gradient's shape " +
                                      ir::dimsString(g.dims()) + " does not match"));
    Tensor &out = zeroOutput(ctx, 0, g.dtype(), *params);
    auto idx = readIntVector(indices.reshaped({n}), "indices");
    for (int64_t i = 0; i < n; ++i)
      if ((*idx)[i] < 0 || (*idx)[i] >= limit)
        return ctx.fail(invalidArgument("gather_grad: index " + std::to_string((*idx)[i]) +
                                        " is not in [0, " + std::to_string(limit) + ")"));
    dispatchNumber(g.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = Compute<T>;
      const T *src = g.data<T>();
      T *dst = out.data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < n; ++i) {
          const T *row = src + (o * n + i) * inner;
          T *to = dst + (o * limit + (*idx)[i]) * inner;
          for (int64_t k = 0; k < inner; ++k)
            to[k] = store<T>(C(load(to[k])) + C(load(row[k])));
        }
    });
  }
};

class ReduceProdGradKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &x = ctx.input(0);
    int rank = x.rank();
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    for (int64_t a : node().attr<std::vector<int64_t>>("axis")) {
      if (a < 0)
        a += rank;
      if (a < 0 || a >= rank)
        return ctx.fail(invalidArgument("reduce_prod_grad: axis out of range"));
      reduced[static_cast<size_t>(a)] = true;
    }
    // Each element's group: its index with the reduced dims dropped.
    std::vector<int64_t> groupStride(static_cast<size_t>(rank), 0);
    int64_t groups = 1;
    for (int d = rank - 1; d >= 0; --d)
      if (!reduced[static_cast<size_t>(d)]) {
        groupStride[d] = groups;
        groups *= x.dim(d);
      }
    int64_t count = x.numElements();
    std::vector<int64_t> group(static_cast<size_t>(count));
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t e = 0; e < count; ++e) {
      int64_t gi = 0;
      for (int d = 0; d < rank; ++d)
        gi += idx[d] * groupStride[d];
      group[static_cast<size_t>(e)] = gi;
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < x.dim(d))
          break;
        idx[d] = 0;
      }
    }
    Tensor &out = ctx.allocateOutput(0, x.dtype(), x.dims());
    dispatchNumber(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = Compute<T>;
      const T *in = x.data<T>();
      // Per group: the product of the non-zero elements and the zero count,
      // so that the product of the others is exact even with zeros.
      std::vector<C> nonZero(static_cast<size_t>(groups), C(1));
      std::vector<int64_t> zeros(static_cast<size_t>(groups), 0);
      for (int64_t e = 0; e < count; ++e) {
        C v = load(in[e]);
        size_t gi = static_cast<size_t>(group[static_cast<size_t>(e)]);
        if (v == C(0))
          ++zeros[gi];
        else
          nonZero[gi] = nonZero[gi] * v;
      }
      T *o = out.data<T>();
      for (int64_t e = 0; e < count; ++e) {
        C v = load(in[e]);
        size_t gi = static_cast<size_t>(group[static_cast<size_t>(e)]);
        C r;
        if (zeros[gi] == 0)
          r = nonZero[gi] / v;
        else if (zeros[gi] == 1 && v == C(0))
          r = nonZero[gi];
        else
          r = C(0);
        o[e] = store<T>(r);
      }
    });
  }
};

class IdentityKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override { ctx.setOutput(0, ctx.input(0)); }
};

} // namespace

void registerGradientKernels(KernelRegistry &reg) {
  reg.addSimple<BroadcastToKernel>("broadcast_to");
  reg.addSimple<SumToShapeKernel>("sum_to_shape");
  reg.addSimple<FusedBackwardKernel<Fused::kRelu>>("relu_grad");
  reg.addSimple<FusedBackwardKernel<Fused::kSigmoid>>("sigmoid_grad");
  reg.addSimple<FusedBackwardKernel<Fused::kTanh>>("tanh_grad");
  reg.addSimple<PadKernel>("pad");
  reg.addSimple<StridedSliceGradKernel>("strided_slice_grad");
  reg.addSimple<GatherGradKernel>("gather_grad");
  reg.addSimple<ReduceProdGradKernel>("reduce_prod_grad");
  reg.addSimple<IdentityKernel>("stop_gradient");
}

} // namespace sluice::backend
