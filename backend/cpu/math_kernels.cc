// backend/cpu/math_kernels.cc: CPU kernels for the binary elementwise math
// ops (numpy broadcasting), and the math family's registration entry.
#include <cmath>
#include <string>

#include "backend/cpu/math_util.h"

namespace sluice::backend {

namespace {

using math::kIsFloat;
using math::kIsInt;

template <typename T>
constexpr bool kIsNum = kIsFloat<T> || kIsInt<T>;

struct NoCheck {
  template <typename T> static Status check(const T *, int64_t) {
    return Status::ok();
  }
};

/// Integer floor_div/mod by zero is an error in TF, not a crash.
struct IntDivCheck {
  template <typename T> static Status check(const T *b, int64_t n) {
    if constexpr (kIsInt<T>)
      for (int64_t i = 0; i < n; ++i)
        if (b[i] == 0)
          return invalidArgument("Integer division by zero");
    return Status::ok();
  }
};

struct SameOut {
  template <typename T> using Out = T;
};
struct BoolOut {
  template <typename T> using Out = bool;
};

#define SLUICE_ARITH_OP(Name, Expr)                                            \
  struct Name : NoCheck, SameOut {                                       \
    template <typename T> static constexpr bool supports = kIsNum<T>;          \
    template <typename T, typename C> static C apply(C a, C b) { return Expr; }\
  };
SLUICE_ARITH_OP(AddOp, math::wrapAdd(a, b))
SLUICE_ARITH_OP(SubOp, math::wrapSub(a, b))
SLUICE_ARITH_OP(MulOp, math::wrapMul(a, b))
SLUICE_ARITH_OP(SquaredDiffOp, math::wrapMul(math::wrapSub(a, b), math::wrapSub(a, b)))
#undef SLUICE_ARITH_OP

/// TF1's Python truediv table: small ints to f32, wide ints to f64.
template <typename T> struct TruedivOf { using type = T; };
template <> struct TruedivOf<int8_t> { using type = float; };
template <> struct TruedivOf<int16_t> { using type = float; };
template <> struct TruedivOf<uint8_t> { using type = float; };
template <> struct TruedivOf<int32_t> { using type = double; };
template <> struct TruedivOf<int64_t> { using type = double; };

struct DivideOp : NoCheck {
  template <typename T> static constexpr bool supports = kIsNum<T>;
  template <typename T> using Out = typename TruedivOf<T>::type;
  template <typename T, typename C> static auto apply(C a, C b) {
    using R = math::Compute<Out<T>>;
    return static_cast<R>(a) / static_cast<R>(b);
  }
};

struct FloorDivOp : IntDivCheck, SameOut {
  template <typename T> static constexpr bool supports = kIsNum<T>;
  template <typename T, typename C> static C apply(C a, C b) {
    if constexpr (kIsInt<C>) {
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) // avoids INT_MIN / -1 overflow
          return math::wrapNeg(a);
        C q = static_cast<C>(a / b);
        if ((a % b != 0) && ((a < 0) != (b < 0)))
          --q;
        return q;
      } else {
        return static_cast<C>(a / b);
      }
    } else {
      return std::floor(a / b);
    }
  }
};

/// Python's modulo (tf.math.floormod): the result has the divisor's sign.
struct ModOp : IntDivCheck, SameOut {
  template <typename T> static constexpr bool supports = kIsNum<T>;
  template <typename T, typename C> static C apply(C a, C b) {
    if constexpr (kIsInt<C>) {
      if constexpr (std::is_signed_v<C>) {
        if (b == -1)
          return 0;
        C r = static_cast<C>(a % b);
        if (r != 0 && ((r < 0) != (b < 0)))
          r = static_cast<C>(r + b);
        return r;
      } else {
        return static_cast<C>(a % b);
      }
    } else {
      C r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
      return r;
    }
  }
};

struct PowOp : SameOut {
  template <typename T> static constexpr bool supports = kIsNum<T>;
  template <typename T> static Status check(const T *b, int64_t n) {
    if constexpr (kIsInt<T> && std::is_signed_v<T>)
      for (int64_t i = 0; i < n; ++i)
        if (b[i] < 0)
          return invalidArgument(
              "Integers to negative integer powers are not allowed");
    return Status::ok();
  }
  template <typename T, typename C> static C apply(C a, C b) {
    if constexpr (kIsInt<C>) {
      C result = 1;
      while (b != 0) {
        if (b & 1)
          result = math::wrapMul(result, a);
        b = static_cast<C>(b >> 1);
        a = math::wrapMul(a, a);
      }
      return result;
    } else {
      return std::pow(a, b);
    }
  }
};

// TF propagates NaN through maximum/minimum.
struct MaximumOp : NoCheck, SameOut {
  template <typename T> static constexpr bool supports = kIsNum<T>;
  template <typename T, typename C> static C apply(C a, C b) {
    if constexpr (kIsFloat<C>)
      if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) ? a : b;
    return a < b ? b : a;
  }
};
struct MinimumOp : NoCheck, SameOut {
  template <typename T> static constexpr bool supports = kIsNum<T>;
  template <typename T, typename C> static C apply(C a, C b) {
    if constexpr (kIsFloat<C>)
      if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) ? a : b;
    return b < a ? b : a;
  }
};

#define SLUICE_COMPARE_OP(Name, Supports, Expr)                                \
  struct Name : NoCheck, BoolOut {                                             \
    template <typename T> static constexpr bool supports = Supports;           \
    template <typename T, typename C>                                          \
    static bool apply(const C &a, const C &b) { return Expr; }                 \
  };
SLUICE_COMPARE_OP(EqualOp, true, a == b)
SLUICE_COMPARE_OP(NotEqualOp, true, a != b)
SLUICE_COMPARE_OP(LessOp, kIsNum<T>, a < b)
SLUICE_COMPARE_OP(LessEqualOp, kIsNum<T>, a <= b)
SLUICE_COMPARE_OP(GreaterOp, kIsNum<T>, a > b)
SLUICE_COMPARE_OP(GreaterEqualOp, kIsNum<T>, a >= b)
SLUICE_COMPARE_OP(LogicalAndOp, (std::is_same_v<T, bool>), a && b)
SLUICE_COMPARE_OP(LogicalOrOp, (std::is_same_v<T, bool>), a || b)
#undef SLUICE_COMPARE_OP

template <typename Op> class BinaryKernel final : public OpKernel {
public:
  using OpKernel::OpKernel;

  void compute(KernelContext &ctx) override {
    const ir::Tensor &a = ctx.input(0), &b = ctx.input(1);
    if (a.dtype() != b.dtype()) {
      ctx.fail(invalidArgument(
          "cannot compute " + node().opName() + " of " +
          std::string(ir::dtypeName(a.dtype())) + " and " +
          std::string(ir::dtypeName(b.dtype()))));
      return;
    }
    auto plan = math::planBroadcast<2>({&a.dims(), &b.dims()});
    if (!plan) {
      ctx.fail(plan.takeStatus());
      return;
    }
    bool handled = false;
    auto run = [&](auto tag) {
      using T = decltype(tag);
      if constexpr (Op::template supports<T>) {
        handled = true;
        if (Status s = Op::check(math::elems<T>(b), b.numElements()); !s) {
          ctx.fail(std::move(s));
          return;
        }
        using O = typename Op::template Out<T>;
        ir::Tensor &out =
            ctx.allocateOutput(0, ir::DTypeOf<O>::value, plan->out);
        math::binaryLoop(math::elems<T>(a), math::elems<T>(b), out.data<O>(), *plan,
                         [](const T &x, const T &y) {
                           return math::store<O>(Op::template apply<T>(
                               math::load(x), math::load(y)));
                         });
      }
    };
    if (a.dtype() == ir::DType::kString)
      run(std::string{});
    else
      ir::dispatchPod(a.dtype(), run);
    if (!handled)
      ctx.fail(unimplemented(node().opName() + " does not support dtype " +
                             std::string(ir::dtypeName(a.dtype()))));
  }
};

} // namespace

void registerMathKernels(KernelRegistry &reg) {
  reg.addSimple<BinaryKernel<AddOp>>("add");
  reg.addSimple<BinaryKernel<SubOp>>("subtract");
  reg.addSimple<BinaryKernel<MulOp>>("multiply");
  reg.addSimple<BinaryKernel<DivideOp>>("divide");
  reg.addSimple<BinaryKernel<FloorDivOp>>("floor_div");
  reg.addSimple<BinaryKernel<ModOp>>("mod");
  reg.addSimple<BinaryKernel<PowOp>>("pow");
  reg.addSimple<BinaryKernel<MaximumOp>>("maximum");
  reg.addSimple<BinaryKernel<MinimumOp>>("minimum");
  reg.addSimple<BinaryKernel<SquaredDiffOp>>("squared_difference");
  reg.addSimple<BinaryKernel<EqualOp>>("equal");
  reg.addSimple<BinaryKernel<NotEqualOp>>("not_equal");
  reg.addSimple<BinaryKernel<LessOp>>("less");
  reg.addSimple<BinaryKernel<LessEqualOp>>("less_equal");
  reg.addSimple<BinaryKernel<GreaterOp>>("greater");
  reg.addSimple<BinaryKernel<GreaterEqualOp>>("greater_equal");
  reg.addSimple<BinaryKernel<LogicalAndOp>>("logical_and");
  reg.addSimple<BinaryKernel<LogicalOrOp>>("logical_or");
  registerMathUnaryKernels(reg);
  registerMathReduceKernels(reg);
  registerMathMatmulKernels(reg);
  registerMathSelectKernels(reg);
}

} // namespace sluice::backend
