// backend/cpu/random_kernels.cc: CPU kernels for random_uniform,
// random_normal and truncated_normal.
//
// Each node's generator is a RandomState (backend/cpu/random_state.h): one
// stream per node and session. The bit-to-value transforms are written out
// (not std:: distributions) so a seed gives the same numbers with any
// standard library.
#include <cmath>
#include <mutex>
#include <random>

#include "backend/cpu/math_util.h"
#include "backend/cpu/random_state.h"

namespace sluice::backend {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

/// Uniform in [0, 1) with as many random mantissa bits as T holds, so the
/// value is exact in T and never rounds up to 1.
template <typename T> double unitUniform(std::mt19937_64 &g) {
  if constexpr (std::is_same_v<T, ir::Half>)
    return static_cast<double>(g() >> 53) * 0x1p-11;
  else if constexpr (std::is_same_v<T, float>)
    return static_cast<double>(g() >> 40) * 0x1p-24;
  else
    return static_cast<double>(g() >> 11) * 0x1p-53;
}

/// A standard normal pair by Box-Muller.
std::pair<double, double> normalPair(std::mt19937_64 &g) {
  double u1 = static_cast<double>((g() >> 11) + 1) * 0x1p-53; // (0, 1]
  double u2 = static_cast<double>(g() >> 11) * 0x1p-53;
  double r = std::sqrt(-2.0 * std::log(u1));
  return {r * std::cos(kTwoPi * u2), r * std::sin(kTwoPi * u2)};
}

enum class Dist { kUniform, kNormal, kTruncated };

template <Dist kDist> class RandomKernel final : public OpKernel {
public:
  explicit RandomKernel(const ir::Node &n)
      : OpKernel(n), states_(n) {}

  void compute(KernelContext &ctx) override {
    const ir::Tensor &shape = ctx.input(0);
    if (shape.rank() != 1) {
      ctx.fail(invalidArgument("Shape must be rank 1 but is rank " +
                               std::to_string(shape.rank())));
      return;
    }
    ir::Dims dims(shape.numElements());
    for (int64_t i = 0; i < shape.numElements(); ++i) {
      dims[i] = shape.elementAsInt(i);
      if (dims[i] < 0) {
        ctx.fail(invalidArgument("Dimension " + std::to_string(dims[i]) +
                                 " must be >= 0"));
        return;
      }
    }
    ir::DType dtype = node().attr<ir::DType>("dtype");
    std::shared_ptr<RandomState> state = states_.get(ctx);
    if (!state)
      return;
    ir::Tensor &out = ctx.allocateOutput(0, dtype, dims);
    bool handled = false;
    ir::dispatchPod(dtype, [&](auto tag) {
      using T = decltype(tag);
      constexpr bool kIndex =
          std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;
      if constexpr (math::kIsFloat<T> || (kDist == Dist::kUniform && kIndex)) {
        handled = true;
        std::lock_guard<std::mutex> lock(state->mu);
        fill(state->engine(), out.data<T>(), out.numElements(), ctx);
      }
    });
    if (!handled)
      ctx.fail(unimplemented(node().opName() + " does not support dtype " +
                             std::string(ir::dtypeName(dtype))));
  }

private:
  template <typename T>
  void fill(std::mt19937_64 &g, T *o, int64_t n, KernelContext &ctx) {
    const ir::Node &nd = node();
    if constexpr (kDist == Dist::kUniform) {
      double lo = nd.attr<double>("minval"), hi = nd.attr<double>("maxval");
      if constexpr (math::kIsInt<T>) {
        auto ilo = static_cast<int64_t>(lo), ihi = static_cast<int64_t>(hi);
        if (!(ilo < ihi)) {
          ctx.fail(invalidArgument("Need minval < maxval: " +
                                   std::to_string(ilo) + " >= " +
                                   std::to_string(ihi)));
          return;
        }
        // Rejection keeps every value in [lo, hi) equally likely.
        uint64_t range = static_cast<uint64_t>(ihi) - static_cast<uint64_t>(ilo);
        uint64_t limit = UINT64_MAX - UINT64_MAX % range;
        for (int64_t i = 0; i < n; ++i) {
          uint64_t r;
          do
            r = g();
          while (r >= limit);
          o[i] = static_cast<T>(static_cast<uint64_t>(ilo) + r % range);
        }
      } else {
        for (int64_t i = 0; i < n; ++i)
          o[i] = math::store<T>(lo + unitUniform<T>(g) * (hi - lo));
      }
    } else if constexpr (math::kIsFloat<T>) {
      double mean = nd.attr<double>("mean"), sd = nd.attr<double>("stddev");
      for (int64_t i = 0; i < n;) {
        auto [z0, z1] = normalPair(g);
        for (double z : {z0, z1}) {
          // truncated_normal resamples beyond two standard deviations.
          if (i == n || (kDist == Dist::kTruncated && std::abs(z) > 2.0))
            continue;
          o[i++] = math::store<T>(mean + sd * z);
        }
      }
    }
  }

  RandomStateSource states_;
};

} // namespace

void registerRandomKernels(KernelRegistry &reg) {
  reg.addSimple<RandomKernel<Dist::kUniform>>("random_uniform");
  reg.addSimple<RandomKernel<Dist::kNormal>>("random_normal");
  reg.addSimple<RandomKernel<Dist::kTruncated>>("truncated_normal");
}

} // namespace sluice::backend
