// ir/ops/array_ops.cc: array op rows: constants, placeholders, reshaping,
// shape queries and tensor constructors. Slicing and joining rows are in
// array_slice_ops.cc.
#include <cmath>
#include <cstdlib>

#include "ir/inference.h"
#include "ir/node.h"
#include "ir/op_registry.h"
#include "ir/ops/array_shapes.h"

namespace sluice::ir {

void registerArraySliceOps(OpRegistry &reg);

namespace {

using AT = AttrType;

// Shape of a tensor built from a dims input (fill, zeros, ones): exact
// when the input is a constant, else of known rank when its length is.
Status shapeFromDimsInput(InferenceContext &c, int input, int output) {
  const Shape &s = c.inputShape(input);
  if (s.hasRank() && s.rank() != 1)
    return c.error("dims must be a vector, got shape " + s.str());
  if (auto dims = c.inputConstantInts(input)) {
    for (int64_t d : *dims)
      if (d < 0)
        return c.error("Dimension " + std::to_string(d) + " must be >= 0");
    c.setOutput(output, Shape(*dims));
  } else if (s.hasRank() && s.dim(0) >= 0) {
    c.setOutput(output, Shape::unknownOfRank(static_cast<int>(s.dim(0))));
  } else {
    c.setOutput(output, Shape::unknown());
  }
  return Status::ok();
}

Status constantAttrs(NodeSpec &spec, const std::vector<Shape> &) {
  auto v = spec.attrs.find("value");
  if (v == spec.attrs.end() || v->second.index() != size_t(AT::kTensor))
    return Status::ok(); // checkAttrs reports it
  const Tensor &value = std::get<Tensor>(v->second);
  if (!spec.attrs.count("dtype"))
    spec.attrs["dtype"] = value.dtype();
  return Status::ok();
}

Status constantShape(InferenceContext &c) {
  const Tensor &value = c.attr<Tensor>("value");
  if (value.dtype() != c.attr<DType>("dtype"))
    return c.error("constant value has dtype " +
                   std::string(dtypeName(value.dtype())) +
                   " but dtype is " +
                   std::string(dtypeName(c.attr<DType>("dtype"))));
  c.setOutput(0, Shape(value.dims()));
  return Status::ok();
}

Status reshapeShape(InferenceContext &c) {
  const Shape &ss = c.inputShape(1);
  if (ss.hasRank() && ss.rank() != 1)
    return c.error("sizes input must be 1-D, not shape " + ss.str());
  auto requested = c.inputConstantInts(1);
  if (!requested) {
    c.setOutput(0, ss.hasRank() && ss.dim(0) >= 0
                       ? Shape::unknownOfRank(static_cast<int>(ss.dim(0)))
                       : Shape::unknown());
    return Status::ok();
  }
  auto dims = reshapeDims(c.inputShape(0).numElements(), *requested);
  if (!dims)
    return c.error(dims.status().message());
  c.setOutput(0, Shape(*dims));
  return Status::ok();
}

Status expandDimsShape(InferenceContext &c) {
  const Shape &in = c.inputShape(0);
  if (!in.hasRank())
    return unknownShape(c);
  int64_t axis = c.attr<int64_t>("axis");
  auto ax = canonicalAxis(axis, in.rank() + 1);
  if (!ax)
    return c.error("Tried to expand dim index " + std::to_string(axis) +
                   " for tensor with " + std::to_string(in.rank()) +
                   " dimensions.");
  std::vector<int64_t> dims = in.dims();
  dims.insert(dims.begin() + *ax, 1);
  c.setOutput(0, Shape(dims));
  return Status::ok();
}

Status squeezeShape(InferenceContext &c) {
  const Shape &in = c.inputShape(0);
  if (!in.hasRank())
    return unknownShape(c);
  const DimList *axes =
      c.hasAttr("axis") ? &c.attr<std::vector<int64_t>>("axis") : nullptr;
  auto dims = squeezeDims(in.dims(), axes);
  if (!dims)
    return c.error(dims.status().message());
  c.setOutput(0, *dims ? Shape(**dims) : Shape::unknown());
  return Status::ok();
}

Status transposeShape(InferenceContext &c) {
  const Shape &in = c.inputShape(0);
  if (!c.hasAttr("perm")) {
    if (!in.hasRank())
      return unknownShape(c);
    std::vector<int64_t> dims(in.dims().rbegin(), in.dims().rend());
    c.setOutput(0, Shape(dims));
    return Status::ok();
  }
  const auto &perm = c.attr<std::vector<int64_t>>("perm");
  if (!in.hasRank()) {
    c.setOutput(0, Shape::unknownOfRank(static_cast<int>(perm.size())));
    return Status::ok();
  }
  if (Status s = checkPermutation(perm, in.rank()); !s.isOk())
    return c.error(s.message());
  std::vector<int64_t> dims;
  for (int64_t p : perm)
    dims.push_back(in.dim(static_cast<int>(p)));
  c.setOutput(0, Shape(dims));
  return Status::ok();
}

Status shapeOpShape(InferenceContext &c) {
  int r = c.inputShape(0).rank();
  c.setOutput(0, Shape({r}));
  return Status::ok();
}

// Scalar start/limit/delta; the length is known when all three are.
Status rangeShape(InferenceContext &c) {
  const char *names[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i) {
    const Shape &s = c.inputShape(i);
    if (s.hasRank() && s.rank() != 0)
      return c.error(std::string(names[i]) + " must be a scalar, not shape " +
                     s.str());
  }
  const Tensor *t[3] = {c.inputConstant(0), c.inputConstant(1),
                        c.inputConstant(2)};
  if (!t[0] || !t[1] || !t[2]) {
    c.setOutput(0, Shape({-1}));
    return Status::ok();
  }
  double start = t[0]->elementAsDouble(0), limit = t[1]->elementAsDouble(0),
         delta = t[2]->elementAsDouble(0);
  if (delta == 0)
    return c.error("Requires delta != 0: " + formatElement(*t[2], 0));
  if (delta > 0 && start > limit)
    return c.error("Requires start <= limit when delta > 0: " +
                   formatElement(*t[0], 0) + "/" + formatElement(*t[1], 0));
  if (delta < 0 && start < limit)
    return c.error("Requires start >= limit when delta < 0: " +
                   formatElement(*t[0], 0) + "/" + formatElement(*t[1], 0));
  int64_t n = isInteger(c.inputType(0))
                  ? (std::abs(t[1]->elementAsInt(0) - t[0]->elementAsInt(0)) +
                     std::abs(t[2]->elementAsInt(0)) - 1) /
                        std::abs(t[2]->elementAsInt(0))
                  : static_cast<int64_t>(
                        std::ceil(std::abs((limit - start) / delta)));
  c.setOutput(0, Shape({n}));
  return Status::ok();
}

Status oneHotShape(InferenceContext &c) {
  int64_t depth = c.attr<int64_t>("depth");
  if (depth < 0)
    return c.error("depth must be non-negative, got: " + std::to_string(depth));
  const Shape &in = c.inputShape(0);
  int64_t axis = c.attr<int64_t>("axis");
  if (!in.hasRank())
    return unknownShape(c);
  if (axis != -1 && (axis < 0 || axis > in.rank()))
    return c.error("Expected axis to be -1 or between [0, " +
                   std::to_string(in.rank() + 1) + ").  But received: " +
                   std::to_string(axis));
  std::vector<int64_t> dims = in.dims();
  dims.insert(axis == -1 ? dims.end() : dims.begin() + axis, depth);
  c.setOutput(0, Shape(dims));
  return Status::ok();
}

Status tileShape(InferenceContext &c) {
  const auto &m = c.attr<std::vector<int64_t>>("multiples");
  const Shape &in = c.inputShape(0);
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i] < 0)
      return c.error("Expected multiples[" + std::to_string(i) +
                     "] >= 0, but got " + std::to_string(m[i]));
  if (!in.hasRank()) {
    c.setOutput(0, Shape::unknownOfRank(static_cast<int>(m.size())));
    return Status::ok();
  }
  if (static_cast<int>(m.size()) != in.rank())
    return c.error("Expected multiples argument to be a vector of length " +
                   std::to_string(in.rank()) + " but got length " +
                   std::to_string(m.size()));
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i)
    dims.push_back(in.dim(i) < 0 ? -1 : in.dim(i) * m[i]);
  c.setOutput(0, Shape(dims));
  return Status::ok();
}

// zeros_like/ones_like: `dtype` defaults to the input's dtype (TF's
// dtype=None).
Status likeAttrs(NodeSpec &spec, const std::vector<Shape> &) {
  if (!spec.attrs.count("dtype") && spec.attrs.count("T"))
    spec.attrs["dtype"] = spec.attrs["T"];
  return Status::ok();
}

std::vector<DType> allTypes() {
  std::vector<DType> t = kRealAndBoolTypes;
  t.push_back(DType::kString);
  return t;
}

} // namespace

void registerArrayOps(OpRegistry &reg) {
  reg.add(OpDefBuilder("constant")
              .tf("Const")
              .output("output: dtype")
              .attr("value", AT::kTensor)
              .typeAttr("dtype")
              .signature("value, dtype")
              .inferAttrs(constantAttrs)
              .shape(constantShape)
              .doc("A tensor fixed in the graph.")
              .build());
  // Stateful so that nothing folds it: the session substitutes feeds, and
  // the kernel runs (and fails) only when it is not fed.
  reg.add(OpDefBuilder("placeholder")
              .tf("Placeholder")
              .output("output: dtype")
              .typeAttr("dtype")
              .attr("shape", AT::kShape)
              .optional()
              .signature("dtype, shape")
              .stateful()
              .shape([](InferenceContext &c) {
                c.setOutput(0, c.hasAttr("shape") ? c.attr<Shape>("shape")
                                                  : Shape::unknown());
                return Status::ok();
              })
              .build());
  reg.add(OpDefBuilder("placeholder_with_default")
              .tf("PlaceholderWithDefault")
              .input("input: dtype")
              .output("output: dtype")
              .typeAttr("dtype")
              .attr("shape", AT::kShape)
              .signature("input, shape")
              .stateful()
              .shape([](InferenceContext &c) {
                const Shape &s = c.attr<Shape>("shape");
                if (!s.isCompatibleWith(c.inputShape(0)))
                  return c.error("input shape " + c.inputShape(0).str() +
                                 " is not compatible with shape " + s.str());
                c.setOutput(0, s);
                return Status::ok();
              })
              .build());
  reg.add(OpDefBuilder("identity")
              .tf("Identity")
              .input("input: T")
              .output("output: T")
              .typeAttr("T")
              .shape(unchangedShape)
              .build());
  reg.add(OpDefBuilder("reshape")
              .tf("Reshape")
              .input("tensor: T")
              .input("shape: Tshape")
              .output("output: T")
              .typeAttr("T")
              .typeAttr("Tshape", kIndexTypes, DType::kI32)
              .signature("tensor, shape")
              .shape(reshapeShape)
              .build());
  reg.add(OpDefBuilder("expand_dims")
              .tf("ExpandDims")
              .input("input: T")
              .output("output: T")
              .typeAttr("T")
              .attr("axis", AT::kInt)
              .signature("input, axis")
              .alias("dim", "axis")
              .shape(expandDimsShape)
              .build());
  reg.add(OpDefBuilder("squeeze")
              .tf("Squeeze")
              .input("input: T")
              .output("output: T")
              .typeAttr("T")
              .attr("axis", AT::kIntList)
              .optional()
              .signature("input, axis")
              .alias("squeeze_dims", "axis")
              .shape(squeezeShape)
              .build());
  reg.add(OpDefBuilder("transpose")
              .tf("Transpose")
              .input("a: T")
              .output("output: T")
              .typeAttr("T")
              .attr("perm", AT::kIntList)
              .optional()
              .signature("a, perm")
              .shape(transposeShape)
              .build());
  reg.add(OpDefBuilder("shape")
              .tf("Shape")
              .input("input: T")
              .output("output: out_type")
              .typeAttr("T")
              .typeAttr("out_type", kIndexTypes, DType::kI32)
              .signature("input, out_type")
              .shape(shapeOpShape)
              .build());
  reg.add(OpDefBuilder("size")
              .tf("Size")
              .input("input: T")
              .output("output: out_type")
              .typeAttr("T")
              .typeAttr("out_type", kIndexTypes, DType::kI32)
              .signature("input, out_type")
              .shape(scalarShape)
              .build());
  reg.add(OpDefBuilder("rank")
              .tf("Rank")
              .input("input: T")
              .output("output: i32")
              .typeAttr("T")
              .shape(scalarShape)
              .build());
  reg.add(OpDefBuilder("fill")
              .tf("Fill")
              .input("dims: index_type")
              .input("value: T")
              .output("output: T")
              .typeAttr("T")
              .typeAttr("index_type", kIndexTypes, DType::kI32)
              .signature("dims, value")
              .shape([](InferenceContext &c) {
                const Shape &v = c.inputShape(1);
                if (v.hasRank() && v.rank() != 0)
                  return c.error("value must be a scalar, got shape " +
                                 v.str());
                return shapeFromDimsInput(c, 0, 0);
              })
              .build());
  // No TF op: TF1's tf.zeros and tf.ones build a Fill or a Const.
  for (const char *name : {"zeros", "ones"})
    reg.add(OpDefBuilder(name)
                .input("shape: index_type")
                .output("output: dtype")
                .typeAttr("dtype", kRealAndBoolTypes, DType::kF32)
                .typeAttr("index_type", kIndexTypes, DType::kI32)
                .signature("shape, dtype")
                .shape([](InferenceContext &c) {
                  return shapeFromDimsInput(c, 0, 0);
                })
                .build());
  reg.add(OpDefBuilder("zeros_like")
              .tf("ZerosLike")
              .input("tensor: T")
              .output("output: dtype")
              .typeAttr("T", allTypes())
              .typeAttr("dtype", allTypes())
              .signature("tensor, dtype")
              .inferAttrs(likeAttrs)
              .shape(unchangedShape)
              .build());
  reg.add(OpDefBuilder("ones_like")
              .tf("OnesLike")
              .input("tensor: T")
              .output("output: dtype")
              .typeAttr("T", kRealAndBoolTypes)
              .typeAttr("dtype", kRealAndBoolTypes)
              .signature("tensor, dtype")
              .inferAttrs(likeAttrs)
              .shape(unchangedShape)
              .build());
  reg.add(OpDefBuilder("range")
              .tf("Range")
              .input("start: Tidx")
              .input("limit: Tidx")
              .input("delta: Tidx")
              .output("output: Tidx")
              .typeAttr("Tidx",
                        {DType::kF32, DType::kF64, DType::kI32, DType::kI64},
                        DType::kI32)
              .signature("start, limit, delta")
              .alias("dtype", "Tidx")
              .shape(rangeShape)
              .build());
  reg.add(OpDefBuilder("one_hot")
              .tf("OneHot")
              .input("indices: TI")
              .output("output: dtype")
              .typeAttr("TI", {DType::kU8, DType::kI32, DType::kI64})
              .attr("depth", AT::kInt)
              .attr("on_value", AT::kFloat, 1.0)
              .attr("off_value", AT::kFloat, 0.0)
              .attr("axis", AT::kInt, int64_t{-1})
              .typeAttr("dtype", kRealAndBoolTypes, DType::kF32)
              .signature("indices, depth, on_value, off_value, axis, dtype")
              .shape(oneHotShape)
              .build());
  reg.add(OpDefBuilder("tile")
              .tf("Tile")
              .input("input: T")
              .output("output: T")
              .typeAttr("T")
              .attr("multiples", AT::kIntList)
              .signature("input, multiples")
              .shape(tileShape)
              .build());
  registerArraySliceOps(reg);
}

} // namespace sluice::ir
