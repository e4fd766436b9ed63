// backend/cpu/array_copy.h: dtype-generic element moves shared by the
// array and string kernels (slicing, transposing, tiling, joining).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ir/tensor.h"
#include "support/status.h"

namespace sluice::backend {

/// Calls `f(E{})` with an element type that moves `t`'s elements: an
/// unsigned integer of the element's size for numeric dtypes (so one
/// instantiation serves f32 and i32), std::string for string/resource, a
/// shared pointer for variant.
using VariantElem = std::shared_ptr<const ir::VariantValue>;
template <typename F> void dispatchElem(ir::DType t, F &&f) {
  if (t == ir::DType::kVariant) {
    f(VariantElem{});
    return;
  }
  if (!ir::isPod(t)) {
    f(std::string{});
    return;
  }
  switch (ir::dtypeSize(t)) {
  case 1: f(uint8_t{}); break;
  case 2: f(uint16_t{}); break;
  case 4: f(uint32_t{}); break;
  default: f(uint64_t{}); break;
  }
}

/// `t`'s elements as E (see dispatchElem).
template <typename E> E *elems(ir::Tensor &t) {
  if constexpr (std::is_same_v<E, VariantElem>)
    return t.variants();
  else if constexpr (std::is_same_v<E, std::string>)
    return t.strings();
  else
    return static_cast<E *>(t.rawData());
}
template <typename E> const E *elems(const ir::Tensor &t) {
  if constexpr (std::is_same_v<E, VariantElem>)
    return t.variants();
  else if constexpr (std::is_same_v<E, std::string>)
    return t.strings();
  else
    return static_cast<const E *>(t.rawData());
}

/// Row-major strides (in elements) of `dims`.
std::vector<int64_t> rowMajorStrides(const ir::Dims &dims);

/// out[i] = in[offset + sum_k i_k * strides[k]] for every index i of
/// `outDims`, row-major. Strides may be zero (broadcast) or negative
/// (reversed). `out` must hold numElements(outDims) elements of in's dtype.
void stridedCopy(const ir::Tensor &in, int64_t offset, const ir::Dims &outDims,
                 const std::vector<int64_t> &strides, ir::Tensor &out);

/// Copies `count` elements from in[inOff..] to out[outOff..].
void copyElements(const ir::Tensor &in, int64_t inOff, ir::Tensor &out,
                  int64_t outOff, int64_t count);

/// Reads a 0-d or 1-d integer tensor (`what` names it in the error).
Expected<std::vector<int64_t>> readIntVector(const ir::Tensor &t,
                                             const char *what);

} // namespace sluice::backend
