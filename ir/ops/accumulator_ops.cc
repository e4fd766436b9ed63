// ir/ops/accumulator_ops.cc: TF1's ConditionalAccumulator and its ops, the
// gradient store behind SyncReplicasOptimizer: gradients computed at a
// step older than the accumulator's are dropped; take_gradient waits for
// num_required, returns their mean and starts the next step.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

/// The accumulator node behind a handle input, when statically known.
const Node *accumulatorBehind(const InferenceContext &c) {
  const Node &n = c.inputNode(0);
  return n.opName() == "conditional_accumulator" ? &n : nullptr;
}

} // namespace

void registerAccumulatorOps(OpRegistry &reg) {
  reg.add(OpDefBuilder("conditional_accumulator")
              .tf("ResourceConditionalAccumulator", "ConditionalAccumulator")
              .output("handle: resource")
              .typeAttr("dtype", kFloatTypes)
              .attr("shape", AttrType::kShape, Shape::unknown())
              .attr("container", AttrType::kString, std::string())
              .attr("shared_name", AttrType::kString, std::string())
              .attr("reduction_type", AttrType::kString, std::string("MEAN"))
              .signature("dtype, shape, container, shared_name, reduction_type")
              .stateful()
              .shape(scalarShape)
              .doc("A gradient accumulator with a global step (TF's ConditionalAccumulator).")
              .build());

  reg.add(OpDefBuilder("accumulator_apply_gradient")
              .tf("ResourceAccumulatorApplyGradient", "AccumulatorApplyGradient")
              .input("handle: resource")
              .input("local_step: i64")
              .input("gradient: dtype")
              .typeAttr("dtype", kFloatTypes)
              .signature("handle, local_step, gradient, dtype")
              .stateful()
              .shape([](InferenceContext &c) -> Status {
                const Node *acc = accumulatorBehind(c);
                if (acc && acc->attr<DType>("dtype") != c.attr<DType>("dtype"))
                  return c.error("Cannot apply a " +
                                 std::string(dtypeName(c.attr<DType>("dtype"))) +
                                 " gradient to accumulator '" + acc->name() + "' of " +
                                 std::string(dtypeName(acc->attr<DType>("dtype"))));
                return Status::ok();
              })
              .doc("Adds the gradient unless local_step is older than the accumulator's step.")
              .build());

  reg.add(OpDefBuilder("accumulator_take_gradient")
              .tf("ResourceAccumulatorTakeGradient", "AccumulatorTakeGradient")
              .input("handle: resource")
              .input("num_required: i32")
              .output("average: dtype")
              .typeAttr("dtype", kFloatTypes)
              .signature("handle, num_required, dtype")
              .stateful()
              .async()
              .shape([](InferenceContext &c) -> Status {
                const Node *acc = accumulatorBehind(c);
                c.setOutput(0, acc ? acc->attr<Shape>("shape") : Shape::unknown());
                return Status::ok();
              })
              .doc("Waits for num_required gradients; their mean; the step advances.")
              .build());

  reg.add(OpDefBuilder("accumulator_num_accumulated")
              .tf("ResourceAccumulatorNumAccumulated", "AccumulatorNumAccumulated")
              .input("handle: resource")
              .output("num_accumulated: i32")
              .signature("handle")
              .stateful()
              .shape(scalarShape)
              .doc("How many gradients the accumulator holds now.")
              .build());

  reg.add(OpDefBuilder("accumulator_set_global_step")
              .tf("ResourceAccumulatorSetGlobalStep", "AccumulatorSetGlobalStep")
              .input("handle: resource")
              .input("new_global_step: i64")
              .signature("handle, new_global_step")
              .stateful()
              .doc("Sets the step gradients are compared against.")
              .build());
}

} // namespace sluice::ir
