// ir/ops/array_slice_ops.cc: array op rows that slice, split and join
// tensors: stack, unstack, concat, split, slice, strided_slice, gather.
#include "ir/inference.h"
#include "ir/node.h"
#include "ir/op_registry.h"
#include "ir/ops/array_shapes.h"
#include "ir/ops/array_strided_slice.h"

namespace sluice::ir {

namespace {

using AT = AttrType;

std::string str(int64_t v) { return std::to_string(v); }

Status stackShape(InferenceContext &c) {
  Shape merged = Shape::unknown();
  for (int i = 0; i < c.numInputs(); ++i) {
    auto m = merged.merge(c.inputShape(i));
    if (!m)
      return c.error("Shapes of all inputs must match: values[0].shape = " +
                     c.inputShape(0).str() + " != values[" + str(i) +
                     "].shape = " + c.inputShape(i).str());
    merged = *m;
  }
  if (!merged.hasRank())
    return unknownShape(c);
  int64_t axis = c.attr<int64_t>("axis");
  int64_t rank = merged.rank() + 1;
  auto ax = canonicalAxis(axis, rank);
  if (!ax)
    return c.error("axis = " + str(axis) + " not in [" + str(-rank) + ", " +
                   str(rank) + ")");
  std::vector<int64_t> dims = merged.dims();
  dims.insert(dims.begin() + *ax, c.numInputs());
  c.setOutput(0, Shape(dims));
  return Status::ok();
}

// unstack's output count comes from `num`, or else from the static shape
// (TF's "Cannot infer num from shape").
Status unstackAttrs(NodeSpec &spec, const std::vector<Shape> &in) {
  if (spec.attrs.count("num") || in.empty())
    return Status::ok();
  auto axisIt = spec.attrs.find("axis");
  int64_t axis = 0;
  if (axisIt != spec.attrs.end() &&
      axisIt->second.index() == size_t(AT::kInt))
    axis = std::get<int64_t>(axisIt->second);
  const Shape &s = in[0];
  if (s.hasRank()) {
    auto ax = canonicalAxis(axis, s.rank());
    if (!ax)
      return invalidArgument("axis = " + str(axis) + " not in [" +
                             str(-s.rank()) + ", " + str(s.rank()) + ")");
    if (s.dim(static_cast<int>(*ax)) >= 0) {
      spec.attrs["num"] = s.dim(static_cast<int>(*ax));
      return Status::ok();
    }
  }
  return valueError("Cannot infer num from shape " + s.str());
}

Status unstackShape(InferenceContext &c) {
  const Shape &in = c.inputShape(0);
  if (!in.hasRank())
    return unknownShape(c);
  int64_t axis = c.attr<int64_t>("axis");
  auto ax = canonicalAxis(axis, in.rank());
  if (!ax)
    return c.error("axis = " + str(axis) + " not in [" + str(-in.rank()) +
                   ", " + str(in.rank()) + ")");
  int64_t num = c.attr<int64_t>("num");
  int64_t d = in.dim(static_cast<int>(*ax));
  if (d >= 0 && d != num)
    return c.error("Input shape axis " + str(*ax) + " must equal " + str(num) +
                   ", got shape " + in.str());
  std::vector<int64_t> dims = in.dims();
  dims.erase(dims.begin() + *ax);
  for (int i = 0; i < c.numOutputs(); ++i)
    c.setOutput(i, Shape(dims));
  return Status::ok();
}

Status concatShape(InferenceContext &c) {
  std::vector<DimList> shapes;
  int rank = -1;
  for (int i = 0; i < c.numInputs(); ++i)
    if (c.inputShape(i).hasRank())
      rank = c.inputShape(i).rank();
  if (rank < 0)
    return unknownShape(c);
  for (int i = 0; i < c.numInputs(); ++i) {
    const Shape &s = c.inputShape(i);
    shapes.push_back(s.hasRank() ? s.dims() : DimList(rank, -1));
  }
  auto dims = concatDims(shapes, c.attr<int64_t>("axis"));
  if (!dims)
    return c.error(dims.status().message());
  c.setOutput(0, Shape(*dims));
  return Status::ok();
}

// split takes an int (`num_split`) or a list (`size_splits`), TF's
// num_or_size_splits; the output count is num_split either way.
Status splitAttrs(NodeSpec &spec, const std::vector<Shape> &) {
  bool hasNum = spec.attrs.count("num_split") > 0;
  auto sizes = spec.attrs.find("size_splits");
  // A node copied from one this function already completed (prune, the
  // text IR) has both, in agreement.
  if (hasNum && sizes != spec.attrs.end()) {
    const auto *list = std::get_if<std::vector<int64_t>>(&sizes->second);
    const auto *num = std::get_if<int64_t>(&spec.attrs["num_split"]);
    if (list && num && static_cast<int64_t>(list->size()) == *num)
      return Status::ok();
    return invalidArgument(
        "split takes num_split or size_splits, not both");
  }
  if (!hasNum && sizes == spec.attrs.end())
    return invalidArgument("split needs num_or_size_splits");
  if (sizes != spec.attrs.end() &&
      sizes->second.index() == size_t(AT::kIntList))
    spec.attrs["num_split"] = static_cast<int64_t>(
        std::get<std::vector<int64_t>>(sizes->second).size());
  return Status::ok();
}

Status splitShape(InferenceContext &c) {
  const Shape &in = c.inputShape(0);
  const DimList *sizes = c.hasAttr("size_splits")
                             ? &c.attr<std::vector<int64_t>>("size_splits")
                             : nullptr;
  int64_t num = c.attr<int64_t>("num_split");
  if (!in.hasRank())
    return unknownShape(c);
  int64_t axis = c.attr<int64_t>("axis");
  auto ax = canonicalAxis(axis, in.rank());
  if (!ax)
    return c.error(splitAxisError(in.rank(), axis));
  auto pieces = splitSizes(in.dim(static_cast<int>(*ax)), num, sizes);
  if (!pieces)
    return c.error(pieces.status().message());
  for (int i = 0; i < c.numOutputs(); ++i) {
    std::vector<int64_t> dims = in.dims();
    dims[*ax] = (*pieces)[i];
    c.setOutput(i, Shape(dims));
  }
  return Status::ok();
}

// begin/size of slice and strided_slice: 1-D, and of the input's rank.
Status checkSpecVector(InferenceContext &c, int input, const char *what) {
  const Shape &s = c.inputShape(input);
  if (s.hasRank() && s.rank() != 1)
    return c.error(std::string(what) + " must be a 1-D tensor, got shape " +
                   s.str());
  return Status::ok();
}

Status sliceShape(InferenceContext &c) {
  SLUICE_TRY(checkSpecVector(c, 1, "begin"));
  SLUICE_TRY(checkSpecVector(c, 2, "size"));
  const Shape &in = c.inputShape(0);
  auto begin = c.inputConstantInts(1);
  auto size = c.inputConstantInts(2);
  if (in.hasRank() && begin && size) {
    auto dims = sliceSizes(in.dims(), *begin, *size);
    if (!dims)
      return c.error(dims.status().message());
    c.setOutput(0, Shape(*dims));
    return Status::ok();
  }
  // Without begin, a known size other than -1 still fixes its dim.
  int64_t rank = in.rank();
  if (size)
    rank = static_cast<int64_t>(size->size());
  else if (c.inputShape(2).hasRank() && c.inputShape(2).dim(0) >= 0)
    rank = c.inputShape(2).dim(0);
  if (rank < 0)
    return unknownShape(c);
  std::vector<int64_t> dims(rank, -1);
  if (size)
    for (int64_t i = 0; i < rank; ++i)
      dims[i] = (*size)[i] >= 0 ? (*size)[i] : -1;
  c.setOutput(0, Shape(dims));
  return Status::ok();
}

Status stridedSliceShape(InferenceContext &c) {
  for (int i = 1; i <= 3; ++i) {
    const Shape &s = c.inputShape(i);
    if (s.hasRank() && s.rank() != 1)
      return c.error("Expected begin, end, and strides to be 1D equal size "
                     "tensors, but got shapes " +
                     c.inputShape(1).str() + ", " + c.inputShape(2).str() +
                     ", and " + c.inputShape(3).str() + " instead.");
  }
  auto begin = c.inputConstantInts(1);
  auto end = c.inputConstantInts(2);
  auto strides = c.inputConstantInts(3);
  int64_t specLen = -1;
  for (int i = 1; i <= 3; ++i) {
    const Shape &s = c.inputShape(i);
    if (!s.hasRank() || s.dim(0) < 0)
      continue;
    if (specLen >= 0 && s.dim(0) != specLen)
      return c.error("Expected begin, end, and strides to be 1D equal size "
                     "tensors, but got shapes " +
                     c.inputShape(1).str() + ", " + c.inputShape(2).str() +
                     ", and " + c.inputShape(3).str() + " instead.");
    specLen = s.dim(0);
  }
  const Shape &in = c.inputShape(0);
  if (!in.hasRank() || specLen < 0)
    return unknownShape(c);
  StridedSliceMasks m{c.attr<int64_t>("begin_mask"), c.attr<int64_t>("end_mask"),
                      c.attr<int64_t>("ellipsis_mask"),
                      c.attr<int64_t>("new_axis_mask"),
                      c.attr<int64_t>("shrink_axis_mask")};
  bool known = begin && end;
  auto plan = planStridedSlice(in.dims(), known ? &*begin : nullptr,
                               known ? &*end : nullptr,
                               strides ? &*strides : nullptr, specLen, m);
  if (!plan)
    return c.error(plan.status().message());
  c.setOutput(0, Shape(plan->finalDims));
  return Status::ok();
}

Status gatherShape(InferenceContext &c) {
  const Shape &params = c.inputShape(0), &indices = c.inputShape(1);
  if (params.hasRank() && params.rank() == 0)
    return c.error("params must be at least 1 dimensional");
  if (!params.hasRank() || !indices.hasRank())
    return unknownShape(c);
  int64_t axis = c.attr<int64_t>("axis");
  auto ax = canonicalAxis(axis, params.rank());
  if (!ax)
    return c.error("Expected axis in the range [" + str(-params.rank()) +
                   ", " + str(params.rank()) + "), but got " + str(axis));
  std::vector<int64_t> dims(params.dims().begin(),
                            params.dims().begin() + *ax);
  dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + *ax + 1,
              params.dims().end());
  c.setOutput(0, Shape(dims));
  return Status::ok();
}

} // namespace

void registerArraySliceOps(OpRegistry &reg) {
  reg.add(OpDefBuilder("stack")
              .tf("Pack")
              .input("values: N*T")
              .output("output: T")
              .typeAttr("T")
              .attr("N", AT::kInt)
              .minimum(1)
              .attr("axis", AT::kInt, int64_t{0})
              .signature("values, axis")
              .shape(stackShape)
              .build());
  reg.add(OpDefBuilder("unstack")
              .tf("Unpack")
              .input("value: T")
              .output("output: num*T")
              .typeAttr("T")
              .attr("num", AT::kInt)
              .minimum(0)
              .attr("axis", AT::kInt, int64_t{0})
              .signature("value, num, axis")
              .inferAttrs(unstackAttrs)
              .shape(unstackShape)
              .build());
  reg.add(OpDefBuilder("concat")
              .tf("ConcatV2", "Concat")
              .input("values: N*T")
              .output("output: T")
              .typeAttr("T")
              .attr("N", AT::kInt)
              .minimum(1)
              .attr("axis", AT::kInt)
              .signature("values, axis")
              .shape(concatShape)
              .build());
  reg.add(OpDefBuilder("split")
              .tf("Split", "SplitV")
              .input("value: T")
              .output("output: num_split*T")
              .typeAttr("T")
              .attr("num_split", AT::kInt)
              .minimum(1)
              .attr("size_splits", AT::kIntList)
              .optional()
              .attr("axis", AT::kInt, int64_t{0})
              .signature("value, num_or_size_splits, axis")
              .inferAttrs(splitAttrs)
              .shape(splitShape)
              .build());
  reg.add(OpDefBuilder("slice")
              .tf("Slice")
              .input("input_: T")
              .input("begin: Index")
              .input("size: Index")
              .output("output: T")
              .typeAttr("T")
              .typeAttr("Index", kIndexTypes, DType::kI32)
              .signature("input_, begin, size")
              .shape(sliceShape)
              .build());
  reg.add(OpDefBuilder("strided_slice")
              .tf("StridedSlice")
              .input("input_: T")
              .input("begin: Index")
              .input("end: Index")
              .input("strides: Index")
              .output("output: T")
              .typeAttr("T")
              .typeAttr("Index", kIndexTypes, DType::kI32)
              .attr("begin_mask", AT::kInt, int64_t{0})
              .attr("end_mask", AT::kInt, int64_t{0})
              .attr("ellipsis_mask", AT::kInt, int64_t{0})
              .attr("new_axis_mask", AT::kInt, int64_t{0})
              .attr("shrink_axis_mask", AT::kInt, int64_t{0})
              .signature("input_, begin, end, strides, begin_mask, end_mask, "
                         "ellipsis_mask, new_axis_mask, shrink_axis_mask")
              .shape(stridedSliceShape)
              .build());
  reg.add(OpDefBuilder("gather")
              .tf("GatherV2", "Gather")
              .input("params: Tparams")
              .input("indices: Tindices")
              .output("output: Tparams")
              .typeAttr("Tparams")
              .typeAttr("Tindices", kIndexTypes, DType::kI32)
              .attr("validate_indices", AT::kBool)
              .optional()
              .attr("axis", AT::kInt, int64_t{0})
              .signature("params, indices, validate_indices, axis")
              .shape(gatherShape)
              .build());
}

} // namespace sluice::ir
