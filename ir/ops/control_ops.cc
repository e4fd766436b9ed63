// ir/ops/control_ops.cc: control op rows: no_op (what group() builds) and
// the internal _feed placeholder that pruning substitutes for fed outputs.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerControlOps(OpRegistry &reg) {
  reg.add(OpDefBuilder("no_op")
              .tf("NoOp")
              .doc("Does nothing; with control inputs it is TF's group().")
              .build());

  // Pruning replaces a fed output whose producer has inputs by a _feed
  // node (TF rewrites feeds to _Arg/_Recv), so the pruned graph never
  // holds the producer's now-unneeded inputs. The executor provides its
  // value; the node itself never runs.
  reg.add(OpDefBuilder("_feed")
              .output("output: dtype")
              .typeAttr("dtype")
              .attr("shape", AttrType::kShape, Shape::unknown())
              .stateful()
              .shape([](InferenceContext &c) {
                c.setOutput(0, c.attr<Shape>("shape"));
                return Status::ok();
              })
              .doc("Internal: a value fed to a session run.")
              .build());
}

} // namespace sluice::ir
