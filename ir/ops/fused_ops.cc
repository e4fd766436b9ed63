// ir/ops/fused_ops.cc: the `fused` op, made only by the fusion pass
// (passes/fusion.h): one node standing for a cluster of elementwise ops
// whose body is a graph function of the library, named by `f`.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerFusedOps(OpRegistry &reg) {
  reg.add(OpDefBuilder("fused")
              .input("inputs: Tin")
              .output("outputs: Tout")
              .attr("f", AttrType::kString)
              .attr("Tin", AttrType::kTypeList)
              .attr("Tout", AttrType::kTypeList)
              .attr("output_shapes", AttrType::kShapeList)
              // The body's results have fully known shapes (the pass fuses
              // nothing else), recorded here so that the node's shapes do
              // not depend on reading the library.
              .shape([](InferenceContext &c) {
                const auto &shapes = c.attr<std::vector<Shape>>("output_shapes");
                if (static_cast<int>(shapes.size()) != c.numOutputs())
                  return c.error("output_shapes has " + std::to_string(shapes.size()) +
                                 " shapes for " + std::to_string(c.numOutputs()) +
                                 " outputs");
                for (int i = 0; i < c.numOutputs(); ++i)
                  c.setOutput(i, shapes[i]);
                return Status::ok();
              })
              .doc("a fused cluster: runs function f on its inputs (interpreted or JIT-compiled)")
              .build());
}

} // namespace sluice::ir
