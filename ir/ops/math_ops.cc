// ir/ops/math_ops.cc: elementwise math op rows (binary, unary, cast, add_n,
// select, where). Reductions, softmax and matmul are in math_reduce_ops.cc.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

// Defined in math_reduce_ops.cc; called from registerMathOps so the family
// keeps one entry point.
void registerMathReduceOps(OpRegistry &reg);

namespace {

std::vector<DType> withBoolAndString(std::vector<DType> types) {
  types.push_back(DType::kBool);
  types.push_back(DType::kString);
  return types;
}

/// TF1's Python truediv table: small ints go to f32, wide ints to f64.
DType truedivType(DType t) {
  switch (t) {
  case DType::kI8:
  case DType::kI16:
  case DType::kU8:
    return DType::kF32;
  case DType::kI32:
  case DType::kI64:
    return DType::kF64;
  default:
    return t;
  }
}

void binary(OpRegistry &reg, const char *name, std::vector<std::string> tf,
            std::vector<DType> types, const char *out = "z: T") {
  reg.add(OpDefBuilder(name)
              .tf(std::move(tf))
              .input("x: T")
              .input("y: T")
              .output(out)
              .typeAttr("T", std::move(types))
              .shape(broadcastShape)
              .build());
}

void logical(OpRegistry &reg, const char *name, const char *tf) {
  reg.add(OpDefBuilder(name)
              .tf(tf)
              .input("x: bool")
              .input("y: bool")
              .output("z: bool")
              .shape(broadcastShape)
              .build());
}

void unary(OpRegistry &reg, const char *name, const char *tf, std::vector<DType> types) {
  reg.add(OpDefBuilder(name)
              .tf(tf)
              .input("x: T")
              .output("y: T")
              .typeAttr("T", std::move(types))
              .shape(unchangedShape)
              .build());
}

Status addNShape(InferenceContext &c) {
  Shape merged = c.inputShape(0);
  for (int i = 1; i < c.numInputs(); ++i) {
    auto m = merged.merge(c.inputShape(i));
    if (!m)
      return c.error("Inputs to add_n must have the same shape, but input 0 "
                     "is " + c.inputShape(0).str() + " and input " +
                     std::to_string(i) + " is " + c.inputShape(i).str());
    merged = *m;
  }
  c.setOutput(0, merged);
  return Status::ok();
}

/// TF1's Select: x and y agree, and the condition has their shape or is a
/// vector over their first dim; beyond TF1, numpy broadcasting of all three.
Status selectShape(InferenceContext &c) {
  const Shape &cond = c.inputShape(0);
  auto xy = broadcastShapes(c.inputShape(1), c.inputShape(2));
  if (!xy)
    return c.error("Incompatible shapes: " + c.inputShape(1).str() + " vs. " +
                   c.inputShape(2).str());
  if (cond.rank() == 1 && xy->rank() > 1) {
    int64_t d = cond.dim(0), x0 = xy->dim(0);
    if (d < 0 || x0 < 0 || d == x0) {
      c.setOutput(0, *xy);
      return Status::ok();
    }
  }
  auto out = broadcastShapes(cond, *xy);
  if (!out)
    return c.error("Incompatible shapes: " + cond.str() + " vs. " + xy->str());
  c.setOutput(0, *out);
  return Status::ok();
}

Status whereShape(InferenceContext &c) {
  const Shape &cond = c.inputShape(0);
  c.setOutput(0, Shape({Shape::kUnknown, cond.hasRank() ? cond.rank()
                                                        : Shape::kUnknown}));
  return Status::ok();
}

} // namespace

void registerMathOps(OpRegistry &reg) {
  const auto &num = kNumericTypes;
  binary(reg, "add", {"AddV2", "Add"}, num);
  binary(reg, "subtract", {"Sub"}, num);
  binary(reg, "multiply", {"Mul"}, num);
  reg.add(OpDefBuilder("divide")
              .tf("RealDiv")
              .input("x: T")
              .input("y: T")
              .output("z: T")
              .typeAttr("T", num)
              .shape([](InferenceContext &c) {
                c.setOutputType(0, truedivType(c.inputType(0)));
                return broadcastShape(c);
              })
              .doc("TF1's Python `/`: true division, ints become floats")
              .build());
  binary(reg, "floor_div", {"FloorDiv"}, num);
  binary(reg, "mod", {"FloorMod"}, num);
  binary(reg, "pow", {"Pow"}, num);
  binary(reg, "maximum", {"Maximum"}, num);
  binary(reg, "minimum", {"Minimum"}, num);
  binary(reg, "squared_difference", {"SquaredDifference"}, num);
  binary(reg, "equal", {"Equal"}, withBoolAndString(num), "z: bool");
  binary(reg, "not_equal", {"NotEqual"}, withBoolAndString(num), "z: bool");
  binary(reg, "less", {"Less"}, num, "z: bool");
  binary(reg, "less_equal", {"LessEqual"}, num, "z: bool");
  binary(reg, "greater", {"Greater"}, num, "z: bool");
  binary(reg, "greater_equal", {"GreaterEqual"}, num, "z: bool");
  logical(reg, "logical_and", "LogicalAnd");
  logical(reg, "logical_or", "LogicalOr");

  unary(reg, "negative", "Neg", num);
  unary(reg, "abs", "Abs", num);
  unary(reg, "square", "Square", num);
  unary(reg, "sqrt", "Sqrt", kFloatTypes);
  unary(reg, "rsqrt", "Rsqrt", kFloatTypes);
  unary(reg, "exp", "Exp", kFloatTypes);
  unary(reg, "log", "Log", kFloatTypes);
  unary(reg, "sigmoid", "Sigmoid", kFloatTypes);
  unary(reg, "tanh", "Tanh", kFloatTypes);
  unary(reg, "relu", "Relu", num);
  unary(reg, "sign", "Sign", num);
  unary(reg, "floor", "Floor", kFloatTypes);
  unary(reg, "ceil", "Ceil", kFloatTypes);
  unary(reg, "round", "Round", num);
  reg.add(OpDefBuilder("logical_not")
              .tf("LogicalNot")
              .input("x: bool")
              .output("y: bool")
              .shape(unchangedShape)
              .build());

  reg.add(OpDefBuilder("cast")
              .tf("Cast")
              .input("x: SrcT")
              .output("y: dtype")
              .typeAttr("SrcT", kRealAndBoolTypes)
              .typeAttr("dtype", kRealAndBoolTypes)
              .signature("x, dtype")
              .shape(unchangedShape)
              .build());

  reg.add(OpDefBuilder("add_n")
              .tf("AddN")
              .input("inputs: N*T")
              .output("sum: T")
              .attr("N", AttrType::kInt)
              .minimum(1)
              .typeAttr("T", num)
              .signature("inputs")
              .shape(addNShape)
              .build());

  reg.add(OpDefBuilder("select")
              .tf("Select", "SelectV2") // V2: tf.where_v2's broadcasting
              .input("condition: bool")
              .input("x: T")
              .input("y: T")
              .output("output: T")
              .typeAttr("T", withBoolAndString(num))
              .shape(selectShape)
              .doc("tf.where(condition, x, y)")
              .build());
  reg.add(OpDefBuilder("where")
              .tf("Where")
              .input("condition: T")
              .output("index: i64")
              .typeAttr("T", kRealAndBoolTypes)
              .shape(whereShape)
              .doc("tf.where(condition): coordinates of true elements")
              .build());

  registerMathReduceOps(reg);
}

} // namespace sluice::ir
