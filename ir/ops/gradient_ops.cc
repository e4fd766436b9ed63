// ir/ops/gradient_ops.cc: ops the gradient rules build (ir/grads/): the
// inverse of broadcasting, broadcasting itself, the fused backward steps
// of relu/sigmoid/tanh, and the backward forms of pad, strided_slice,
// gather and reduce_prod. TF has most of them under the same names.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

using AT = AttrType;

// A shape given as the 1-D input `i`: its values when constant, else
// unknown dims of the input's length.
Shape shapeFromInput(InferenceContext &c, int i) {
  if (auto v = c.inputConstantInts(i))
    return Shape(*v);
  const Shape &s = c.inputShape(i);
  if (s.hasRank() && s.rank() == 1 && s.dim(0) >= 0)
    return Shape::unknownOfRank(static_cast<int>(s.dim(0)));
  return Shape::unknown();
}

void toShape(OpRegistry &reg, const char *name, std::vector<std::string> tf, const char *doc) {
  reg.add(OpDefBuilder(name)
              .tf(std::move(tf))
              .input("input: T")
              .input("shape: Tidx")
              .output("output: T")
              .typeAttr("T", kNumericTypes)
              .typeAttr("Tidx", kIndexTypes, DType::kI32)
              .signature("input, shape")
              .shape([](InferenceContext &c) {
                c.setOutput(0, shapeFromInput(c, 1));
                return Status::ok();
              })
              .doc(doc)
              .build());
}

// (a, b) -> same shape as input `like`.
void fusedBackward(OpRegistry &reg, const char *name, const char *tf, const char *a, const char *b,
                   int like, const char *doc) {
  reg.add(OpDefBuilder(name)
              .tf(tf)
              .input(std::string(a) + ": T")
              .input(std::string(b) + ": T")
              .output("backprops: T")
              .typeAttr("T", kFloatTypes)
              .shape([like](InferenceContext &c) {
                c.setOutput(0, c.inputShape(like));
                return Status::ok();
              })
              .doc(doc)
              .build());
}

} // namespace

void registerGradientOps(OpRegistry &reg) {
  toShape(reg, "broadcast_to", {"BroadcastTo"}, "numpy broadcasting of input to shape (TF's BroadcastTo)");
  toShape(reg, "sum_to_shape", {},
          "input summed over the dims along which shape was broadcast to it, then reshaped "
          "to shape (the inverse of broadcasting)");
  fusedBackward(reg, "relu_grad", "ReluGrad", "gradients", "features", 0,
                "gradients where features > 0, else 0 (TF's ReluGrad)");
  fusedBackward(reg, "sigmoid_grad", "SigmoidGrad", "y", "dy", 0, "dy * y * (1 - y) (TF's SigmoidGrad)");
  fusedBackward(reg, "tanh_grad", "TanhGrad", "y", "dy", 0, "dy * (1 - y^2) (TF's TanhGrad)");
  reg.add(OpDefBuilder("stop_gradient")
              .tf("StopGradient")
              .input("input: T")
              .output("output: T")
              .typeAttr("T")
              .shape(unchangedShape)
              .doc("identity that gradients do not pass (TF's StopGradient)")
              .build());
  reg.add(OpDefBuilder("pad")
              .tf("Pad")
              .input("input: T")
              .input("paddings: Tpaddings")
              .output("output: T")
              .typeAttr("T", kRealAndBoolTypes)
              .typeAttr("Tpaddings", kIndexTypes, DType::kI32)
              .signature("input, paddings")
              .shape([](InferenceContext &c) {
                const Shape &in = c.inputShape(0);
                auto pads = c.inputConstantInts(1);
                if (!in.hasRank() || !pads || pads->size() != 2 * static_cast<size_t>(in.rank())) {
                  c.setOutput(0, in.hasRank() ? Shape::unknownOfRank(in.rank()) : in);
                  return Status::ok();
                }
                std::vector<int64_t> dims;
                for (int i = 0; i < in.rank(); ++i)
                  dims.push_back(in.dim(i) < 0 ? -1
                                               : in.dim(i) + (*pads)[2 * i] + (*pads)[2 * i + 1]);
                c.setOutput(0, Shape(dims));
                return Status::ok();
              })
              .doc("zero padding: paddings [rank, 2] of (before, after) per dim")
              .build());
  reg.add(OpDefBuilder("strided_slice_grad")
              .tf("StridedSliceGrad")
              .input("shape: Index")
              .input("begin: Index")
              .input("end: Index")
              .input("strides: Index")
              .input("dy: T")
              .output("output: T")
              .typeAttr("T", kNumericTypes)
              .typeAttr("Index", kIndexTypes, DType::kI32)
              .attr("begin_mask", AT::kInt, int64_t{0})
              .attr("end_mask", AT::kInt, int64_t{0})
              .attr("ellipsis_mask", AT::kInt, int64_t{0})
              .attr("new_axis_mask", AT::kInt, int64_t{0})
              .attr("shrink_axis_mask", AT::kInt, int64_t{0})
              .shape([](InferenceContext &c) {
                c.setOutput(0, shapeFromInput(c, 0));
                return Status::ok();
              })
              .doc("dy scattered into zeros of shape where strided_slice took it")
              .build());
  reg.add(OpDefBuilder("gather_grad")
              .input("grad: T")
              .input("indices: Tindices")
              .input("params_shape: i32")
              .output("output: T")
              .typeAttr("T", kNumericTypes)
              .typeAttr("Tindices", kIndexTypes, DType::kI32)
              .attr("axis", AT::kInt, int64_t{0})
              .shape([](InferenceContext &c) {
                c.setOutput(0, shapeFromInput(c, 2));
                return Status::ok();
              })
              .doc("the gradient of gather: grad's slices summed into zeros of params_shape "
                   "at indices")
              .build());
  reg.add(OpDefBuilder("reduce_prod_grad")
              .input("input: T")
              .output("output: T")
              .typeAttr("T", kNumericTypes)
              .attr("axis", AT::kIntList)
              .shape(unchangedShape)
              .doc("for each element, the product of the others it was reduced with (zeros "
                   "handled exactly)")
              .build());
}

} // namespace sluice::ir
