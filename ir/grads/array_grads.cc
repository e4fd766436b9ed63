// ir/grads/array_grads.cc: gradient rules of the shape and indexing ops
// (TF's array_grad.py): the gradient goes back through the inverse
// rearrangement.
#include <algorithm>
#include <numeric>

#include "ir/gradients.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

using B = GradBuilder;

Output intVector(B &b, const std::vector<int64_t> &v, DType t = DType::kI32) {
  Tensor out(t, Dims{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DType::kI64)
      out.data<int64_t>()[i] = v[i];
    else
      out.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
  }
  return b.constant(std::move(out));
}

void reshapeBack(B &b) { b.setInputGrad(0, b.op("reshape", {*b.grad(0), b.shapeOf(b.input(0))})); }

} // namespace

void registerArrayGradients(OpRegistry &reg) {
  for (const char *name : {"identity", "read_variable", "placeholder_with_default"})
    reg.setGradient(name, [](B &b) { b.setInputGrad(0, *b.grad(0)); });
  for (const char *name : {"reshape", "expand_dims", "squeeze"})
    reg.setGradient(name, reshapeBack);
  reg.setGradient("transpose", [](B &b) {
    // Without perm, transpose reverses the dims.
    std::vector<int64_t> perm;
    if (b.node().hasAttr("perm")) {
      perm = b.node().attr<std::vector<int64_t>>("perm");
    } else if (b.inputShape(0).hasRank()) {
      for (int i = b.inputShape(0).rank() - 1; i >= 0; --i)
        perm.push_back(i);
    } else {
      return b.fail(invalidArgument("the gradient of transpose needs perm or a known rank"));
    }
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    b.setInputGrad(0, b.op("transpose", {*b.grad(0)}, {{"perm", inverse}}));
  });
  reg.setGradient("tile", [](B &b) {
    // dy viewed as [m0, d0, m1, d1, ...], summed over the m axes.
    const auto &mult = b.node().attr<std::vector<int64_t>>("multiples");
    Output pairs = b.op("stack", {intVector(b, mult), b.shapeOf(b.input(0))}, {{"axis", int64_t{1}}});
    Output split = b.op("reshape", {pairs, intVector(b, {-1})}, {}, "split_shape");
    Output viewed = b.op("reshape", {*b.grad(0), split});
    std::vector<int64_t> axes;
    for (size_t i = 0; i < mult.size(); ++i)
      axes.push_back(static_cast<int64_t>(2 * i));
    b.setInputGrad(0, b.op("reduce_sum", {viewed}, {{"axis", axes}}));
  });
  reg.setGradient("stack", [](B &b) {
    int64_t n = b.numInputs();
    Output parts = b.op("unstack", {*b.grad(0)},
                        {{"num", n}, {"axis", b.node().attr<int64_t>("axis")}});
    for (int i = 0; i < n; ++i)
      b.setInputGrad(i, Output{parts.node, i});
  });
  reg.setGradient("unstack", [](B &b) {
    std::vector<Output> parts;
    for (int i = 0; i < b.node().numOutputs(); ++i)
      parts.push_back(b.gradOrZeros(i));
    b.setInputGrad(0, b.op("stack", parts, {{"axis", b.node().attr<int64_t>("axis")}}));
  });
  reg.setGradient("concat", [](B &b) {
    // Split dy back by the inputs' sizes along the axis.
    int64_t axis = b.node().attr<int64_t>("axis");
    std::vector<int64_t> sizes;
    for (int i = 0; i < b.numInputs(); ++i) {
      const Shape &s = b.inputShape(i);
      int64_t a = axis < 0 && s.hasRank() ? axis + s.rank() : axis;
      if (!s.hasRank() || a < 0 || a >= s.rank() || s.dim(static_cast<int>(a)) < 0)
        return b.fail(invalidArgument("the gradient of concat needs each input's size along "
                                      "axis " + std::to_string(axis) + " to be known"));
      sizes.push_back(s.dim(static_cast<int>(a)));
    }
    Output parts = b.op("split", {*b.grad(0)}, {{"size_splits", sizes}, {"axis", axis}});
    for (int i = 0; i < b.numInputs(); ++i)
      b.setInputGrad(i, Output{parts.node, i});
  });
  reg.setGradient("split", [](B &b) {
    std::vector<Output> parts;
    for (int i = 0; i < b.node().numOutputs(); ++i)
      parts.push_back(b.gradOrZeros(i));
    b.setInputGrad(0, b.op("concat", parts, {{"axis", b.node().attr<int64_t>("axis")}}));
  });
  reg.setGradient("slice", [](B &b) {
    // dy padded back into x's shape: before = begin, after = rest.
    DType index = b.inputType(1);
    Output begin = b.input(1);
    Output xShape = b.op("shape", {b.input(0)}, {{"out_type", index}}, "x_shape");
    Output yShape = b.op("shape", {*b.grad(0)}, {{"out_type", index}}, "dy_shape");
    Output after = b.op("subtract", {b.op("subtract", {xShape, begin}), yShape});
    Output paddings = b.op("stack", {begin, after}, {{"axis", int64_t{1}}});
    b.setInputGrad(0, b.op("pad", {*b.grad(0), paddings}));
  });
  reg.setGradient("strided_slice", [](B &b) {
    DType index = b.inputType(1);
    AttrMap attrs;
    for (const char *m :
         {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"})
      attrs[m] = b.node().attr<int64_t>(m);
    Output xShape = b.op("shape", {b.input(0)}, {{"out_type", index}}, "x_shape");
    b.setInputGrad(0, b.op("strided_slice_grad",
                           {xShape, b.input(1), b.input(2), b.input(3), *b.grad(0)},
                           std::move(attrs)));
  });
  reg.setGradient("gather", [](B &b) {
    b.setInputGrad(0, b.op("gather_grad", {*b.grad(0), b.input(1), b.shapeOf(b.input(0))},
                           {{"axis", b.node().attr<int64_t>("axis")}}));
  });
  reg.setGradient("fill", [](B &b) {
    b.setInputGrad(1, b.op("reduce_sum", {*b.grad(0)}));
  });
  for (const char *name : {"shape", "size", "rank", "zeros_like", "ones_like", "one_hot",
                           "range", "stop_gradient"})
    reg.setNotDifferentiable(name);
}

} // namespace sluice::ir
