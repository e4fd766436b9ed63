// backend/cpu/array_copy.cc: strided and contiguous element moves.
#include "backend/cpu/array_copy.h"

#include <algorithm>

namespace sluice::backend {

std::vector<int64_t> rowMajorStrides(const ir::Dims &dims) {
  std::vector<int64_t> s(dims.size());
  int64_t acc = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    s[i] = acc;
    acc *= dims[i];
  }
  return s;
}

namespace {

template <typename E>
void gatherStrided(const E *in, int64_t offset, const ir::Dims &outDims,
                   const std::vector<int64_t> &strides, E *out) {
  // Drop unit dims and merge dims that are contiguous in the source, so
  // the inner loop runs as long as possible (often a single memcpy).
  std::vector<int64_t> d, s;
  for (size_t k = 0; k < outDims.size(); ++k) {
    if (outDims[k] == 0)
      return;
    if (outDims[k] == 1)
      continue;
    if (!d.empty() && s.back() == strides[k] * outDims[k]) {
      d.back() *= outDims[k];
      s.back() = strides[k];
    } else {
      d.push_back(outDims[k]);
      s.push_back(strides[k]);
    }
  }
  if (d.empty()) {
    out[0] = in[offset];
    return;
  }
  size_t r = d.size();
  int64_t innerN = d.back(), innerS = s.back();
  int64_t outer = 1;
  for (size_t k = 0; k + 1 < r; ++k)
    outer *= d[k];
  std::vector<int64_t> idx(r, 0);
  int64_t src = offset;
  for (int64_t o = 0; o < outer; ++o) {
    const E *p = in + src;
    if (innerS == 1) {
      if constexpr (std::is_trivially_copyable_v<E>)
        std::memcpy(out, p, innerN * sizeof(E));
      else
        std::copy(p, p + innerN, out);
    } else {
      for (int64_t j = 0; j < innerN; ++j)
        out[j] = p[j * innerS];
    }
    out += innerN;
    for (size_t k = r - 1; k-- > 0;) {
      src += s[k];
      if (++idx[k] < d[k])
        break;
      src -= s[k] * d[k];
      idx[k] = 0;
    }
  }
}

} // namespace

void stridedCopy(const ir::Tensor &in, int64_t offset, const ir::Dims &outDims,
                 const std::vector<int64_t> &strides, ir::Tensor &out) {
  dispatchElem(in.dtype(), [&](auto tag) {
    using E = decltype(tag);
    gatherStrided(elems<E>(in), offset, outDims, strides, elems<E>(out));
  });
}

void copyElements(const ir::Tensor &in, int64_t inOff, ir::Tensor &out,
                  int64_t outOff, int64_t count) {
  if (count <= 0)
    return;
  if (ir::isPod(in.dtype())) {
    size_t sz = ir::dtypeSize(in.dtype());
    std::memcpy(static_cast<char *>(out.rawData()) + outOff * sz,
                static_cast<const char *>(in.rawData()) + inOff * sz,
                count * sz);
    return;
  }
  std::copy_n(in.strings() + inOff, count, out.strings() + outOff);
}

Expected<std::vector<int64_t>> readIntVector(const ir::Tensor &t,
                                             const char *what) {
  if (t.rank() > 1 || !ir::isInteger(t.dtype()))
    return invalidArgument(std::string(what) +
                           " must be a 1-D integer tensor, got shape " +
                           ir::dimsString(t.dims()));
  std::vector<int64_t> out(t.numElements());
  for (int64_t i = 0; i < t.numElements(); ++i)
    out[i] = t.elementAsInt(i);
  return out;
}

} // namespace sluice::backend
