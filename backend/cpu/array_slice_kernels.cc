// backend/cpu/array_slice_kernels.cc: CPU kernels that slice, split and
// join tensors. Shapes and errors come from ir/ops/array_shapes.h and
// array_strided_slice.h, the same rules the shape functions use.
#include <cstring>
#include "backend/cpu/array_copy.h"
#include "backend/kernel_registry.h"
#include "ir/ops/array_shapes.h"
#include "ir/ops/array_strided_slice.h"

namespace sluice::backend {

namespace {

using ir::Tensor;

std::string str(int64_t v) { return std::to_string(v); }

int64_t product(const ir::Dims &d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i)
    p *= d[i];
  return p;
}

// Joins `parts` along `axis` into `out` (whose dims are already known):
// each part contributes a contiguous chunk per outer index.
void joinInto(const std::vector<const Tensor *> &parts,
              const std::vector<int64_t> &chunks, int64_t outer, Tensor &out) {
  int64_t pos = 0;
  if (ir::isPod(out.dtype())) {
    // Pointers and sizes looked up once: stacking columns along axis 1
    // copies one element per part per row.
    const size_t sz = ir::dtypeSize(out.dtype());
    auto *dst = static_cast<char *>(out.rawData());
    std::vector<const char *> src;
    std::vector<size_t> bytes;
    for (size_t k = 0; k < parts.size(); ++k) {
      src.push_back(static_cast<const char *>(parts[k]->rawData()));
      bytes.push_back(static_cast<size_t>(chunks[k]) * sz);
    }
    for (int64_t o = 0; o < outer; ++o)
      for (size_t k = 0; k < parts.size(); ++k) {
        const char *from = src[k] + o * bytes[k];
        switch (bytes[k]) {
        case 4: std::memcpy(dst, from, 4); break;
        case 8: std::memcpy(dst, from, 8); break;
        default: std::memcpy(dst, from, bytes[k]);
        }
        dst += bytes[k];
      }
    return;
  }
  for (int64_t o = 0; o < outer; ++o)
    for (size_t k = 0; k < parts.size(); ++k) {
      copyElements(*parts[k], o * chunks[k], out, pos, chunks[k]);
      pos += chunks[k];
    }
}

class StackKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &first = ctx.input(0);
    int64_t n = ctx.numInputs(), rank = first.rank() + 1;
    for (int i = 1; i < n; ++i)
      if (ctx.input(i).dims() != first.dims())
        return ctx.fail(invalidArgument(
            "Shapes of all inputs must match: values[0].shape = " +
            ir::dimsString(first.dims()) + " != values[" + str(i) +
            "].shape = " + ir::dimsString(ctx.input(i).dims())));
    int64_t axis = node().attr<int64_t>("axis");
    auto ax = ir::canonicalAxis(axis, rank);
    if (!ax)
      return ctx.fail(invalidArgument("axis = " + str(axis) + " not in [" +
                                      str(-rank) + ", " + str(rank) + ")"));
    ir::Dims dims = first.dims();
    dims.insert(dims.begin() + *ax, n);
    Tensor &out = ctx.allocateOutput(0, first.dtype(), dims);
    std::vector<const Tensor *> parts;
    for (int i = 0; i < n; ++i)
      parts.push_back(&ctx.input(i));
    int64_t chunk = product(first.dims(), *ax, first.dims().size());
    joinInto(parts, std::vector<int64_t>(n, chunk),
             product(first.dims(), 0, *ax), out);
  }
};

class ConcatKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    std::vector<ir::DimList> shapes;
    std::vector<const Tensor *> parts;
    for (int i = 0; i < ctx.numInputs(); ++i) {
      shapes.push_back(ctx.input(i).dims());
      parts.push_back(&ctx.input(i));
    }
    auto dims = ir::concatDims(shapes, node().attr<int64_t>("axis"));
    if (!dims)
      return ctx.fail(dims.takeStatus());
    if (parts.size() == 1)
      return ctx.setOutput(0, ctx.input(0));
    int64_t rank = ctx.input(0).rank();
    int64_t ax = *ir::canonicalAxis(node().attr<int64_t>("axis"), rank);
    std::vector<int64_t> chunks;
    for (const Tensor *p : parts)
      chunks.push_back(product(p->dims(), ax, rank));
    Tensor &out = ctx.allocateOutput(0, ctx.input(0).dtype(), *dims);
    joinInto(parts, chunks, product(*dims, 0, ax), out);
  }
};

// Cuts `in` along `axis` into pieces of the given sizes (outputs 0..n-1).
void splitInto(KernelContext &ctx, const Tensor &in, int64_t ax,
               const std::vector<int64_t> &sizes, bool dropAxis) {
  int64_t outer = product(in.dims(), 0, ax);
  int64_t inner = product(in.dims(), ax + 1, in.dims().size());
  int64_t row = in.dim(static_cast<int>(ax)) * inner, start = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    ir::Dims dims = in.dims();
    if (dropAxis)
      dims.erase(dims.begin() + ax);
    else
      dims[ax] = sizes[k];
    int64_t chunk = sizes[k] * inner;
    if (sizes.size() == 1) {
      ctx.setOutput(0, in.reshaped(dims));
      return;
    }
    Tensor &out = ctx.allocateOutput(static_cast<int>(k), in.dtype(), dims);
    for (int64_t o = 0; o < outer; ++o)
      copyElements(in, o * row + start, out, o * chunk, chunk);
    start += chunk;
  }
}

class UnstackKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    int64_t axis = node().attr<int64_t>("axis"), rank = in.rank();
    auto ax = ir::canonicalAxis(axis, rank);
    if (!ax)
      return ctx.fail(invalidArgument("axis = " + str(axis) + " not in [" +
                                      str(-rank) + ", " + str(rank) + ")"));
    int64_t num = node().attr<int64_t>("num");
    if (in.dim(static_cast<int>(*ax)) != num)
      return ctx.fail(invalidArgument(
          "Input shape axis " + str(*ax) + " must equal " + str(num) +
          ", got shape " + ir::dimsString(in.dims())));
    splitInto(ctx, in, *ax, std::vector<int64_t>(num, 1), true);
  }
};

class SplitKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    int64_t axis = node().attr<int64_t>("axis"), rank = in.rank();
    auto ax = ir::canonicalAxis(axis, rank);
    if (!ax)
      return ctx.fail(invalidArgument(ir::splitAxisError(rank, axis)));
    const ir::DimList *sizes =
        node().hasAttr("size_splits")
            ? &node().attr<std::vector<int64_t>>("size_splits")
            : nullptr;
    auto pieces = ir::splitSizes(in.dim(static_cast<int>(*ax)),
                                 node().attr<int64_t>("num_split"), sizes);
    if (!pieces)
      return ctx.fail(pieces.takeStatus());
    splitInto(ctx, in, *ax, *pieces, false);
  }
};

// Copies the box [begin, begin + size*stride) of `in` into output 0 with
// dims `finalDims` (same element count as `size`).
void copyBox(KernelContext &ctx, const Tensor &in,
             const std::vector<int64_t> &begin,
             const std::vector<int64_t> &stride, const ir::Dims &size,
             const ir::Dims &finalDims) {
  std::vector<int64_t> inStrides = rowMajorStrides(in.dims());
  std::vector<int64_t> strides(in.rank());
  int64_t offset = 0;
  for (int i = 0; i < in.rank(); ++i) {
    offset += begin[i] * inStrides[i];
    strides[i] = stride[i] * inStrides[i];
  }
  Tensor &out = ctx.allocateOutput(0, in.dtype(), finalDims);
  if (out.numElements() > 0)
    stridedCopy(in, offset, size, strides, out);
}

class SliceKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    const Tensor &tb = ctx.input(1), &ts = ctx.input(2);
    if (tb.rank() != 1 || ts.rank() != 1 || tb.numElements() != in.rank() ||
        ts.numElements() != in.rank())
      return ctx.fail(invalidArgument(
          "Expected begin and size arguments to be 1-D tensors of size " +
          str(in.rank()) + ", but got shapes " + ir::dimsString(tb.dims()) +
          " and " + ir::dimsString(ts.dims()) + " instead."));
    auto begin = readIntVector(tb, "begin");
    auto size = readIntVector(ts, "size");
    auto sizes = ir::sliceSizes(in.dims(), *begin, *size);
    if (!sizes)
      return ctx.fail(sizes.takeStatus());
    if (*sizes == in.dims())
      return ctx.setOutput(0, in);
    copyBox(ctx, in, *begin, std::vector<int64_t>(in.rank(), 1), *sizes,
            *sizes);
  }
};

class StridedSliceKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    const Tensor &tb = ctx.input(1), &te = ctx.input(2), &ts = ctx.input(3);
    if (tb.rank() != 1 || te.rank() != 1 || ts.rank() != 1 ||
        tb.numElements() != te.numElements() ||
        tb.numElements() != ts.numElements())
      return ctx.fail(invalidArgument(
          "Expected begin, end, and strides to be 1D equal size tensors, but "
          "got shapes " + ir::dimsString(tb.dims()) + ", " +
          ir::dimsString(te.dims()) + ", and " + ir::dimsString(ts.dims()) +
          " instead."));
    auto begin = readIntVector(tb, "begin");
    auto end = readIntVector(te, "end");
    auto strides = readIntVector(ts, "strides");
    const ir::Node &n = node();
    ir::StridedSliceMasks m{n.attr<int64_t>("begin_mask"),
                            n.attr<int64_t>("end_mask"),
                            n.attr<int64_t>("ellipsis_mask"),
                            n.attr<int64_t>("new_axis_mask"),
                            n.attr<int64_t>("shrink_axis_mask")};
    auto plan = ir::planStridedSlice(in.dims(), &*begin, &*end, &*strides,
                                     tb.numElements(), m);
    if (!plan)
      return ctx.fail(plan.takeStatus());
    if (plan->identity)
      return ctx.setOutput(0, in.reshaped(plan->finalDims));
    copyBox(ctx, in, plan->begin, plan->stride, plan->size, plan->finalDims);
  }
};

class GatherKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &params = ctx.input(0), &indices = ctx.input(1);
    int64_t rank = params.rank();
    if (rank == 0)
      return ctx.fail(
          invalidArgument("params must be at least 1 dimensional"));
    int64_t axis = node().attr<int64_t>("axis");
    auto axOpt = ir::canonicalAxis(axis, rank);
    if (!axOpt)
      return ctx.fail(invalidArgument(
          "Expected axis in the range [" + str(-rank) + ", " + str(rank) +
          "), but got " + str(axis)));
    int64_t ax = *axOpt;
    int64_t limit = params.dim(static_cast<int>(ax));
    int64_t nIdx = indices.numElements();
    auto idx = readIntVector(indices.reshaped({nIdx}), "indices");
    for (int64_t i = 0; i < nIdx; ++i)
      if ((*idx)[i] < 0 || (*idx)[i] >= limit)
        return ctx.fail(invalidArgument("indices" + indexString(indices, i) +
                                        " = " + str((*idx)[i]) +
                                        " is not in [0, " + str(limit) + ")"));
    ir::Dims dims(params.dims().begin(), params.dims().begin() + ax);
    dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
    dims.insert(dims.end(), params.dims().begin() + ax + 1,
                params.dims().end());
    int64_t outer = product(params.dims(), 0, ax);
    int64_t inner = product(params.dims(), ax + 1, rank);
    Tensor &out = ctx.allocateOutput(0, params.dtype(), dims);
    dispatchElem(params.dtype(), [&](auto tag) {
      using E = decltype(tag);
      const E *src = elems<E>(params);
      E *dst = elems<E>(out);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < nIdx; ++i, dst += inner)
          std::copy_n(src + (o * limit + (*idx)[i]) * inner, inner, dst);
    });
  }

private:
  // TF's "[1,0]" form of flat index i within `t`'s shape.
  static std::string indexString(const Tensor &t, int64_t i) {
    if (t.rank() == 0)
      return "";
    std::string s;
    for (int k = t.rank() - 1; k >= 0; --k) {
      std::string part = str(i % t.dim(k));
      s = k == t.rank() - 1 ? part : part + "," + s;
      i /= t.dim(k);
    }
    return "[" + s + "]";
  }
};

} // namespace

void registerArraySliceKernels(KernelRegistry &reg) {
  reg.addSimple<StackKernel>("stack");
  reg.addSimple<UnstackKernel>("unstack");
  reg.addSimple<ConcatKernel>("concat");
  reg.addSimple<SplitKernel>("split");
  reg.addSimple<SliceKernel>("slice");
  reg.addSimple<StridedSliceKernel>("strided_slice");
  reg.addSimple<GatherKernel>("gather");
}

} // namespace sluice::backend
