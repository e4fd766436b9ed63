// ir/ops/state_ops.cc: variable op rows (resource-style handles, TF1 names).
// A `variable` outputs a resource handle; reads and updates take it as
// their first input, so the static dtype/shape of a variable is found by
// looking through the handle at the producing `variable` node.
#include <tuple>

#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

/// The `variable` node behind a handle input, or null when the handle
/// comes from elsewhere (then nothing is known statically).
const Node *variableBehind(const InferenceContext &c, int input) {
  const Node &n = c.inputNode(input);
  return n.opName() == "variable" ? &n : nullptr;
}

Status readShape(InferenceContext &c) {
  const Node *var = variableBehind(c, 0);
  if (!var) {
    c.setOutput(0, Shape::unknown());
    return Status::ok();
  }
  DType want = c.attr<DType>("dtype");
  DType have = var->attr<DType>("dtype");
  if (want != have)
    return c.error("Trying to read variable '" + var->name() +
                   "' with wrong dtype. Expected " +
                   std::string(dtypeName(have)) + " got " +
                   std::string(dtypeName(want)));
  c.setOutput(0, var->attr<Shape>("shape"));
  return Status::ok();
}

// TF's merge message ("Dimension 0 in both shapes must be equal, but are
// 2 and 3") for the static check of validate_shape.
Status checkSameShape(InferenceContext &c, const Shape &lhs, const Shape &rhs) {
  if (!lhs.hasRank() || !rhs.hasRank())
    return Status::ok();
  if (lhs.rank() != rhs.rank())
    return c.error("Shapes must be equal rank, but are " +
                   std::to_string(lhs.rank()) + " and " +
                   std::to_string(rhs.rank()) + ". Shapes are " + lhs.str() +
                   " and " + rhs.str());
  for (int i = 0; i < lhs.rank(); ++i)
    if (lhs.dim(i) >= 0 && rhs.dim(i) >= 0 && lhs.dim(i) != rhs.dim(i))
      return c.error("Dimension " + std::to_string(i) +
                     " in both shapes must be equal, but are " +
                     std::to_string(lhs.dim(i)) + " and " +
                     std::to_string(rhs.dim(i)) + ". Shapes are " + lhs.str() +
                     " and " + rhs.str());
  return Status::ok();
}

// assign/assign_add/assign_sub: output the value's shape; check the value
// against the variable when the handle comes straight from one.
Status updateShape(InferenceContext &c, bool alwaysValidate) {
  c.setOutput(0, c.inputShape(1));
  const Node *var = variableBehind(c, 0);
  if (!var)
    return Status::ok();
  DType have = var->attr<DType>("dtype");
  if (c.inputType(1) != have)
    return c.error("cannot assign a value of dtype " +
                   std::string(dtypeName(c.inputType(1))) + " to variable '" +
                   var->name() + "' of dtype " + std::string(dtypeName(have)));
  bool validate = alwaysValidate || c.attr<bool>("validate_shape");
  if (!validate)
    return Status::ok();
  const Shape &declared = var->attr<Shape>("shape");
  SLUICE_TRY(checkSameShape(c, declared, c.inputShape(1)));
  if (auto merged = declared.merge(c.inputShape(1)))
    c.setOutput(0, *merged);
  return Status::ok();
}

} // namespace

void registerStateOps(OpRegistry &reg) {
  // One variable stands for TF1's two kinds: VariableV2 and its ref ops
  // (Assign, AssignAdd, ...) and the resource variable ops (VarHandleOp,
  // ReadVariableOp, AssignVariableOp, ...); its handle is a resource.
  reg.add(OpDefBuilder("variable")
              .tf("VariableV2", "VarHandleOp")
              .output("ref: resource")
              .attr("shape", AttrType::kShape, Shape::unknown())
              .typeAttr("dtype")
              .attr("container", AttrType::kString, std::string())
              .attr("shared_name", AttrType::kString, std::string())
              .signature("shape, dtype, container, shared_name")
              .stateful()
              .shape(scalarShape)
              .doc("A mutable tensor in the session's resources; outputs its "
                   "handle (TF's VariableV2). shared_name defaults to the "
                   "node name.")
              .build());

  reg.add(OpDefBuilder("read_variable")
              .tf("ReadVariableOp")
              .input("resource: resource")
              .output("value: dtype")
              .typeAttr("dtype")
              .signature("resource, dtype")
              .stateful()
              .shape(readShape)
              .doc("The variable's current value; failed_precondition when "
                   "it is uninitialized.")
              .build());

  reg.add(OpDefBuilder("assign")
              .tf("Assign", "AssignVariableOp")
              .input("ref: resource")
              .input("value: T")
              .output("output: T")
              .typeAttr("T")
              .attr("validate_shape", AttrType::kBool, true)
              .attr("use_locking", AttrType::kBool, true)
              .signature("ref, value, validate_shape, use_locking")
              .stateful()
              .shape([](InferenceContext &c) { return updateShape(c, false); })
              .doc("Stores value in the variable and outputs it.")
              .build());

  for (auto [name, tf, tfResource] :
       {std::tuple{"assign_add", "AssignAdd", "AssignAddVariableOp"},
        std::tuple{"assign_sub", "AssignSub", "AssignSubVariableOp"}})
    reg.add(OpDefBuilder(name)
                .tf(tf, tfResource)
                .input("ref: resource")
                .input("value: T")
                .output("output: T")
                .typeAttr("T", kNumericTypes)
                .attr("use_locking", AttrType::kBool, false)
                .signature("ref, value, use_locking")
                .stateful()
                .shape([](InferenceContext &c) { return updateShape(c, true); })
                .doc("Updates an initialized variable in place and outputs "
                     "the new value.")
                .build());

  reg.add(OpDefBuilder("is_variable_initialized")
              .tf("IsVariableInitialized", "VarIsInitializedOp")
              .input("ref: resource")
              .output("is_initialized: bool")
              .signature("ref")
              .stateful()
              .shape(scalarShape)
              .doc("Whether the variable holds a value.")
              .build());
}

} // namespace sluice::ir
