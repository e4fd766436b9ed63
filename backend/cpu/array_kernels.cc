// backend/cpu/array_kernels.cc: CPU kernels for array ops that build or
// reshape tensors. Slicing and joining kernels are in
// array_slice_kernels.cc. Reshapes share the input's buffer.
#include <cmath>
#include <cstdlib>

#include "backend/cpu/array_copy.h"
#include "backend/kernel_registry.h"
#include "ir/ops/array_shapes.h"

namespace sluice::backend {

void registerArraySliceKernels(KernelRegistry &reg);

namespace {

using ir::DType;
using ir::Tensor;

template <typename T> T fromDouble(double v) {
  if constexpr (std::is_same_v<T, ir::Half>)
    return ir::Half(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// Sets every element of `t` to `v` (numeric, bool) converted to its dtype.
void fillWith(Tensor &t, double v) {
  ir::dispatchPod(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::fill_n(t.data<T>(), t.numElements(), fromDouble<T>(v));
  });
}

Expected<ir::Dims> readDims(const Tensor &t, const char *what) {
  if (t.rank() != 1)
    return invalidArgument(std::string(what) + " must be a vector, got shape " +
                           ir::dimsString(t.dims()));
  SLUICE_ASSIGN_OR_RETURN(auto dims, readIntVector(t, what));
  for (int64_t d : dims)
    if (d < 0)
      return invalidArgument("Dimension " + std::to_string(d) +
                             " must be >= 0");
  return dims;
}

class ConstantKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    ctx.setOutput(0, node().attr<Tensor>("value"));
  }
};

class PlaceholderKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    // TF names the shape only when its rank is known and non-zero.
    std::string msg = "You must feed a value for placeholder tensor '" +
                      node().name() + "' with dtype " +
                      std::string(ir::dtypeTfName(node().outputType(0)));
    if (node().hasAttr("shape") && node().attr<ir::Shape>("shape").rank() > 0)
      msg += " and shape " + node().attr<ir::Shape>("shape").str();
    ctx.fail(invalidArgument(msg));
  }
};

class IdentityKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override { ctx.setOutput(0, ctx.input(0)); }
};

class ReshapeKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0), &shape = ctx.input(1);
    if (shape.rank() != 1)
      return ctx.fail(invalidArgument("sizes input must be 1-D, not shape " +
                                      ir::dimsString(shape.dims())));
    auto requested = readIntVector(shape, "shape");
    if (!requested)
      return ctx.fail(requested.takeStatus());
    auto dims = ir::reshapeDims(in.numElements(), *requested);
    if (!dims)
      return ctx.fail(dims.takeStatus());
    ctx.setOutput(0, in.reshaped(*dims));
  }
};

class ExpandDimsKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    int64_t axis = node().attr<int64_t>("axis");
    auto ax = ir::canonicalAxis(axis, in.rank() + 1);
    if (!ax)
      return ctx.fail(invalidArgument(
          "Tried to expand dim index " + std::to_string(axis) +
          " for tensor with " + std::to_string(in.rank()) + " dimensions."));
    ir::Dims dims = in.dims();
    dims.insert(dims.begin() + *ax, 1);
    ctx.setOutput(0, in.reshaped(dims));
  }
};

class SqueezeKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    const ir::DimList *axes =
        node().hasAttr("axis") ? &node().attr<std::vector<int64_t>>("axis")
                               : nullptr;
    auto dims = ir::squeezeDims(in.dims(), axes);
    if (!dims)
      return ctx.fail(dims.takeStatus());
    ctx.setOutput(0, in.reshaped(**dims));
  }
};

class TransposeKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    int64_t rank = in.rank();
    std::vector<int64_t> perm;
    if (node().hasAttr("perm")) {
      perm = node().attr<std::vector<int64_t>>("perm");
    } else {
      for (int64_t i = rank - 1; i >= 0; --i)
        perm.push_back(i);
    }
    if (Status s = ir::checkPermutation(perm, rank); !s.isOk())
      return ctx.fail(std::move(s));
    std::vector<int64_t> inStrides = rowMajorStrides(in.dims());
    ir::Dims outDims;
    std::vector<int64_t> strides;
    bool identity = true;
    for (int64_t k = 0; k < rank; ++k) {
      outDims.push_back(in.dim(static_cast<int>(perm[k])));
      strides.push_back(inStrides[perm[k]]);
      identity = identity && perm[k] == k;
    }
    if (identity)
      return ctx.setOutput(0, in);
    Tensor &out = ctx.allocateOutput(0, in.dtype(), outDims);
    stridedCopy(in, 0, outDims, strides, out);
  }
};

class ShapeKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    Tensor &out = ctx.allocateOutput(0, node().outputType(0), {in.rank()});
    for (int i = 0; i < in.rank(); ++i)
      ir::dispatchPod(out.dtype(), [&](auto tag) {
        using T = decltype(tag);
        out.data<T>()[i] = static_cast<T>(in.dim(i));
      });
  }
};

class SizeKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    Tensor out(node().outputType(0), {});
    fillWith(out, static_cast<double>(ctx.input(0).numElements()));
    ctx.setOutput(0, out);
  }
};

class RankKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    ctx.setOutput(0, Tensor::scalar<int32_t>(ctx.input(0).rank()));
  }
};

class FillKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &value = ctx.input(1);
    if (value.rank() != 0)
      return ctx.fail(invalidArgument("value must be a scalar, got shape " +
                                      ir::dimsString(value.dims())));
    auto dims = readDims(ctx.input(0), "dims");
    if (!dims)
      return ctx.fail(dims.takeStatus());
    Tensor &out = ctx.allocateOutput(0, value.dtype(), *dims);
    dispatchElem(value.dtype(), [&](auto tag) {
      using E = decltype(tag);
      std::fill_n(elems<E>(out), out.numElements(), elems<E>(value)[0]);
    });
  }
};

// zeros, ones (from a shape input) and zeros_like, ones_like.
template <int kValue, bool kLike> class ConstFillKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    ir::Dims dims;
    if (kLike) {
      dims = ctx.input(0).dims();
    } else {
      auto d = readDims(ctx.input(0), "shape");
      if (!d)
        return ctx.fail(d.takeStatus());
      dims = std::move(*d);
    }
    Tensor out(node().outputType(0), std::move(dims)); // zeroed, "" strings
    if (kValue != 0)
      fillWith(out, kValue);
    ctx.setOutput(0, std::move(out));
  }
};

class RangeKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const char *names[] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; ++i)
      if (ctx.input(i).rank() != 0)
        return ctx.fail(invalidArgument(
            std::string(names[i]) + " must be a scalar, not shape " +
            ir::dimsString(ctx.input(i).dims())));
    const Tensor &ts = ctx.input(0), &tl = ctx.input(1), &td = ctx.input(2);
    double start = ts.elementAsDouble(0), limit = tl.elementAsDouble(0),
           delta = td.elementAsDouble(0);
    auto bounds = ir::formatElement(ts, 0) + "/" + ir::formatElement(tl, 0);
    if (delta == 0)
      return ctx.fail(invalidArgument("Requires delta != 0: " +
                                      ir::formatElement(td, 0)));
    if (delta > 0 && start > limit)
      return ctx.fail(invalidArgument(
          "Requires start <= limit when delta > 0: " + bounds));
    if (delta < 0 && start < limit)
      return ctx.fail(invalidArgument(
          "Requires start >= limit when delta < 0: " + bounds));
    DType t = ts.dtype();
    if (ir::isInteger(t)) {
      int64_t s = ts.elementAsInt(0), l = tl.elementAsInt(0),
              d = td.elementAsInt(0);
      int64_t n = (std::abs(l - s) + std::abs(d) - 1) / std::abs(d);
      Tensor &out = ctx.allocateOutput(0, t, {n});
      ir::dispatchPod(t, [&](auto tag) {
        using T = decltype(tag);
        for (int64_t i = 0; i < n; ++i)
          out.data<T>()[i] = static_cast<T>(s + i * d);
      });
      return;
    }
    int64_t n = static_cast<int64_t>(std::ceil(std::abs((limit - start) / delta)));
    Tensor &out = ctx.allocateOutput(0, t, {n});
    // TF accumulates (val += delta), which fixes the rounding of each step.
    ir::dispatchPod(t, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        T val = static_cast<T>(start), step = static_cast<T>(delta);
        for (int64_t i = 0; i < n; ++i, val += step)
          out.data<T>()[i] = val;
      }
    });
  }
};

class OneHotKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &indices = ctx.input(0);
    int64_t depth = node().attr<int64_t>("depth");
    int64_t axis = node().attr<int64_t>("axis");
    if (depth < 0)
      return ctx.fail(invalidArgument("depth must be non-negative, got: " +
                                      std::to_string(depth)));
    int64_t rank = indices.rank();
    if (axis != -1 && (axis < 0 || axis > rank))
      return ctx.fail(invalidArgument(
          "Expected axis to be -1 or between [0, " + std::to_string(rank + 1) +
          ").  But received: " + std::to_string(axis)));
    if (axis == -1)
      axis = rank;
    ir::Dims dims = indices.dims();
    dims.insert(dims.begin() + axis, depth);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i)
      (i < axis ? outer : inner) *= indices.dim(static_cast<int>(i));
    Tensor &out = ctx.allocateOutput(0, node().outputType(0), dims);
    double on = node().attr<double>("on_value"),
           off = node().attr<double>("off_value");
    auto idx = readIntVector(indices.reshaped({indices.numElements()}),
                             "indices");
    ir::dispatchPod(out.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T onV = fromDouble<T>(on), offV = fromDouble<T>(off);
      T *o = out.data<T>();
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t d = 0; d < depth; ++d)
          for (int64_t s = 0; s < inner; ++s)
            *o++ = (*idx)[a * inner + s] == d ? onV : offV;
    });
  }
};

class TileKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    const auto &m = node().attr<std::vector<int64_t>>("multiples");
    if (static_cast<int>(m.size()) != in.rank())
      return ctx.fail(invalidArgument(
          "Expected multiples argument to be a vector of length " +
          std::to_string(in.rank()) + " but got length " +
          std::to_string(m.size())));
    ir::Dims outDims, viewDims;
    std::vector<int64_t> viewStrides;
    std::vector<int64_t> inStrides = rowMajorStrides(in.dims());
    for (int i = 0; i < in.rank(); ++i) {
      if (m[i] < 0)
        return ctx.fail(invalidArgument("Expected multiples[" +
                                        std::to_string(i) + "] >= 0, but got " +
                                        std::to_string(m[i])));
      outDims.push_back(in.dim(i) * m[i]);
      // The output, seen as [m0, d0, m1, d1, ...], reads the input with
      // stride 0 along each repeat dim.
      viewDims.insert(viewDims.end(), {m[i], in.dim(i)});
      viewStrides.insert(viewStrides.end(), {0, inStrides[i]});
    }
    Tensor &out = ctx.allocateOutput(0, in.dtype(), outDims);
    if (out.numElements() > 0)
      stridedCopy(in, 0, viewDims, viewStrides, out);
  }
};

} // namespace

void registerArrayKernels(KernelRegistry &reg) {
  reg.addSimple<ConstantKernel>("constant");
  reg.addSimple<PlaceholderKernel>("placeholder");
  reg.addSimple<IdentityKernel>("placeholder_with_default");
  reg.addSimple<IdentityKernel>("identity");
  reg.addSimple<ReshapeKernel>("reshape");
  reg.addSimple<ExpandDimsKernel>("expand_dims");
  reg.addSimple<SqueezeKernel>("squeeze");
  reg.addSimple<TransposeKernel>("transpose");
  reg.addSimple<ShapeKernel>("shape");
  reg.addSimple<SizeKernel>("size");
  reg.addSimple<RankKernel>("rank");
  reg.addSimple<FillKernel>("fill");
  reg.addSimple<ConstFillKernel<0, false>>("zeros");
  reg.addSimple<ConstFillKernel<1, false>>("ones");
  reg.addSimple<ConstFillKernel<0, true>>("zeros_like");
  reg.addSimple<ConstFillKernel<1, true>>("ones_like");
  reg.addSimple<RangeKernel>("range");
  reg.addSimple<OneHotKernel>("one_hot");
  reg.addSimple<TileKernel>("tile");
  registerArraySliceKernels(reg);
}

} // namespace sluice::backend
