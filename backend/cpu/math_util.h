// backend/cpu/math_util.h: helpers shared by the CPU math kernels: compute
// types, wrapping integer arithmetic, and numpy broadcasting plans.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/kernel_registry.h"
#include "ir/dtype.h"
#include "ir/shape.h"
#include "ir/tensor.h"
#include "support/status.h"

namespace sluice::backend {

// The math family registers its kernels from several files; math_kernels.cc
// owns the family's entry point and calls these.
void registerMathUnaryKernels(KernelRegistry &reg);
void registerMathReduceKernels(KernelRegistry &reg);
void registerMathMatmulKernels(KernelRegistry &reg);
void registerMathSelectKernels(KernelRegistry &reg);

namespace math {

/// Half arithmetic goes through float; every other type computes as itself.
template <typename T> struct ComputeOf { using type = T; };
template <> struct ComputeOf<ir::Half> { using type = float; };
template <typename T> using Compute = typename ComputeOf<T>::type;

template <typename T>
constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<T, ir::Half>;
template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

inline float load(ir::Half v) { return static_cast<float>(v); }
template <typename T> inline const T &load(const T &v) { return v; }
template <typename T, typename V> inline T store(V v) {
  if constexpr (std::is_same_v<T, ir::Half>)
    return ir::Half(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

/// Element pointers for any dtype, strings included (they are not raw bytes).
template <typename T> const T *elems(const ir::Tensor &t) {
  if constexpr (std::is_same_v<T, std::string>)
    return t.strings();
  else
    return t.data<T>();
}
template <typename T> T *elems(ir::Tensor &t) {
  if constexpr (std::is_same_v<T, std::string>)
    return t.strings();
  else
    return t.data<T>();
}

// TF's integer kernels wrap on overflow; signed overflow is undefined in
// C++, so wide types go through their unsigned twins.
template <typename T> inline T wrapAdd(T a, T b) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) +
                          static_cast<std::make_unsigned_t<T>>(b));
  else
    return a + b;
}
template <typename T> inline T wrapSub(T a, T b) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) -
                          static_cast<std::make_unsigned_t<T>>(b));
  else
    return a - b;
}
template <typename T> inline T wrapMul(T a, T b) {
  if constexpr (kIsInt<T>) {
    // uint16/uint8 would promote to (signed) int; multiply as uint64.
    using U = std::conditional_t<(sizeof(T) < 4), uint64_t,
                                 std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(static_cast<std::make_unsigned_t<T>>(a)) *
                          static_cast<U>(static_cast<std::make_unsigned_t<T>>(b)));
  } else {
    return a * b;
  }
}
template <typename T> inline T wrapNeg(T a) {
  if constexpr (kIsInt<T>)
    return wrapSub(T(0), a);
  else
    return -a; // keeps -0.0
}

/// A broadcasting plan over K operands: dims collapsed so that each
/// collapsed dim has one broadcast pattern; strides are in elements, 0
/// where an operand repeats along that dim.
template <size_t K> struct BroadcastPlan {
  ir::Dims out; // the broadcast result dims (uncollapsed)
  std::vector<int64_t> shape;
  std::vector<std::array<int64_t, K>> strides;
};

/// numpy broadcasting of K operand dims; invalid_argument "Incompatible
/// shapes: [2, 3] vs. [4]" when they clash.
template <size_t K>
Expected<BroadcastPlan<K>> planBroadcast(const std::array<const ir::Dims *, K> &in);

/// Calls f(offsets, outOffset, n, innerStrides) for each innermost run of
/// the plan, where operand k's elements are offsets[k] + i * innerStrides[k]
/// and the output's are outOffset + i, for i in [0, n).
template <size_t K, typename F>
void forEachRun(const BroadcastPlan<K> &p, F &&f) {
  if (ir::numElements(p.out) == 0)
    return;
  int rank = static_cast<int>(p.shape.size());
  if (rank == 0) {
    f(std::array<int64_t, K>{}, int64_t{0}, int64_t{1}, std::array<int64_t, K>{});
    return;
  }
  int64_t n = p.shape[rank - 1];
  const auto &inner = p.strides[rank - 1];
  std::vector<int64_t> idx(rank, 0);
  std::array<int64_t, K> off{};
  int64_t outOff = 0;
  while (true) {
    f(off, outOff, n, inner);
    outOff += n;
    int d = rank - 2;
    for (; d >= 0; --d) {
      for (size_t k = 0; k < K; ++k)
        off[k] += p.strides[d][k];
      if (++idx[d] < p.shape[d])
        break;
      for (size_t k = 0; k < K; ++k)
        off[k] -= p.strides[d][k] * p.shape[d];
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// out[i] = op(a[i], b[i]) over a broadcast plan, with tight loops for the
/// common stride patterns (same shape, scalar on either side).
template <typename Out, typename In, typename Op>
void binaryLoop(const In *a, const In *b, Out *o, const BroadcastPlan<2> &p,
                Op op) {
  forEachRun(p, [&](const std::array<int64_t, 2> &off, int64_t oo, int64_t n,
                    const std::array<int64_t, 2> &s) {
    const In *pa = a + off[0];
    const In *pb = b + off[1];
    Out *po = o + oo;
    if (s[0] == 1 && s[1] == 1) {
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(pa[i], pb[i]);
    } else if (s[0] == 0 && s[1] == 1) {
      const In x = pa[0];
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(x, pb[i]);
    } else if (s[0] == 1 && s[1] == 0) {
      const In y = pb[0];
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(pa[i], y);
    } else {
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(pa[i * s[0]], pb[i * s[1]]);
    }
  });
}

/// Normalizes a possibly negative axis; false when it is out of range.
inline bool normalizeAxis(int64_t &axis, int rank) {
  if (axis < -rank || axis >= rank)
    return false;
  if (axis < 0)
    axis += rank;
  return true;
}

} // namespace math
} // namespace sluice::backend
