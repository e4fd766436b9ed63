// backend/cpu/math_unary_kernels.cc: CPU kernels for the unary elementwise
// math ops and cast.
#include <cmath>
#include <limits>

#include "backend/cpu/math_util.h"

namespace sluice::backend {

namespace {

using math::kIsFloat;
using math::kIsInt;

template <typename T>
constexpr bool kIsNum = kIsFloat<T> || kIsInt<T>;

#define SLUICE_UNARY_OP(Name, Supports, Expr)                                  \
  struct Name {                                                                \
    template <typename T> static constexpr bool supports = Supports;           \
    template <typename C> static C apply(C a) { return Expr; }                 \
  };
SLUICE_UNARY_OP(NegativeOp, kIsNum<T>, math::wrapNeg(a))
SLUICE_UNARY_OP(SquareOp, kIsNum<T>, math::wrapMul(a, a))
SLUICE_UNARY_OP(SqrtOp, kIsFloat<T>, std::sqrt(a))
SLUICE_UNARY_OP(RsqrtOp, kIsFloat<T>, C(1) / std::sqrt(a))
SLUICE_UNARY_OP(ExpOp, kIsFloat<T>, std::exp(a))
SLUICE_UNARY_OP(LogOp, kIsFloat<T>, std::log(a))
SLUICE_UNARY_OP(TanhOp, kIsFloat<T>, std::tanh(a))
SLUICE_UNARY_OP(FloorOp, kIsFloat<T>, std::floor(a))
SLUICE_UNARY_OP(CeilOp, kIsFloat<T>, std::ceil(a))
// NaN passes through relu, as in TF.
SLUICE_UNARY_OP(ReluOp, kIsNum<T>, a < C(0) ? C(0) : a)
SLUICE_UNARY_OP(LogicalNotOp, (std::is_same_v<T, bool>), !a)
#undef SLUICE_UNARY_OP

struct AbsOp {
  template <typename T> static constexpr bool supports = kIsNum<T>;
  template <typename C> static C apply(C a) {
    if constexpr (kIsFloat<C>)
      return std::abs(a);
    else if constexpr (std::is_signed_v<C>)
      return a < 0 ? math::wrapNeg(a) : a; // abs(INT_MIN) wraps, as in TF
    else
      return a;
  }
};

// Split by sign so exp never overflows.
struct SigmoidOp {
  template <typename T> static constexpr bool supports = kIsFloat<T>;
  template <typename C> static C apply(C a) {
    if (a >= 0)
      return C(1) / (C(1) + std::exp(-a));
    C e = std::exp(a);
    return e / (C(1) + e);
  }
};

struct SignOp {
  template <typename T> static constexpr bool supports = kIsNum<T>;
  template <typename C> static C apply(C a) {
    if constexpr (kIsFloat<C>)
      if (std::isnan(a))
        return a;
    return a > C(0) ? C(1) : (a < C(0) ? C(-1) : C(0));
  }
};

// TF rounds half to even; nearbyint does so in the default rounding mode.
struct RoundOp {
  template <typename T> static constexpr bool supports = kIsNum<T>;
  template <typename C> static C apply(C a) {
    if constexpr (kIsFloat<C>)
      return std::nearbyint(a);
    else
      return a;
  }
};

template <typename Op> class UnaryKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    const ir::Tensor &x = ctx.input(0);
    bool handled = false;
    ir::dispatchPod(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (Op::template supports<T>) {
        handled = true;
        ir::Tensor &out = ctx.allocateOutput(0, x.dtype(), x.dims());
        const T *in = x.data<T>();
        T *o = out.data<T>();
        int64_t n = x.numElements();
        for (int64_t i = 0; i < n; ++i)
          o[i] = math::store<T>(Op::apply(math::load(in[i])));
      }
    });
    if (!handled)
      ctx.fail(unimplemented(node().opName() + " does not support dtype " +
                             std::string(ir::dtypeName(x.dtype()))));
  }
};

/// One element of cast. Float to int truncates toward zero like TF;
/// values beyond the target range saturate and NaN becomes 0, where C++
/// leaves the conversion undefined.
template <typename D, typename S> D castValue(const S &s) {
  auto v = math::load(s);
  if constexpr (std::is_same_v<D, bool>) {
    return v != 0;
  } else if constexpr (kIsInt<D> && kIsFloat<S>) {
    double d = static_cast<double>(v);
    if (std::isnan(d))
      return 0;
    d = std::trunc(d);
    if (d <= static_cast<double>(std::numeric_limits<D>::min()))
      return std::numeric_limits<D>::min();
    if (d >= static_cast<double>(std::numeric_limits<D>::max()))
      return std::numeric_limits<D>::max();
    return static_cast<D>(d);
  } else {
    return math::store<D>(v);
  }
}

class CastKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    const ir::Tensor &x = ctx.input(0);
    ir::DType dst = node().attr<ir::DType>("dtype");
    if (x.dtype() == dst) {
      ctx.setOutput(0, x);
      return;
    }
    bool handled = false;
    ir::dispatchPod(x.dtype(), [&](auto srcTag) {
      using S = decltype(srcTag);
      ir::dispatchPod(dst, [&](auto dstTag) {
        using D = decltype(dstTag);
        handled = true;
        ir::Tensor &out = ctx.allocateOutput(0, dst, x.dims());
        const S *in = x.data<S>();
        D *o = out.data<D>();
        int64_t n = x.numElements();
        for (int64_t i = 0; i < n; ++i)
          o[i] = castValue<D>(in[i]);
      });
    });
    if (!handled)
      ctx.fail(unimplemented("cannot cast " +
                             std::string(ir::dtypeName(x.dtype())) + " to " +
                             std::string(ir::dtypeName(dst))));
  }
};

} // namespace

void registerMathUnaryKernels(KernelRegistry &reg) {
  reg.addSimple<UnaryKernel<NegativeOp>>("negative");
  reg.addSimple<UnaryKernel<AbsOp>>("abs");
  reg.addSimple<UnaryKernel<SquareOp>>("square");
  reg.addSimple<UnaryKernel<SqrtOp>>("sqrt");
  reg.addSimple<UnaryKernel<RsqrtOp>>("rsqrt");
  reg.addSimple<UnaryKernel<ExpOp>>("exp");
  reg.addSimple<UnaryKernel<LogOp>>("log");
  reg.addSimple<UnaryKernel<SigmoidOp>>("sigmoid");
  reg.addSimple<UnaryKernel<TanhOp>>("tanh");
  reg.addSimple<UnaryKernel<ReluOp>>("relu");
  reg.addSimple<UnaryKernel<SignOp>>("sign");
  reg.addSimple<UnaryKernel<FloorOp>>("floor");
  reg.addSimple<UnaryKernel<CeilOp>>("ceil");
  reg.addSimple<UnaryKernel<RoundOp>>("round");
  reg.addSimple<UnaryKernel<LogicalNotOp>>("logical_not");
  reg.addSimple<CastKernel>("cast");
}

} // namespace sluice::backend
