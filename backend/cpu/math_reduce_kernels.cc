// backend/cpu/math_reduce_kernels.cc: CPU kernels for reductions,
// argmax/argmin and softmax/log_softmax.
#include <cmath>
#include <limits>
#include <memory>

#include "backend/cpu/math_util.h"

namespace sluice::backend {

namespace {

using math::kIsFloat;
using math::kIsInt;

template <typename T>
constexpr bool kIsNum = kIsFloat<T> || kIsInt<T>;

/// Accumulators: double for floats (f16/f32 sums stay accurate), int64 for
/// ints (sums and products wrap to T's width exactly when stored; means
/// see the true sum), bool for bool.
template <typename T>
using Acc = std::conditional_t<kIsFloat<T>, double,
                               std::conditional_t<kIsInt<T>, int64_t, bool>>;

struct SumR {
  template <typename T> static constexpr bool supports = kIsNum<T>;
  static constexpr bool kMean = false;
  template <typename T> static Acc<T> identity() { return 0; }
  template <typename A> static void combine(A &acc, A x) {
    acc = math::wrapAdd(acc, x);
  }
};
struct MeanR : SumR {
  static constexpr bool kMean = true;
};
struct ProdR : SumR {
  template <typename T> static Acc<T> identity() { return 1; }
  template <typename A> static void combine(A &acc, A x) {
    acc = math::wrapMul(acc, x);
  }
};
// Max and min propagate NaN, and reduce nothing to T's lowest/highest.
struct MaxR : SumR {
  template <typename T> static Acc<T> identity() {
    if constexpr (kIsFloat<T>)
      return -std::numeric_limits<double>::infinity();
    else
      return std::numeric_limits<T>::lowest();
  }
  template <typename A> static void combine(A &acc, A x) {
    if (x > acc || (kIsFloat<A> && x != x))
      acc = x;
  }
};
struct MinR : SumR {
  template <typename T> static Acc<T> identity() {
    if constexpr (kIsFloat<T>)
      return std::numeric_limits<double>::infinity();
    else
      return std::numeric_limits<T>::max();
  }
  template <typename A> static void combine(A &acc, A x) {
    if (x < acc || (kIsFloat<A> && x != x))
      acc = x;
  }
};
struct AnyR : SumR {
  template <typename T> static constexpr bool supports = std::is_same_v<T, bool>;
  template <typename T> static Acc<T> identity() { return false; }
  static void combine(bool &acc, bool x) { acc = acc || x; }
};
struct AllR : AnyR {
  template <typename T> static Acc<T> identity() { return true; }
  static void combine(bool &acc, bool x) { acc = acc && x; }
};

/// Which input dims a reduction removes, and its output dims.
struct ReducePlan {
  std::vector<bool> reduced;
  ir::Dims outDims;
};

Expected<ReducePlan> planReduce(const ir::Node &node, const ir::Dims &dims) {
  int rank = static_cast<int>(dims.size());
  ReducePlan p;
  p.reduced.assign(rank, !node.hasAttr("axis"));
  if (node.hasAttr("axis")) {
    for (int64_t a : node.attr<std::vector<int64_t>>("axis")) {
      int64_t axis = a;
      if (!math::normalizeAxis(axis, rank))
        return invalidArgument("Invalid reduction dimension " +
                               std::to_string(a) + " for input with " +
                               std::to_string(rank) + " dimensions");
      p.reduced[axis] = true;
    }
  }
  bool keep = node.attr<bool>("keepdims");
  for (int i = 0; i < rank; ++i) {
    if (!p.reduced[i])
      p.outDims.push_back(dims[i]);
    else if (keep)
      p.outDims.push_back(1);
  }
  return p;
}

/// Folds `in` into `acc` (one slot per output element). Dims are collapsed
/// into alternating kept/reduced runs; the innermost run is a tight loop.
template <typename R, typename T, typename A>
void accumulate(const T *in, A *acc, const ir::Dims &dims,
                const std::vector<bool> &reduced) {
  std::vector<int64_t> shape;
  std::vector<bool> red;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1)
      continue;
    if (!red.empty() && red.back() == reduced[i]) {
      shape.back() *= dims[i];
    } else {
      shape.push_back(dims[i]);
      red.push_back(reduced[i]);
    }
  }
  int rank = static_cast<int>(shape.size());
  if (rank == 0) {
    R::combine(acc[0], static_cast<A>(math::load(in[0])));
    return;
  }
  std::vector<int64_t> outStride(rank, 0);
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    if (!red[i]) {
      outStride[i] = stride;
      stride *= shape[i];
    }
  }
  int64_t n = shape[rank - 1];
  bool innerReduced = red[rank - 1];
  std::vector<int64_t> idx(rank, 0);
  int64_t inOff = 0, outOff = 0;
  while (true) {
    const T *p = in + inOff;
    if (innerReduced) {
      // Four independent chains: the adds overlap instead of waiting on
      // one another (every combine here is associative).
      A part[4];
      for (A &q : part)
        q = R::template identity<T>();
      int64_t i = 0;
      for (; i + 4 <= n; i += 4)
        for (int j = 0; j < 4; ++j)
          R::combine(part[j], static_cast<A>(math::load(p[i + j])));
      for (; i < n; ++i)
        R::combine(part[0], static_cast<A>(math::load(p[i])));
      for (const A &q : part)
        R::combine(acc[outOff], q);
    } else {
      A *q = acc + outOff;
      for (int64_t i = 0; i < n; ++i)
        R::combine(q[i], static_cast<A>(math::load(p[i])));
    }
    inOff += n;
    int d = rank - 2;
    for (; d >= 0; --d) {
      outOff += outStride[d];
      if (++idx[d] < shape[d])
        break;
      outOff -= outStride[d] * shape[d];
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

template <typename R> class ReduceKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    const ir::Tensor &x = ctx.input(0);
    auto plan = planReduce(node(), x.dims());
    if (!plan) {
      ctx.fail(plan.takeStatus());
      return;
    }
    bool handled = false;
    ir::dispatchPod(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (R::template supports<T>) {
        handled = true;
        using A = Acc<T>;
        ir::Tensor &out = ctx.allocateOutput(0, x.dtype(), plan->outDims);
        int64_t outN = out.numElements();
        std::unique_ptr<A[]> acc(new A[outN]);
        for (int64_t i = 0; i < outN; ++i)
          acc[i] = R::template identity<T>();
        if (x.numElements() > 0)
          accumulate<R>(x.data<T>(), acc.get(), x.dims(), plan->reduced);
        int64_t count = outN ? x.numElements() / outN : 0;
        T *o = out.data<T>();
        for (int64_t i = 0; i < outN; ++i) {
          if constexpr (R::kMean && kIsFloat<T>)
            o[i] = math::store<T>(acc[i] / static_cast<double>(count));
          else if constexpr (R::kMean)
            o[i] = static_cast<T>(count ? acc[i] / count : 0);
          else
            o[i] = math::store<T>(acc[i]);
        }
      }
    });
    if (!handled)
      ctx.fail(unimplemented(node().opName() + " does not support dtype " +
                             std::string(ir::dtypeName(x.dtype()))));
  }
};

/// Sizes of the dims before, at and after `axis`.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisSplit splitAt(const ir::Dims &dims, int64_t axis) {
  AxisSplit s;
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i)
    (i < axis ? s.outer : i == axis ? s.n : s.inner) *= dims[i];
  return s;
}

Status axisError(int64_t axis, int rank) {
  return invalidArgument("Expected dimension in the range [" +
                         std::to_string(-rank) + ", " + std::to_string(rank) +
                         "), but got " + std::to_string(axis));
}

template <bool kMax> class ArgKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    const ir::Tensor &x = ctx.input(0);
    int64_t axis = node().attr<int64_t>("axis");
    if (!math::normalizeAxis(axis, x.rank())) {
      ctx.fail(axisError(node().attr<int64_t>("axis"), x.rank()));
      return;
    }
    ir::Dims outDims;
    for (int i = 0; i < x.rank(); ++i)
      if (i != axis)
        outDims.push_back(x.dim(i));
    AxisSplit s = splitAt(x.dims(), axis);
    if (s.n == 0 && s.outer * s.inner > 0) {
      ctx.fail(invalidArgument("Reduction axis " + std::to_string(axis) +
                               " is empty in shape " +
                               ir::dimsString(x.dims())));
      return;
    }
    ir::DType outType = node().attr<ir::DType>("output_type");
    ir::Tensor &out = ctx.allocateOutput(0, outType, outDims);
    bool handled = ir::dispatchPod(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (kIsNum<T>) {
        if (outType == ir::DType::kI32)
          run(x.data<T>(), s, out.data<int32_t>());
        else
          run(x.data<T>(), s, out.data<int64_t>());
      }
    });
    if (!handled || x.dtype() == ir::DType::kBool)
      ctx.fail(unimplemented(node().opName() + " does not support dtype " +
                             std::string(ir::dtypeName(x.dtype()))));
  }

private:
  // Walks the axis outermost so the inner dims are read contiguously.
  template <typename T, typename I>
  static void run(const T *in, const AxisSplit &s, I *out) {
    using C = math::Compute<T>;
    std::vector<C> best(s.inner);
    for (int64_t o = 0; o < s.outer; ++o) {
      const T *base = in + o * s.n * s.inner;
      I *ob = out + o * s.inner;
      for (int64_t j = 0; j < s.inner; ++j) {
        best[j] = math::load(base[j]);
        ob[j] = 0;
      }
      for (int64_t k = 1; k < s.n; ++k) {
        const T *row = base + k * s.inner;
        for (int64_t j = 0; j < s.inner; ++j) {
          C v = math::load(row[j]);
          if (kMax ? v > best[j] : v < best[j]) {
            best[j] = v;
            ob[j] = static_cast<I>(k);
          }
        }
      }
    }
  }
};

template <bool kLog> class SoftmaxKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    const ir::Tensor &x = ctx.input(0);
    if (x.rank() < 1) {
      ctx.fail(invalidArgument("Shape must be at least rank 1 but is rank 0"));
      return;
    }
    int64_t axis = node().attr<int64_t>("axis");
    if (!math::normalizeAxis(axis, x.rank())) {
      ctx.fail(axisError(node().attr<int64_t>("axis"), x.rank()));
      return;
    }
    AxisSplit s = splitAt(x.dims(), axis);
    ir::Tensor &out = ctx.allocateOutput(0, x.dtype(), x.dims());
    bool handled = false;
    ir::dispatchPod(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (kIsFloat<T>) {
        handled = true;
        for (int64_t o = 0; o < s.outer; ++o)
          for (int64_t j = 0; j < s.inner; ++j) {
            int64_t base = o * s.n * s.inner + j;
            row(x.data<T>() + base, out.data<T>() + base, s.n, s.inner);
          }
      }
    });
    if (!handled)
      ctx.fail(unimplemented(node().opName() + " does not support dtype " +
                             std::string(ir::dtypeName(x.dtype()))));
  }

private:
  // Subtracting the max keeps exp from overflowing.
  template <typename T>
  static void row(const T *in, T *out, int64_t n, int64_t stride) {
    using C = math::Compute<T>;
    if (n == 0)
      return;
    C mx = math::load(in[0]);
    for (int64_t i = 1; i < n; ++i)
      mx = std::max<C>(mx, math::load(in[i * stride]));
    C sum = 0;
    for (int64_t i = 0; i < n; ++i)
      sum += std::exp(math::load(in[i * stride]) - mx);
    if constexpr (kLog) {
      C logSum = std::log(sum);
      for (int64_t i = 0; i < n; ++i)
        out[i * stride] = math::store<T>(math::load(in[i * stride]) - mx - logSum);
    } else {
      for (int64_t i = 0; i < n; ++i)
        out[i * stride] =
            math::store<T>(std::exp(math::load(in[i * stride]) - mx) / sum);
    }
  }
};

} // namespace

void registerMathReduceKernels(KernelRegistry &reg) {
  reg.addSimple<ReduceKernel<SumR>>("reduce_sum");
  reg.addSimple<ReduceKernel<MeanR>>("reduce_mean");
  reg.addSimple<ReduceKernel<ProdR>>("reduce_prod");
  reg.addSimple<ReduceKernel<MaxR>>("reduce_max");
  reg.addSimple<ReduceKernel<MinR>>("reduce_min");
  reg.addSimple<ReduceKernel<AnyR>>("reduce_any");
  reg.addSimple<ReduceKernel<AllR>>("reduce_all");
  reg.addSimple<ArgKernel<true>>("argmax");
  reg.addSimple<ArgKernel<false>>("argmin");
  reg.addSimple<SoftmaxKernel<false>>("softmax");
  reg.addSimple<SoftmaxKernel<true>>("log_softmax");
}

} // namespace sluice::backend
