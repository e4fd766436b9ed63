// ir/grads/nn_grads.cc: gradient rules of the reductions, matmul and
// softmax (TF's math_grad.py and nn_grad.py).
#include <algorithm>

#include "ir/gradients.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

using B = GradBuilder;

// The reduced axes (normalized, sorted), or nullopt when the rank is not
// known statically.
std::optional<std::vector<int64_t>> reducedAxes(B &b) {
  const Shape &in = b.inputShape(0);
  if (!in.hasRank()) {
    b.fail(invalidArgument("the gradient of " + b.node().opName() +
                           " needs the input's rank to be known"));
    return std::nullopt;
  }
  std::vector<int64_t> axes;
  if (b.node().hasAttr("axis")) {
    for (int64_t a : b.node().attr<std::vector<int64_t>>("axis"))
      axes.push_back(a < 0 ? a + in.rank() : a);
  } else {
    for (int i = 0; i < in.rank(); ++i)
      axes.push_back(i);
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

// `t` (shaped like the reduction's output) with the reduced axes back as
// size-1 dims, so that it broadcasts against the input.
Output keptDims(B &b, Output t, const std::vector<int64_t> &axes) {
  if (b.node().attr<bool>("keepdims"))
    return t;
  for (int64_t a : axes)
    t = b.op("expand_dims", {t}, {{"axis", a}});
  return t;
}

void reduceSumRule(B &b) {
  auto axes = reducedAxes(b);
  if (!axes)
    return;
  Output kept = keptDims(b, *b.grad(0), *axes);
  b.setInputGrad(0, b.op("broadcast_to", {kept, b.shapeOf(b.input(0))}));
}

void reduceMeanRule(B &b) {
  auto axes = reducedAxes(b);
  if (!axes)
    return;
  Output kept = keptDims(b, *b.grad(0), *axes);
  Output spread = b.op("broadcast_to", {kept, b.shapeOf(b.input(0))});
  // Each element's share: the count of elements per output element.
  DType t = b.inputType(0);
  Output count = b.op("cast",
                      {b.op("floor_div", {b.op("size", {b.input(0)}), b.op("size", {b.output(0)})})},
                      {{"dtype", t}});
  Output one = b.scalar(1, t);
  b.setInputGrad(0, b.op("divide", {spread, b.op("maximum", {count, one})}));
}

void reduceExtremeRule(B &b) {
  // Split among the elements equal to the extreme (TF's ties rule).
  auto axes = reducedAxes(b);
  if (!axes)
    return;
  DType t = b.inputType(0);
  Output y = keptDims(b, b.output(0), *axes);
  Output hit = b.op("cast", {b.op("equal", {b.input(0), y})}, {{"dtype", t}});
  Output ties = b.op("reduce_sum", {hit}, {{"axis", *axes}, {"keepdims", true}}, "ties");
  Output dy = keptDims(b, *b.grad(0), *axes);
  b.setInputGrad(0, b.op("divide", {b.op("multiply", {hit, dy}), ties}));
}

void reduceProdRule(B &b) {
  auto axes = reducedAxes(b);
  if (!axes)
    return;
  Output others = b.op("reduce_prod_grad", {b.input(0)}, {{"axis", *axes}});
  Output dy = keptDims(b, *b.grad(0), *axes);
  b.setInputGrad(0, b.op("multiply", {others, dy}));
}

} // namespace

void registerNnGradients(OpRegistry &reg) {
  reg.setGradient("reduce_sum", reduceSumRule);
  reg.setGradient("reduce_mean", reduceMeanRule);
  reg.setGradient("reduce_max", reduceExtremeRule);
  reg.setGradient("reduce_min", reduceExtremeRule);
  reg.setGradient("reduce_prod", reduceProdRule);
  reg.setGradient("matmul", [](B &b) {
    bool ta = b.node().attr<bool>("transpose_a"), tb = b.node().attr<bool>("transpose_b");
    Output a = b.input(0), c = b.input(1), dy = *b.grad(0);
    auto mm = [&](Output x, Output y, bool tx, bool ty, const char *base) {
      return b.op("matmul", {x, y}, {{"transpose_a", tx}, {"transpose_b", ty}}, base);
    };
    if (!ta && !tb) {
      b.setInputGrad(0, mm(dy, c, false, true, "matmul_a"));
      b.setInputGrad(1, mm(a, dy, true, false, "matmul_b"));
    } else if (!ta && tb) {
      b.setInputGrad(0, mm(dy, c, false, false, "matmul_a"));
      b.setInputGrad(1, mm(dy, a, true, false, "matmul_b"));
    } else if (ta && !tb) {
      b.setInputGrad(0, mm(c, dy, false, true, "matmul_a"));
      b.setInputGrad(1, mm(a, dy, false, false, "matmul_b"));
    } else {
      b.setInputGrad(0, mm(c, dy, true, true, "matmul_a"));
      b.setInputGrad(1, mm(dy, a, true, true, "matmul_b"));
    }
  });
  reg.setGradient("softmax", [](B &b) {
    // (dy - sum(dy * y)) * y along the axis.
    int64_t axis = b.node().attr<int64_t>("axis");
    Output y = b.output(0), dy = *b.grad(0);
    Output s = b.op("reduce_sum", {b.op("multiply", {dy, y})},
                    {{"axis", std::vector<int64_t>{axis}}, {"keepdims", true}});
    b.setInputGrad(0, b.op("multiply", {b.op("subtract", {dy, s}), y}));
  });
  reg.setGradient("log_softmax", [](B &b) {
    // dy - exp(y) * sum(dy) along the axis.
    int64_t axis = b.node().attr<int64_t>("axis");
    Output y = b.output(0), dy = *b.grad(0);
    Output s = b.op("reduce_sum", {dy}, {{"axis", std::vector<int64_t>{axis}}, {"keepdims", true}});
    b.setInputGrad(0, b.op("subtract", {dy, b.op("multiply", {b.op("exp", {y}), s})}));
  });
}

} // namespace sluice::ir
