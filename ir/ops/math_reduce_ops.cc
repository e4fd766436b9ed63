// ir/ops/math_reduce_ops.cc: op rows that contract dimensions: reductions,
// argmax/argmin, softmax and matmul.
#include <set>

#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerMathReduceOps(OpRegistry &reg);

namespace {

Status reduceShape(InferenceContext &c) {
  const Shape &in = c.inputShape(0);
  bool keep = c.attr<bool>("keepdims");
  bool all = !c.hasAttr("axis");
  if (!in.hasRank()) {
    c.setOutput(0, all && !keep ? Shape::scalar() : Shape::unknown());
    return Status::ok();
  }
  int rank = in.rank();
  std::set<int> reduced;
  if (all) {
    for (int i = 0; i < rank; ++i)
      reduced.insert(i);
  } else {
    for (int64_t a : c.attr<std::vector<int64_t>>("axis")) {
      if (a < -rank || a >= rank)
        return c.error("Invalid reduction dimension " + std::to_string(a) +
                       " for input with " + std::to_string(rank) +
                       " dimensions");
      reduced.insert(static_cast<int>(a < 0 ? a + rank : a));
    }
  }
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i) {
    if (!reduced.count(i))
      out.push_back(in.dim(i));
    else if (keep)
      out.push_back(1);
  }
  c.setOutput(0, Shape(std::move(out)));
  return Status::ok();
}

void reduction(OpRegistry &reg, const char *name, const char *tf, std::vector<DType> types) {
  OpDefBuilder b(name);
  b.tf(tf);
  if (types.empty())
    b.input("input_tensor: bool").output("output: bool");
  else
    b.input("input_tensor: T").output("output: T").typeAttr("T", types);
  reg.add(b.attr("axis", AttrType::kIntList)
              .optional()
              .attr("keepdims", AttrType::kBool, false)
              .signature("input_tensor, axis, keepdims")
              .alias("keep_dims", "keepdims")
              .alias("reduction_indices", "axis")
              .shape(reduceShape)
              .build());
}

Status argShape(InferenceContext &c) {
  const Shape &in = c.inputShape(0);
  if (!in.hasRank()) {
    c.setOutput(0, Shape::unknown());
    return Status::ok();
  }
  int rank = in.rank();
  int64_t axis = c.attr<int64_t>("axis");
  if (axis < -rank || axis >= rank)
    return c.error("Expected dimension in the range [" + std::to_string(-rank) +
                   ", " + std::to_string(rank) + "), but got " +
                   std::to_string(axis));
  if (axis < 0)
    axis += rank;
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i)
    if (i != axis)
      out.push_back(in.dim(i));
  c.setOutput(0, Shape(std::move(out)));
  return Status::ok();
}

void argReduction(OpRegistry &reg, const char *name, const char *tf) {
  reg.add(OpDefBuilder(name)
              .tf(tf)
              .input("input: T")
              .output("output: output_type")
              .typeAttr("T", kNumericTypes)
              .attr("axis", AttrType::kInt, int64_t{0})
              .typeAttr("output_type", kIndexTypes, DType::kI64)
              .signature("input, axis")
              .alias("dimension", "axis")
              .shape(argShape)
              .build());
}

Status softmaxShape(InferenceContext &c) {
  const Shape &in = c.inputShape(0);
  if (in.hasRank()) {
    int rank = in.rank();
    if (rank < 1)
      return c.error("Shape must be at least rank 1 but is rank 0");
    int64_t axis = c.attr<int64_t>("axis");
    if (axis < -rank || axis >= rank)
      return c.error("Expected dimension in the range [" +
                     std::to_string(-rank) + ", " + std::to_string(rank) +
                     "), but got " + std::to_string(axis));
  }
  c.setOutput(0, in);
  return Status::ok();
}

void softmax(OpRegistry &reg, const char *name, const char *tf) {
  reg.add(OpDefBuilder(name)
              .tf(tf)
              .input("logits: T")
              .output("output: T")
              .typeAttr("T", kFloatTypes)
              .attr("axis", AttrType::kInt, int64_t{-1})
              .signature("logits, axis")
              .alias("dim", "axis")
              .shape(softmaxShape)
              .build());
}

std::string shapesSuffix(InferenceContext &c) {
  return " for '" + c.nodeName() + "' (op: 'matmul') with input shapes: " +
         c.inputShape(0).str() + ", " + c.inputShape(1).str();
}

Status matmulShape(InferenceContext &c) {
  for (const char *side : {"a", "b"}) {
    std::string t = std::string("transpose_") + side;
    std::string adj = std::string("adjoint_") + side;
    if (c.attr<bool>(t) && c.attr<bool>(adj))
      return valueError("Only one of " + t + " and " + adj +
                        " can be True.");
  }
  const Shape &a = c.inputShape(0), &b = c.inputShape(1);
  for (const Shape *s : {&a, &b})
    if (s->hasRank() && s->rank() != 2)
      return c.error("Shape must be rank 2 but is rank " +
                     std::to_string(s->rank()) + shapesSuffix(c));
  bool ta = c.attr<bool>("transpose_a") || c.attr<bool>("adjoint_a");
  bool tb = c.attr<bool>("transpose_b") || c.attr<bool>("adjoint_b");
  int64_t m = -1, ka = -1, kb = -1, n = -1;
  if (a.hasRank()) {
    m = a.dim(ta ? 1 : 0);
    ka = a.dim(ta ? 0 : 1);
  }
  if (b.hasRank()) {
    kb = b.dim(tb ? 1 : 0);
    n = b.dim(tb ? 0 : 1);
  }
  if (ka >= 0 && kb >= 0 && ka != kb)
    return c.error("Dimensions must be equal, but are " + std::to_string(ka) +
                   " and " + std::to_string(kb) + shapesSuffix(c));
  c.setOutput(0, Shape({m, n}));
  return Status::ok();
}

} // namespace

void registerMathReduceOps(OpRegistry &reg) {
  reduction(reg, "reduce_sum", "Sum", kNumericTypes);
  reduction(reg, "reduce_mean", "Mean", kNumericTypes);
  reduction(reg, "reduce_max", "Max", kNumericTypes);
  reduction(reg, "reduce_min", "Min", kNumericTypes);
  reduction(reg, "reduce_prod", "Prod", kNumericTypes);
  reduction(reg, "reduce_any", "Any", {});
  reduction(reg, "reduce_all", "All", {});
  argReduction(reg, "argmax", "ArgMax");
  argReduction(reg, "argmin", "ArgMin");
  softmax(reg, "softmax", "Softmax");
  softmax(reg, "log_softmax", "LogSoftmax");

  reg.add(OpDefBuilder("matmul")
              .tf("MatMul")
              .input("a: T")
              .input("b: T")
              .output("product: T")
              .typeAttr("T", kNumericTypes)
              .attr("transpose_a", AttrType::kBool, false)
              .attr("transpose_b", AttrType::kBool, false)
              .attr("adjoint_a", AttrType::kBool, false)
              .attr("adjoint_b", AttrType::kBool, false)
              .attr("a_is_sparse", AttrType::kBool, false)
              .attr("b_is_sparse", AttrType::kBool, false)
              .signature("a, b, transpose_a, transpose_b, adjoint_a, "
                         "adjoint_b, a_is_sparse, b_is_sparse")
              .expensive()
              .shape(matmulShape)
              .doc("rank-2 matrix product; adjoint = transpose for reals")
              .build());
}

} // namespace sluice::ir
